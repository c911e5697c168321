#!/bin/sh
# ebpf_exporter's exp2zero and linear bucket types in the real collectd: <Program>
# ExporterConfig reads tests/programs/exporter_buckets.yaml (this project's own config and
# program in that format: the value N of each close() of a marker fd by a command "v<N>", in
# an exp2zero and a linear histogram, bucket_max 10, the sum in bucket 11). The workload
# (tests/integration/close_n) closes it with 0 twice, 3 three times, 7 five times and 999
# once (beyond bucket_max: the last bucket), so each histogram counts exactly 11 values
# summing to 1043, not the sum's key as events; snmp_exporter_decoders.sh checks which
# buckets hold them.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/program_lib.sh"

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_buckets

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "buckets">
    ExporterConfig "$OBJ/exporter_buckets.yaml"
  </Program>
</Plugin>
CONF
"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the config with its exp2zero and linear histograms"

start_collectd "$WORK/collectd.conf"
wait_for_log 'buckets: count_close attached' 10 || fail "the program did not attach"
echo go | "$top_builddir/tests/integration/close_n" v0:2 v3:3 v7:5 v999:1 || fail "the workload failed"

for h in close_values_exp2zero close_values_linear; do
	wait_until 5 csv_is buckets derive-$h-count 11 ||
		{ ls "$WORK/csv/itest/ebpf-buckets/" >&2; false; } ||
		fail "derive-$h-count is $(csv_last buckets derive-$h-count), expected 11 (the sum key is not events)"
	wait_until 5 csv_is buckets derive-$h-sum 1043 ||
		fail "derive-$h-sum is $(csv_last buckets derive-$h-sum), expected 1043"
	pass "$h: exactly 11 values, summing to 1043"
done
stop_collectd
