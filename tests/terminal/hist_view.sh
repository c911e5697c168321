#!/bin/sh
# collectd-ebpf-hist against the real collectd: N fsync() calls show as an fsync latency
# histogram whose rows add up to N (BCC's star bars, scaled to the fullest row), read by an
# unprivileged user in the snapshot's group; the filters keep only what they name, and a
# missing or unreadable snapshot is a clear error.
. "$top_srcdir/tests/support/lib.sh"

N=200
HIST="$top_builddir/collectd-ebpf-hist"
FSYNC_N="$top_builddir/tests/support/fsync_n"
[ -x "$HIST" ] || fail "$HIST not built"
SNAP="$WORK/snapshot"

# The snapshot's group is nogroup, the group of the user that reads it (nobody).
write_fsync_config "$WORK/collectd.conf" "$SNAP" nogroup < /dev/null
start_collectd "$WORK/collectd.conf"
# Binaries where nobody can run them, whatever the mode of the build tree.
cp "$HIST" "$FSYNC_N" "$WORK/" && HIST="$WORK/collectd-ebpf-hist" && FSYNC_N="$WORK/fsync_n"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
"$FSYNC_N" 1
wait_until 10 grep -q 'latency	fsync' "$SNAP" || fail "collectd published no fsync histogram in $SNAP"

# check_screen FILE EXPECTED: the latency-fsync histogram of a screen: its rows add up to its
# event count, which is EXPECTED ("" skips that), every bar is floor(40 x count / max) stars.
check_screen() {
	awk -v want="$2" '
		/^  latency-fsync: / { events = $2; inside = 1; next }
		inside && / -> .* : [0-9]+ +\|/ {
			split($0, f, ":"); split(f[2], g, "|"); c = g[1] + 0; n++
			count[n] = c; sum += c; if (c > max) max = c
			bar = $0; sub(/^[^|]*\|/, "", bar); stars[n] = gsub(/\*/, "", bar)
			next
		}
		inside && /^$/ { inside = 0 }
		END {
			if (events == "") { print "no latency-fsync histogram"; exit 1 }
			if (sum != events) { printf "rows add up to %d, the heading says %d events\n", sum, events; exit 1 }
			if (want != "" && sum != want) { printf "%d events, expected %d\n", sum, want; exit 2 }
			for (i = 1; i <= n; i++) {
				w = int(40 * count[i] / max)
				if (stars[i] != w) { printf "row %d: %d stars for %d of %d, expected %d\n", i, stars[i], count[i], max, w; exit 1 }
			}
			printf "%d events in %d rows, fullest row %d\n", sum, n, max
		}' "$1"
}

# --- the last interval holds exactly the workload's N calls ------------------------------------
# The view compares the snapshot it reads at start with the first new one after -i seconds;
# the workload runs in between. Other processes on this machine may call fsync in the same
# window (the count is machine-wide), so a window with more than N is tried again, up to 3.
exact=
for attempt in 1 2 3; do
	as_nobody "$HIST" --snapshot "$SNAP" --once -i 4 --module syscalls --metric latency-fsync \
		> "$WORK/once.out" 2> "$WORK/once.err" &
	view=$!
	sleep 1
	"$FSYNC_N" $N
	wait $view || { cat "$WORK/once.err" >&2; fail "collectd-ebpf-hist --once exited non-zero"; }
	cat "$WORK/once.out"
	rc=0
	why=$(check_screen "$WORK/once.out" $N) || rc=$?
	if [ $rc = 0 ]; then
		exact=yes; break
	fi
	# 2: more events than the workload's (after an if without else, $? would be 0)
	[ $rc = 2 ] || fail "screen of attempt $attempt: $why"
	echo "attempt $attempt: $why (other processes called fsync meanwhile)"
	awk '/^  latency-fsync: / { exit !($2 > n) }' n=$N "$WORK/once.out" || fail "fewer than $N fsync calls drawn: $why"
done
[ -n "$exact" ] || fail "no window of 3 held exactly the $N fsync calls"
pass "an unprivileged --once screen draws exactly the $N fsync calls, bars scaled to the fullest row"

# --- the filters -----------------------------------------------------------------------------
grep -q 'operations-' "$WORK/once.out" && fail "--metric latency-fsync drew counters"
as_nobody "$HIST" --snapshot "$SNAP" --once --since-start --top 0 > "$WORK/all.out" || fail "--since-start --once failed"
# Series under collectd's names (operations-fsync, as the RRD file is called), never the kernel
# map's (calls-fsync).
grep -Eq '^ +[0-9.]+ +[0-9]+  operations-fsync$' "$WORK/all.out" || fail "no operations-fsync rate without filters: $(cat "$WORK/all.out")"
! grep -q 'calls-' "$WORK/all.out" || fail "a series under a name collectd does not use: $(grep 'calls-' "$WORK/all.out")"
# Every counter the view names is a series collectd wrote under that name (its csv file), and
# the histogram's name is the one collectd's mean and percentiles extend (-average).
names=$(sed -n '/^== syscalls/,/^== /s/^ *[0-9.-][0-9.]* *[0-9][0-9]*  \([^ ]*\)$/\1/p' "$WORK/all.out")
[ -n "$names" ] || fail "no counters in the since-start screen: $(cat "$WORK/all.out")"
for n in $names; do
	[ -n "$(csv_file syscalls "$n")" ] || fail "the view names $n, a series collectd did not write (csv: $(ls "$WORK/csv/itest/ebpf-syscalls" | head -n 5))"
done
[ -n "$(csv_file syscalls latency-fsync-average)" ] || fail "collectd wrote no latency-fsync-average: the view's latency-fsync is not collectd's name"
pass "the view's $(echo "$names" | wc -l) counter names are collectd's series (csv files), latency-fsync its histogram's"
check_screen "$WORK/all.out" "" > /dev/null || fail "since-start screen: $(check_screen "$WORK/all.out" "")"
# Since start, the rows hold what the snapshot's histogram line counts (read back at once,
# before collectd's next read can change it, from a copy taken with the screen).
cp "$SNAP" "$WORK/snap.copy"
"$HIST" --snapshot "$WORK/snap.copy" --once --since-start --metric latency-fsync > "$WORK/copy.out"
# Fields: histogram, metric, instance, unit, precision, count, ... (snapshot_file.h).
want=$(awk -F'\t' '$1 == "histogram" && $2 == "latency" && $3 == "fsync" { print $6 }' "$WORK/snap.copy")
check_screen "$WORK/copy.out" "$want" || fail "the since-start rows are not the snapshot's $want events"
grep -q 'operations-' "$WORK/copy.out" && fail "--metric latency-fsync drew counters since start"
# The module's line says what it costs the host: the snapshot's gauge cpu_cost (percent of one
# CPU), and no sampling at 1 in 1 (its gauge sample_rate: fsync calls cost far below the
# default budget).
cost=$(awk -F'\t' '$1 == "gauge" && $2 == "cpu_cost" && $3 == "" { printf "%.3g", $4; exit }' "$WORK/snap.copy")
rate=$(awk -F'\t' '$1 == "gauge" && $2 == "sample_rate" && $3 == "" { print $4 + 0; exit }' "$WORK/snap.copy")
[ -n "$cost" ] && [ "$rate" = 1 ] || fail "no cpu_cost ($cost) or sample_rate 1 ($rate) in the snapshot"
header=$(grep '^== syscalls: ' "$WORK/copy.out")
case "$header" in
*", costs $cost% of one CPU") ;;
*) fail "the module's line does not end in the snapshot's cpu_cost $cost%: $header" ;;
esac
pass "the module's line says its cost, as the snapshot's cpu_cost, and no sampling at 1 in 1: $header"
"$HIST" --snapshot "$WORK/snap.copy" --once --since-start --metric 'operations-*' > "$WORK/calls.out"
grep -q 'latency-fsync' "$WORK/calls.out" && fail "--metric 'operations-*' drew the fsync histogram"
# Busiest first: the rate column never grows down the table.
awk '/  operations-/ { if (seen && $1 > last) exit 1; last = $1; seen = 1 }' "$WORK/calls.out" ||
	fail "counters are not sorted busiest first: $(cat "$WORK/calls.out")"
if "$HIST" --snapshot "$WORK/snap.copy" --once --since-start --module nosuch > "$WORK/none.out"; then
	fail "a module filter that matches nothing exited 0"
fi
grep -q 'nothing matches the filters' "$WORK/none.out" && grep -q -- '--module syscalls' "$WORK/none.out" ||
	fail "an empty filter did not list what the snapshot has: $(cat "$WORK/none.out")"
pass "--module and --metric keep only what they name; counters busiest first"

# --- bad snapshots -----------------------------------------------------------------------------
if "$HIST" --snapshot "$WORK/nonexistent" --once 2> "$WORK/missing.err"; then fail "a missing snapshot exited 0"; fi
grep -q "cannot read $WORK/nonexistent: no such file.*--snapshot PATH" "$WORK/missing.err" ||
	fail "unclear error for a missing snapshot: $(cat "$WORK/missing.err")"
install -m 0640 -g root "$SNAP" "$WORK/rootonly"
if as_nobody "$HIST" --snapshot "$WORK/rootonly" --once 2> "$WORK/denied.err"; then fail "an unreadable snapshot exited 0"; fi
grep -q "cannot read $WORK/rootonly: permission denied.*member of group root" "$WORK/denied.err" ||
	fail "unclear error for an unreadable snapshot: $(cat "$WORK/denied.err")"
printf 'collectd-ebpf-snapshot\t3\nwritten\tsoon\n' > "$WORK/bad"
if "$HIST" --snapshot "$WORK/bad" --once 2> "$WORK/bad.err"; then fail "a malformed snapshot exited 0"; fi
grep -q "$WORK/bad is not a collectd-ebpf snapshot this version can read: line 2: bad written line" "$WORK/bad.err" ||
	fail "unclear error for a malformed snapshot: $(cat "$WORK/bad.err")"
if "$HIST" --interval 0 2> "$WORK/usage.err"; then fail "--interval 0 accepted"; fi
grep -q 'interval "0" is not a number of seconds' "$WORK/usage.err" || fail "unclear usage error: $(cat "$WORK/usage.err")"
pass "missing, unreadable and malformed snapshots and bad options give clear errors"

# --- how a live view ends ------------------------------------------------------------------------
# started_live OUT: the live view has read the snapshot and waits for the next one.
started_live() { grep -q 'waiting .* for the next snapshot' "$1"; }
# SIGINT ends it even when it was started with SIGINT ignored, as a shell script starts its
# background commands (contrib/demo.sh): the view once kept running, deaf to Ctrl-C.
sh -c 'trap "" INT; exec "$0" --snapshot "$1" -i 0.2' "$HIST" "$SNAP" > "$WORK/int.out" 2>&1 &
view=$!
wait_until 10 started_live "$WORK/int.out" || fail "the live view did not start: $(cat "$WORK/int.out")"
kill -INT $view
wait_until 5 process_gone $view || { kill $view; fail "the view started with SIGINT ignored kept running after SIGINT"; }
rc=0; wait $view || rc=$?
[ $rc = 130 ] || fail "the view ended with status $rc after SIGINT, not 130 (killed by SIGINT)"
pass "a live view started with SIGINT ignored stops on SIGINT"
# collectd stopping removes the snapshot: the view says so, naming the file, and exits 1 (it
# once printed "no such file" every interval, forever).
"$HIST" --snapshot "$SNAP" -i 0.2 > "$WORK/live.out" 2> "$WORK/live.err" &
view=$!
wait_until 10 started_live "$WORK/live.out" || fail "the live view did not start: $(cat "$WORK/live.out" "$WORK/live.err")"
stop_collectd
[ ! -e "$SNAP" ] || fail "collectd left $SNAP when it stopped"
wait_until 5 process_gone $view || { kill $view; fail "the view kept running after collectd stopped: $(tail -n 3 "$WORK/live.out")"; }
rc=0; wait $view || rc=$?
[ $rc = 1 ] || fail "the view exited $rc when collectd stopped, not 1: $(cat "$WORK/live.err")"
grep -q "^collectd-ebpf-hist: $SNAP was removed: collectd stopped" "$WORK/live.err" ||
	fail "the view did not say that collectd stopped: $(cat "$WORK/live.err")"
! grep -q 'no such file' "$WORK/live.out" || fail "the view looped on the missing file: $(grep 'no such file' "$WORK/live.out")"
pass "a live view exits 1 saying collectd stopped when the snapshot is removed: $(cat "$WORK/live.err")"
