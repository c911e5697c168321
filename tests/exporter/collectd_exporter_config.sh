#!/bin/sh
# ebpf_exporter's config format in the real collectd: <Program> ExporterConfig reads
# tests/exporter/exporter_syscalls.yaml (this project's own config and program in that format)
# and loads the object beside it. The workload (tests/support/write_n, the program's
# filter_tgid) writes 100 bytes 7 times and 3000 bytes 5 times to /dev/null (its fd 3):
# - the counter syscalls_total, its label decoded by `uint` then `syscall`, counts exactly
#   12 writes as derive-syscalls-write;
# - the exp2 histogram write_size_bytes counts exactly 12 writes, not the sum kept in bucket
#   bucket_max + 1, and its sum is exactly 15700 bytes; fd 3 is not in the label's
#   static_map, so it reads "unknown:3" as ebpf_exporter prints it.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_syscalls
start_gated_workload write_n 100:7 3000:5

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
$(exporter_syscalls_program exporter)
</Plugin>
CONF

"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the ebpf_exporter config and the object beside it"

start_collectd "$WORK/collectd.conf"
wait_for_log 'exporter: write_size attached' 10 || fail "the program did not attach"
echo go >&7
wait "$WORKLOAD" || fail "the workload failed"

wait_until 5 csv_is exporter derive-syscalls-write 12 ||
	fail "derive-syscalls-write is $(csv_last exporter derive-syscalls-write), expected 12"
pass "syscalls_total: uint then syscall names the label; exactly 12 writes"

wait_until 5 csv_is exporter derive-write_size_bytes-unknown:3-count 12 ||
	{ ls "$WORK/csv/itest/ebpf-exporter/" >&2; false; } ||
	fail "derive-write_size_bytes-unknown:3-count is $(csv_last exporter derive-write_size_bytes-unknown:3-count), expected 12 (the sum key is not events)"
wait_until 5 csv_is exporter derive-write_size_bytes-unknown:3-sum 15700 ||
	fail "derive-write_size_bytes-unknown:3-sum is $(csv_last exporter derive-write_size_bytes-unknown:3-sum), expected 15700"
pass "write_size_bytes: 12 writes and a sum of 15700 bytes from the bucket_max + 1 key; fd 3 reads unknown:3"
ls "$WORK/csv/itest/ebpf-exporter/" > "$WORK/files"
grep -q '^gauge-write_size_bytes-unknown:3-' "$WORK/files" || { cat "$WORK/files" >&2; fail "no histogram series of write_size_bytes"; }
pass "the histogram's series are named write_size_bytes-unknown:3"
