#!/bin/sh
# collectd-ebpf-import's block gives what ExporterConfig gives, in the real collectd: one
# collectd loads tests/exporter/exporter_syscalls.yaml twice, as program "yaml"
# (ExporterConfig) and as program "printed" (the block collectd-ebpf-import prints for it), both
# filtered to one workload (tests/support/write_n: 100 bytes 7 times, 3000 bytes 5
# times). Both programs must write the same series (the same CSV file names) with equal
# values: derive-syscalls-write exactly 12, write_size_bytes-unknown:3 a count of 12 and a
# sum of 15700, and every other series alike.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_syscalls
start_gated_workload write_n 100:7 3000:5

"$top_builddir/collectd-ebpf-import" --name printed "$OBJ/exporter_syscalls.yaml" > "$WORK/block.conf" ||
	fail "collectd-ebpf-import refused the config"
grep -q '^  <Counter "syscalls_total">$' "$WORK/block.conf" || fail "no counter in the block: $(cat "$WORK/block.conf")"
# The workload's filter, as in the ExporterConfig program: after the block's Object line.
sed "s|^  Object .*|&\n  Param \"filter_tgid\" $WORKLOAD|" "$WORK/block.conf" > "$WORK/block_param.conf"

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
$(exporter_syscalls_program yaml)
$(cat "$WORK/block_param.conf")
</Plugin>
CONF

"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the printed block beside the ExporterConfig program"

start_collectd "$WORK/collectd.conf"
wait_for_log 'yaml: write_size attached' 10 || fail "program yaml did not attach"
wait_for_log 'printed: write_size attached' 10 || fail "program printed did not attach"
echo go >&7
wait "$WORKLOAD" || fail "the workload failed"

for p in yaml printed; do
	wait_until 5 csv_is $p derive-syscalls-write 12 ||
		fail "$p: derive-syscalls-write is $(csv_last $p derive-syscalls-write), expected 12"
	wait_until 5 csv_is $p derive-write_size_bytes-unknown:3-count 12 ||
		fail "$p: derive-write_size_bytes-unknown:3-count is $(csv_last $p derive-write_size_bytes-unknown:3-count), expected 12"
	wait_until 5 csv_is $p derive-write_size_bytes-unknown:3-sum 15700 ||
		fail "$p: derive-write_size_bytes-unknown:3-sum is $(csv_last $p derive-write_size_bytes-unknown:3-sum), expected 15700"
done
pass "both programs: 12 writes in syscalls_total, 12 in write_size_bytes with a sum of 15700"

# One more read after the workload ended, then every series of both, compared by its last value.
wait_for_new_line yaml derive-syscalls-write
wait_for_new_line printed derive-syscalls-write
ls "$WORK/csv/itest/ebpf-yaml/" | sed 's/-[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]$//' | sort -u > "$WORK/yaml.series"
ls "$WORK/csv/itest/ebpf-printed/" | sed 's/-[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]$//' | sort -u > "$WORK/block.series"
diff -u "$WORK/yaml.series" "$WORK/block.series" >&2 || fail "the two programs write different series"
n=0
while read -r s; do
	a=$(csv_last yaml "$s") b=$(csv_last printed "$s")
	# A program's CPU cost is each program's own measured run time (doc/modules.md, Cost),
	# not a count of events: both must send it, its value differs from run to run.
	case $s in percent-cpu_cost) [ -n "$a" ] && [ -n "$b" ] || fail "$s: '$a' from ExporterConfig, '$b' from the printed block"; continue ;; esac
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "$s: $a from ExporterConfig, $b from the printed block"
	n=$((n + 1))
done < "$WORK/yaml.series"
[ "$n" -ge 3 ] || fail "only $n series to compare"
pass "the printed block and ExporterConfig write the same $n series with the same values"
stop_collectd
