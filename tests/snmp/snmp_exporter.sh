#!/bin/sh
# An ebpf_exporter config (ExporterConfig) in the SNMP tables, with the real daemons (snmpd as
# AgentX master, the subagent as nobody, collectd with the plugin): this project's own config
# and program in ebpf_exporter's format (tests/exporter/exporter_syscalls.yaml, .bpf.c), the
# workload writing 100 bytes 7 times and 3000 bytes 5 times to its fd 3. Over SNMP, equal to
# what collectd dispatched (its csv files):
# - the counter syscalls_total (label `uint` then `syscall`): ebpfCounterTable row
#   exporter.syscalls_total.syscalls-write = 12, as derive-syscalls-write;
# - the exp2 histogram write_size_bytes: ebpfHistTable row exporter.gauge.write_size_bytes-
#   unknown:3 counts 12 (the bucket_max + 1 key is the sum, not events) and sums 15700 bytes,
#   as derive-write_size_bytes-unknown:3-count and -sum; its ebpfBucketTable rows add up to
#   12, with 7 in the bucket that holds 100 bytes and 5 in the one that holds 3000.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_syscalls

start_gated_workload write_n 100:7 3000:5

start_snmp

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$SNAP"
  SnapshotGroup "nogroup"
$(exporter_syscalls_program exporter)
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
wait_for_log 'exporter: write_size attached' 10 || sfail "the program did not attach"

wait_module_running exporter
pass "module row: exporter running, attached $(value $BASE.1.2.1.3.$(str_oid exporter implied))"

echo go >&7
wait "$WORKLOAD" || sfail "the workload failed"

snmp_counter_as_csv exporter syscalls_total derive-syscalls-write 12

INSTANCE=write_size_bytes-unknown:3
snmp_as_csv "$EBPF_HIST_COUNT" exporter gauge $INSTANCE derive-$INSTANCE-count 12
snmp_as_csv "$EBPF_HIST_SUM" exporter gauge $INSTANCE derive-$INSTANCE-sum 15700
pass "ebpfHistTable exporter.gauge.$INSTANCE: count 12, sum 15700 bytes, as collectd's -count and -sum"

snmp_buckets exporter gauge $INSTANCE "$WORK/buckets"
total=$(bucket_total "$WORK/buckets")
[ "$total" = 12 ] || sfail "the bucket rows add up to $total, expected 12: $(cat "$WORK/buckets")"
# exp2: bucket 7 holds 65..128 bytes (the 100-byte writes), bucket 12 2049..4096 (3000).
holding() { bucket_holding "$WORK/buckets" "$1"; }
[ "$(holding 100)" = 7 ] && [ "$(holding 3000)" = 5 ] ||
	sfail "the bucket holding 100 bytes counts '$(holding 100)' (expected 7), 3000 bytes '$(holding 3000)' (expected 5): $(cat "$WORK/buckets")"
pass "ebpfBucketTable: $(wc -l < "$WORK/buckets") buckets adding up to 12: 7 holding 100 bytes, 5 holding 3000"
stop_collectd
