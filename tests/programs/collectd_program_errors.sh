#!/bin/sh
# `collectd -T` on <Program> blocks that do not match their objects (tests/programs/
# program_errors.table: a map, probe program, Skip program, member or param that is not there;
# labels that do not add up to the key; a value that is not what the block says; a decoder
# given the wrong size; a Param of the wrong type or range). Each stops collectd -T with one
# error: the table's whole message, naming the block, the map, label or param, the sizes
# expected and found, what the object has instead, and the object's path. The same blocks
# with the mistake fixed pass -T, so it is the mistake that fails them.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

TABLE="$top_srcdir/tests/programs/program_errors.table"
OBJ="$WORK/objects"
install_objects "$OBJ" $(sed -n 's/^[a-z_]*|\([^|]*\)|.*/\1/p' "$TABLE" | sort -u)

# run_t NAME OBJECT BODY [BESIDE]: collectd -T on <Program "p"> with that body (and the blocks
# BESIDE it in <Plugin ebpf>); its exit status.
run_t() {
	conf="$WORK/$1.conf"
	write_config /dev/stdout < /dev/null | sed '/^LoadPlugin logfile/,/^<\/Plugin>/d' > "$conf"
	{
		echo "<Plugin ebpf>"
		echo '  SnapshotFile ""'
		echo '  <Program "p">'
		echo "    Object \"$OBJ/${2##*/}\""
		printf '%b\n' "$3" | sed 's/^/    /'
		echo '  </Program>'
		[ -z "${4:-}" ] || printf '%b\n' "$4" | sed 's/^/  /'
		echo "</Plugin>"
	} >> "$conf"
	rc=0
	"$COLLECTD" -T -C "$conf" > "$WORK/$1.out" 2>&1 || rc=$?
	[ "$rc" -lt 128 ] || { cat "$WORK/$1.out" >&2; fail "$1: collectd -T died with signal $((rc - 128))"; }
	return $rc
}

# refused_with WHOLE NAME OBJECT BODY [BESIDE]: run_t must fail with WHOLE as its one error
# line. The two tables (mistakes in the block, objects the loader refuses) expect the same
# of collectd -T, each case only with its own message.
refused_with() {
	_whole=$1; shift
	if run_t "$@"; then
		cat "$WORK/$1.conf" "$WORK/$1.out" >&2
		fail "$1: collectd -T accepted it"
	fi
	grep -qxF -- "$_whole" "$WORK/$1.out" ||
		{ cat "$WORK/$1.out" >&2; fail "$1: the error is not: $_whole"; }
	[ "$(grep -c 'ebpf plugin:' "$WORK/$1.out")" = 1 ] ||
		{ cat "$WORK/$1.out" >&2; fail "$1: more than one error"; }
}

n=0
while IFS='|' read -r name object expected body; do
	case "$name" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	refused_with "ebpf plugin: <Program \"p\">: $expected (in $OBJ/${object##*/})" "$name" "$object" "$body"
	echo "$name: $expected"
done < "$TABLE"
[ "$n" -ge 20 ] || fail "only $n cases in $TABLE"
pass "$n mistakes in <Program> blocks: each stops collectd -T with its whole message"

# The blocks with the mistakes fixed: collectd -T loads, attaches and reads them.
run_t good_counter contrib/programs/sync_count.bpf.o \
	'Param "filter_tgid" 1\n<Probe "sync">\n Program "sync_kprobe" "sync_tp"\n</Probe>\n<Counter "sync_calls">\n</Counter>' ||
	{ cat "$WORK/good_counter.out" >&2; fail "collectd -T refused a good counter program"; }
run_t good_hist tests/programs/style_libbpf_tools.bpf.o \
	'Param "targ_dev" 1\n<Probe "issue">\n Program "issue_btf" "issue_raw"\n</Probe>\n<Probe "complete">\n Program "done_btf" "done_raw"\n</Probe>\n<Histogram "hists">\n SlotsField "slots"\n Buckets "log2"\n <Label "device">\n  Field "dev"\n  Decode "majorminor"\n </Label>\n</Histogram>' ||
	{ cat "$WORK/good_hist.out" >&2; fail "collectd -T refused a good histogram program"; }
run_t good_key tests/programs/style_exporter.bpf.o \
	'<Histogram "io_latency">\n Layout "key"\n Buckets "exp2"\n <Label "device">\n  Size 4\n  Decode "majorminor"\n </Label>\n <Label "op">\n  Size 1\n  Padding 3\n </Label>\n</Histogram>' ||
	{ cat "$WORK/good_key.out" >&2; fail "collectd -T refused a good key-layout program"; }
pass "the same programs configured right pass collectd -T"

# An object the loader cannot read or refuses: the daemon leaves that program off and runs the
# others (collectd_program.sh), but collectd -T stops on it like any other mistake in the block,
# with the loader's reason, even with a module beside it that starts.
install_objects "$OBJ" tests/programs/write_user.bpf.o contrib/programs/sync_count.bpf.o
cp "$OBJ/sync_count.bpf.o" "$OBJ/group_writable.bpf.o"
chmod 664 "$OBJ/group_writable.bpf.o"
while IFS='|' read -r name object expected; do
	refused_with "ebpf plugin: <Program \"p\">: $expected (collectd would start without this program)" \
		"$name" "$object" '<Counter "sync_calls">\n</Counter>' '<Module "signals">\n</Module>'
	echo "$name: $expected"
done <<TABLE
missing_object|missing.bpf.o|cannot use BPF object "$OBJ/missing.bpf.o": No such file or directory
group_writable_object|group_writable.bpf.o|BPF object "$OBJ/group_writable.bpf.o" is writable by its group (mode 0664): others could change the BPF code collectd loads (chmod go-w "$OBJ/group_writable.bpf.o")
forbidden_helper|write_user.bpf.o|$OBJ/write_user.bpf.o: section ".text" calls bpf_probe_write_user, which changes the system it should observe; allow it with AllowHelper "bpf_probe_write_user" if that is really meant
TABLE
pass "an object that is missing, unsafe or calls a refused helper stops collectd -T with the loader's reason"
