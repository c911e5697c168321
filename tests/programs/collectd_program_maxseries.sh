#!/bin/sh
# MaxSeries in the real collectd: a program counts write() calls by size for one command
# (tests/programs/write_sizes.bpf.c, the command name set by a string Param); the test makes
# 8 sizes, size s written s + 1 times, under MaxSeries 3. Three sizes get their own series with
# their exact counts, the other five are added into "other" exactly, and gauge-folded-writes
# says how many label sets were folded into it. Then ReclaimAfter: three sizes written once
# (the "junk" first comers) take the three places; when they have not changed for 2 reads, a
# new size written later takes the place of one of them, counted exactly in its own series,
# and the one given up goes on in "other", which starts from 0 there and grows by exactly
# what that size writes afterwards.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

command -v dd >/dev/null 2>&1 || skip "dd is missing"
SIZES="1 2 3 4 5 6 7 8"
CAP=3
OBJ="$WORK/objects"
install_objects "$OBJ" tests/programs/write_sizes.bpf.o
# The workload is dd under its own command name: only its writes are counted.
cp "$(command -v dd)" "$WORK/maxseries_dd"

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "write_sizes">
    Object "$OBJ/write_sizes.bpf.o"
    Param "comm" "maxseries_dd"
    <Counter "writes">
      <Label "size">
        Size 8
      </Label>
      TypeInstance "bytes_%{size}"
      MaxSeries $CAP
    </Counter>
  </Program>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
wait_for_log 'write_sizes: on_write attached via tracepoint' 5 || fail "write_sizes did not attach"
total=0
for s in $SIZES; do
	"$WORK/maxseries_dd" if=/dev/zero of=/dev/null bs=$s count=$((s + 1)) status=none || fail "dd bs=$s failed"
	total=$((total + s + 1))
done
wait_for_csv write_sizes derive-other 10 || fail "no derive-other: nothing was folded"
wait_for_new_line write_sizes derive-other
wait_for_new_line write_sizes derive-other

named=0 expected_other=0
for s in $SIZES; do
	v=$(csv_last write_sizes "derive-bytes_$s")
	if [ -z "$v" ]; then
		expected_other=$((expected_other + s + 1))
		continue
	fi
	[ "$v" = $((s + 1)) ] || fail "size $s: counted $v, expected $((s + 1))"
	named=$((named + 1))
done
[ "$named" = "$CAP" ] || fail "$named sizes have their own series, MaxSeries is $CAP"
other=$(csv_last write_sizes derive-other)
[ "$other" = "$expected_other" ] || fail "other is $other, expected $expected_other (the folded sizes' writes)"
pass "$CAP sizes counted exactly in their own series, the other $(( $(echo $SIZES | wc -w) - CAP )) in other: $other of $total writes"
folded=$(csv_last write_sizes gauge-folded-writes)
[ "$(awk -v f="$folded" 'BEGIN { print f + 0 }')" = $(( $(echo $SIZES | wc -w) - CAP )) ] ||
	fail "gauge-folded-writes is '$folded', expected $(( $(echo $SIZES | wc -w) - CAP ))"
pass "gauge-folded-writes: $folded label sets folded into other"
[ -z "$(ls "$WORK/csv/itest/ebpf-write_sizes/" | grep -e '^derive-bytes_' | grep -v -E '^derive-bytes_[1-8]-')" ] ||
	fail "a size the workload did not write was counted: $(ls "$WORK/csv/itest/ebpf-write_sizes/")"
stop_collectd

# ReclaimAfter 2: the first comers' places go to a later label set once they idle.
: > "$WORK/collectd.log"
rm -rf "$WORK/csv"
sed -i "s|      MaxSeries $CAP|      MaxSeries $CAP\n      ReclaimAfter 2|" "$WORK/collectd.conf"
start_collectd "$WORK/collectd.conf"
wait_for_log 'write_sizes: on_write attached via tracepoint' 5 || fail "write_sizes did not attach"
for s in 1 2 3; do
	"$WORK/maxseries_dd" if=/dev/zero of=/dev/null bs=$s count=$((s + 1)) status=none || fail "dd bs=$s failed"
done
wait_for_csv write_sizes derive-bytes_3 10 || fail "no series for the first three sizes"
# Three more reads: all three have idled for 2 reads.
wait_for_new_line write_sizes derive-bytes_3
wait_for_new_line write_sizes derive-bytes_3
wait_for_new_line write_sizes derive-bytes_3
"$WORK/maxseries_dd" if=/dev/zero of=/dev/null bs=9 count=10 status=none || fail "dd bs=9 failed"
wait_for_csv write_sizes derive-bytes_9 10 || fail "the later size found no place: ReclaimAfter gave none up"
wait_for_new_line write_sizes derive-bytes_9
[ "$(csv_last write_sizes derive-bytes_9)" = 10 ] || fail "size 9: $(csv_last write_sizes derive-bytes_9), expected 10"
given=
for s in 1 2 3; do
	series_csv=$(csv_file write_sizes "derive-bytes_$s")
	before=$(wc -l < "$series_csv")
	wait_for_new_line write_sizes derive-bytes_9 # (it sets f: lib.sh)
	wait_for_new_line write_sizes derive-bytes_9
	[ "$(wc -l < "$series_csv")" = "$before" ] && given=$s
done
[ -n "$given" ] || fail "no first comer was given up"
[ "$(csv_last write_sizes derive-other)" = 0 ] ||
	fail "other is $(csv_last write_sizes derive-other) after size $given was given up, expected 0: it must go on from where it was"
"$WORK/maxseries_dd" if=/dev/zero of=/dev/null bs=$given count=5 status=none || fail "dd bs=$given failed"
wait_for_new_line write_sizes derive-other
wait_for_new_line write_sizes derive-other
[ "$(csv_last write_sizes derive-other)" = 5 ] ||
	fail "other is $(csv_last write_sizes derive-other), expected 5: the 5 later writes of size $given"
folded=$(csv_last write_sizes gauge-folded-writes)
[ "$(awk -v f="$folded" 'BEGIN { print f + 0 }')" = 1 ] || fail "gauge-folded-writes is '$folded', expected 1"
pass "ReclaimAfter 2: size 9 took the place of idle size $given (10 writes exact), which goes on in other: 5 of 5 later writes"
stop_collectd
