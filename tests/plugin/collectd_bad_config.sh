#!/bin/sh
# A table of bad values and options (tests/plugin/bad_config.table: wrong types,
# negatives, huge numbers, empty strings, repeats, unknown keys, names that would break a
# collectd identifier) through the real `collectd -T`: each must stop collectd with an
# error containing the text the table gives (the key, or for collectd's own parser errors
# "Pars"), and none may crash it. collectd_config_errors.sh checks the exact wording of
# the common ones; this one checks the breadth.
. "$top_srcdir/tests/support/lib.sh"

TABLE="$top_srcdir/tests/plugin/bad_config.table"
n=0
while IFS='|' read -r name expected body; do
	case "$name" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	conf="$WORK/$name.conf"
	# The common part without the logfile (-T then prints messages on stderr), and without
	# a snapshot unless the case is about one.
	write_config /dev/stdout < /dev/null | sed '/^LoadPlugin logfile/,/^<\/Plugin>/d' > "$conf"
	{
		echo "<Plugin ebpf>"
		case "$body" in *Snapshot*) ;; *) echo '  SnapshotFile ""' ;; esac
		printf '%b\n' "$body" | sed 's/^/  /'
		echo "</Plugin>"
	} >> "$conf"
	rc=0
	"$COLLECTD" -T -C "$conf" > "$WORK/$name.out" 2>&1 || rc=$?
	[ "$rc" -lt 128 ] || { cat "$WORK/$name.out" >&2; fail "$name: collectd -T died with signal $((rc - 128))"; }
	[ "$rc" != 0 ] || { cat "$conf" "$WORK/$name.out" >&2; fail "$name: collectd -T accepted it"; }
	grep -qF -- "$expected" "$WORK/$name.out" || { cat "$WORK/$name.out" >&2; fail "$name: the error does not say: $expected"; }
done < "$TABLE"
[ "$n" -ge 40 ] || fail "only $n cases in $TABLE"
pass "$n bad configurations: each stops collectd -T with an error naming it, none crashes it"
