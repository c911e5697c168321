#!/bin/sh
# <Program> histograms in the slot conventions of other tools, with a Multiplier that is
# neither 1e-9 nor 1, in the real collectd: tests/programs/style_slots.bpf.c records each
# write() of one workload process as a "latency" of its byte count in microseconds, as
# bpftrace-style linear slots (Buckets "linear" 0 100 10, with an exact sum) and as
# ebpf_exporter-style fixed buckets keyed by their bound (Buckets "fixed" 100 500 1000).
# The workload writes 20 x 250 and 10 x 750 bytes: exactly 30 samples in each; the mean is
# exact (12,500 us / 30); p50 lies in the slot of 250 and p99 in the slot of 750 (linear:
# [200, 300) and [700, 800) us; fixed: (100, 500] and (500, 1000] us), in seconds.
# Each histogram has its own Percentile and Bucket set: the fixed one's p90 and bucket rate
# (0.0005, 0.001] are sent, the linear one has neither.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_objects "$OBJ" tests/programs/style_slots.bpf.o
start_gated_workload write_n 250:20 750:10

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "slots">
    Object "$OBJ/style_slots.bpf.o"
    Param "filter_tgid" $WORKLOAD
    <Histogram "write_lhist">
      Layout "value"
      SlotsField "slots"
      SumField "sum"
      Buckets "linear" 0 100 10
      Multiplier 0.000001
      Type "latency"
      TypeInstance "lin"
      Percentile 50 99
    </Histogram>
    <Histogram "write_fixed">
      Layout "key"
      Buckets "fixed" 100 500 1000
      Multiplier 0.000001
      Type "latency"
      TypeInstance "fixed"
      Percentile 50 90 99
      Bucket 0.0005 0.001
    </Histogram>
  </Program>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
wait_for_log 'slots: on_write attached via tracepoint' 10 || fail "the program did not attach"
pass "linear and fixed slots with Multiplier 0.000001 pass collectd's config and start"

echo go >&7
wait "$WORKLOAD" || fail "the workload failed"
for ti in lin fixed; do
	wait_until 5 csv_is slots "derive-$ti-count" 30 || fail "$ti: derive-$ti-count is $(csv_last slots "derive-$ti-count"), expected 30"
done
pass "30 samples in the linear and in the fixed histogram"

# within LOW HIGH VALUE: LOW <= VALUE < HIGH
within() { awk -v l="$1" -v h="$2" -v v="$3" 'BEGIN { exit !(v != "" && v >= l && v < h) }'; }
check() { # TYPE-INSTANCE LOW HIGH
	v=$(csv_last slots "$1")
	within "$2" "$3" "$v" || fail "$1 is ${v:-missing}, expected in [$2, $3)"
}
check latency-lin-50 0.0002 0.0003
check latency-lin-99 0.0007 0.0008
check latency-fixed-50 0.0001 0.0005
check latency-fixed-99 0.0005 0.001
check latency-fixed-90 0.0005 0.001
[ -z "$(csv_file slots latency-lin-90)" ] || fail "latency-lin-90 was written: the linear histogram's set is 50 99, not the fixed one's"
wait_until 5 csv_has_value slots bucket-fixed-0.0005_0.001 || fail "bucket-fixed-0.0005_0.001 was not written: the fixed histogram's Bucket"
[ -z "$(ls "$WORK"/csv/itest/ebpf-slots/bucket-lin* 2>/dev/null)" ] || fail "the linear histogram sent bucket rates it was not given"
pass "each histogram its own set: fixed's p90 $(csv_last slots latency-fixed-90) and bucket rate, none of them for linear"
pass "p50 and p99 in the slots of 250 and 750 us, in seconds (Multiplier 0.000001): linear $(csv_last slots latency-lin-50) and $(csv_last slots latency-lin-99), fixed $(csv_last slots latency-fixed-50) and $(csv_last slots latency-fixed-99)"
# csv writes 6 decimals: 0.000416667 s is 0.000417; a mean of slot middles (416.17 us) 0.000416.
mean=$(csv_last slots latency-lin-average)
within 0.0004165 0.0004175 "$mean" || fail "latency-lin-average is $mean, expected 12500 us / 30 = 0.000416667 s"
[ "$(csv_last slots derive-lin-sum)" = 12500000 ] ||
	fail "derive-lin-sum is $(csv_last slots derive-lin-sum), expected 12,500 us as 12500000 ns"
pass "the mean is exact: $mean s; the sum 12,500 us is 12500000 in the histogram's nanoseconds"

# A histogram's own BucketType is checked against types.db like a module's, and the error
# names the histogram (collectd -T, messages on stderr without the logfile plugin).
sed -e '/^LoadPlugin logfile/,/^<\/Plugin>/d' \
	-e 's/^      Bucket 0.0005 0.001$/      Bucket 0.0005 0.001\n      BucketType "nosuchtype"/' "$WORK/collectd.conf" > "$WORK/buckettype.conf"
grep -q nosuchtype "$WORK/buckettype.conf" || fail "the test could not write its BucketType config"
if "$COLLECTD" -T -C "$WORK/buckettype.conf" > "$WORK/buckettype.out" 2>&1; then
	cat "$WORK/buckettype.out" >&2
	fail "collectd -T accepted BucketType \"nosuchtype\" in <Histogram \"write_fixed\">"
fi
want='module "slots": <Histogram "write_fixed">: BucketType "nosuchtype" is not a type in collectd'
grep -qF -- "$want" "$WORK/buckettype.out" || { cat "$WORK/buckettype.out" >&2; fail "expected: $want"; }
pass "a histogram's unknown BucketType: $(grep -F -- "$want" "$WORK/buckettype.out" | head -n 1)"
