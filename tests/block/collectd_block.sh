#!/bin/sh
# The real collectd daemon with the block and runqueue modules: O_DIRECT IO of known sizes
# on a loop device the test creates shows up in csv files named after that device
# (operations-loopN-write grows by exactly the writes, total_bytes by their bytes, the
# mean request size is exact, latency and queue-time percentiles in seconds); Disk
# selects that device only; runqueue writes its latency percentiles, in total and per CPU.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

command -v dd >/dev/null 2>&1 || skip "dd is missing"

NW=300   # writes of 64 KiB
NR=200   # reads of 16 KiB
attach_loop 64
# mq-deadline inserts every request before dispatching it, so each one has a queue time.
echo mq-deadline > "/sys/block/$DISK/queue/scheduler" || fail "cannot set mq-deadline on $DISK"
echo "loop device $DISK"

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Module "block">
    Disk "$DISK"
    QueueTime true
    Percentile 50
    Percentile 99
    Bucket 0 0.001
    Bucket 0.001 0
  </Module>
  <Module "runqueue">
    PerCPU true
  </Module>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
wait_for_log 'block: block_rq_insert+block_rq_issue+block_rq_complete attached via tp_btf' 5 ||
	fail "block did not attach via tp_btf"
wait_for_log 'runqueue: sched_wakeup+sched_wakeup_new+sched_switch attached via tp_btf+task_storage' 5 ||
	fail "runqueue did not attach via tp_btf+task_storage"
pass "both modules attached"

# One write makes the series exist before the measured run.
dd if=/dev/zero of="$LOOP" bs=64k count=1 oflag=direct status=none || fail "dd write failed"
wait_for_csv block "operations-$DISK-write" 10 || fail "no operations-$DISK-write value from collectd"
wait_for_new_line block "operations-$DISK-write"
w0=$(csv_last block "operations-$DISK-write")
b0=$(csv_last block "total_bytes-$DISK-write")
# reads completed, field 4 of /proc/diskstats
disk_reads() { awk -v d="$DISK" '$3 == d { print $4 }' /proc/diskstats; }
dr0=$(disk_reads)
dd if=/dev/zero of="$LOOP" bs=64k count=$NW oflag=direct status=none || fail "dd write failed"
dd if="$LOOP" of=/dev/null bs=16k count=$NR iflag=direct status=none || fail "dd read failed"
sleep 0.2
dr1=$(disk_reads)
wait_for_new_line block "operations-$DISK-write"
wait_for_new_line block "operations-$DISK-write"
w1=$(csv_last block "operations-$DISK-write")
b1=$(csv_last block "total_bytes-$DISK-write")
echo "writes: $w0 -> $w1, bytes: $b0 -> $b1"
# Exact unless the kernel skipped runs of our programs, which are counted: nested runs as
# dropped-recursion, and any completion the programs did not see as untraced-<disk>-<op> (from
# /proc/diskstats; under heavy IO elsewhere the kernel has been seen to skip a tp_btf completion
# run without counting a recursion miss, see doc/modules.md, "Known limits").
untraced() { v=$(csv_last block "derive-untraced-$DISK-$1"); echo "${v:-0}"; }
skipped=$(csv_last block derive-dropped-recursion)
uw=$(untraced write)
[ "$(awk -v a="$w1" -v b="$w0" -v n=$NW -v s="$skipped" -v u="$uw" 'BEGIN { d = a - b; print (d == n || (d < n && d + s + u >= n)) }')" = 1 ] ||
	fail "writes grew by $((w1 - w0)), expected $NW ($skipped nested runs skipped, $uw untraced)"
[ "$(awk -v a="$b1" -v b="$b0" -v w1="$w1" -v w0="$w0" 'BEGIN { print (a - b == (w1 - w0) * 65536) }')" = 1 ] ||
	fail "write bytes grew by $((b1 - b0)), expected $(((w1 - w0) * 65536))"
pass "$NW writes of 64 KiB counted exactly, in operations-$DISK-write and total_bytes-$DISK-write"

# collectd's write threads may write this file a little after the write series' file.
i=0
while r=$(csv_last block "operations-$DISK-read"); [ "$(awk -v r="$r" -v n=$NR 'BEGIN { print (r + 0 >= n) }')" != 1 ] && [ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1))
done
# At least: reads have no exact bound here (udev may probe a new device); test_block is exact.
# Runs the kernel skipped (dropped-recursion, untraced) are the one excuse for fewer.
skipped=$(csv_last block derive-dropped-recursion)
ur=$(untraced read)
[ "$(awk -v r="$r" -v n=$NR -v s="$skipped" -v u="$ur" 'BEGIN { print (r + s + u >= n) }')" = 1 ] || fail "reads: $r, expected at least $NR ($skipped nested runs skipped, $ur untraced) (diskstats: +$((dr1 - dr0)), read bytes $(csv_last block "total_bytes-$DISK-read"))"
pass "reads counted ($r)"

# Every request of an interval has the same size, so each interval's mean is exact.
for f in "$(csv_file block "bytes-$DISK-write-average")" "$(csv_file block "bytes-$DISK-read-average")"; do
	[ -n "$f" ] || fail "no request size average for $DISK"
done
tail -n +2 "$(csv_file block "bytes-$DISK-write-average")" | cut -d, -f2 | awk '$1 != 65536 { bad = 1 } END { exit bad }' ||
	fail "mean write size is not 65536"
tail -n +2 "$(csv_file block "bytes-$DISK-read-average")" | cut -d, -f2 | awk '$1 != 16384 { bad = 1 } END { exit bad }' ||
	fail "mean read size is not 16384"
pass "request sizes: 65536 and 16384 bytes"

for ti in "$DISK-write-50" "$DISK-write-99" "$DISK-write-average" "$DISK-read-50" "$DISK-write-queue-50"; do
	v=$(csv_last block "latency-$ti")
	[ -n "$v" ] || fail "no latency-$ti value"
	awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 10) }' || fail "latency-$ti = $v s is not plausible"
done
pass "latency and queue time in seconds ($(csv_last block "latency-$DISK-write-50") s, queue $(csv_last block "latency-$DISK-write-queue-50") s)"

[ -n "$(csv_file block "bucket-$DISK-write-0_0.001")" ] || fail "no latency bucket file"
[ -z "$(ls "$WORK/csv/itest/ebpf-block/" | grep -v "$DISK" | grep -v -e '^derive-' $SELF_METRICS)" ] || fail "a disk Disk does not select was dispatched"
[ "$(csv_last block derive-dropped-rows_full)" = 0 ] || fail "rows were dropped"
[ "$(csv_last block derive-dropped-inflight_full)" = 0 ] || fail "issue times were dropped"
[ -n "$(csv_file block derive-dropped-recursion)" ] || fail "self-metric dropped-recursion missing"
pass "Disk selects $DISK only; nothing dropped"

wait_for_csv runqueue latency-all-50 10 || fail "no runqueue latency-all-50"
[ -n "$(csv_file runqueue latency-cpu0-average)" ] || fail "no per-CPU runqueue latency"
v=$(csv_last runqueue latency-all-99)
awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 10) }' || fail "runqueue latency-all-99 = $v s is not plausible"
pass "runqueue latency in total and per CPU (p99 $v s)"
stop_collectd
