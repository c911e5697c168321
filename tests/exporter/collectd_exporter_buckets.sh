#!/bin/sh
# ebpf_exporter's exp2zero, linear and fixed bucket types in the real collectd: <Program>
# ExporterConfig reads tests/exporter/exporter_buckets.yaml (this project's own config and
# program in that format: the value N of each close() of a marker fd by a command "v<N>", in
# an exp2zero and a linear histogram, bucket_max 10, the sum in bucket 11, and a fixed one,
# bucket_keys 0, 5, 100, the sum in bucket 101). The workload (tests/support/close_n)
# closes it with 0 twice, 3 three times, 7 five times and 999 once (beyond bucket_max: the
# last bucket), so exp2zero and linear count exactly 11 values summing to 1043, not the
# sum's key as events; fixed counts 6 of them (the program puts 7 in bucket 7, which
# bucket_keys do not list: ebpf_exporter does not read it) and the same sum.
# snmp_exporter_decoders.sh checks which buckets hold them.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

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
pass "collectd -T takes the config with its exp2zero, linear and fixed histograms"

start_collectd "$WORK/collectd.conf"
wait_for_log 'buckets: count_close attached' 10 || fail "the program did not attach"
echo go | "$top_builddir/tests/support/close_n" v0:2 v3:3 v7:5 v999:1 || fail "the workload failed"

for h in close_values_exp2zero:11 close_values_linear:11 close_values_fixed:6; do
	n=${h#*:} h=${h%:*}
	wait_until 5 csv_is buckets derive-$h-count "$n" ||
		{ ls "$WORK/csv/itest/ebpf-buckets/" >&2; false; } ||
		fail "derive-$h-count is $(csv_last buckets derive-$h-count), expected $n (the sum key is not events)"
	wait_until 5 csv_is buckets derive-$h-sum 1043 ||
		fail "derive-$h-sum is $(csv_last buckets derive-$h-sum), expected 1043"
	pass "$h: exactly $n values, summing to 1043"
done
wait_until 5 csv_is buckets derive-unlisted-close_values_fixed 5 ||
	fail "derive-unlisted-close_values_fixed is '$(csv_last buckets derive-unlisted-close_values_fixed)', expected the 5 closes with 7 (bucket 7 is not among bucket_keys)"
pass "close_values_fixed: the 5 values in an unlisted bucket counted as unlisted, not as events"
stop_collectd
