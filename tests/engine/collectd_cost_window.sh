#!/bin/sh
# Each module's CPU cost, sent by default (doc/modules.md, Cost): collectd with the default
# module set and no option but a shorter duty cycle (CostPeriod 3: the run-time statistics
# on for one read interval in three) writes ebpf-syscalls/percent-cpu_cost at every read
# from the second on, above 0 and at most 100 while a workload makes syscalls, and
# publishes it in the snapshot file (the gauge line the SNMP subagent serves); no
# CollectCost value is written (the statistics are not held all the time). CostPeriod 1 is
# refused by collectd -T with a message that says what to give.
. "$top_srcdir/tests/support/lib.sh"

SNAP="$WORK/snapshot"
INTERVAL=0.5
config() { # $1: CostPeriod
	write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$SNAP"
  CostPeriod $1
</Plugin>
CONF
}

config 1
"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/check.out" 2>&1 &&
	fail "collectd -T accepted CostPeriod 1: $(cat "$WORK/check.out")"
grep -q "CostPeriod 1: give how many read intervals" "$WORK/check.out" "$WORK/collectd.log" ||
	fail "collectd -T refused CostPeriod 1 without saying why: $(cat "$WORK/check.out")"
pass "CostPeriod 1 refused: $(grep -ho 'CostPeriod 1: .*' "$WORK/check.out" "$WORK/collectd.log" | head -n 1)"

config 3
start_collectd "$WORK/collectd.conf"
# A workload of syscalls the module counts, for the whole test.
dd if=/dev/zero of=/dev/null bs=1 count=20000000 2>/dev/null &
DD=$!
trap 'kill $DD 2>/dev/null || true; cleanup' EXIT INT TERM
wait_for_csv syscalls percent-cpu_cost 10 || fail "collectd wrote no percent-cpu_cost"
# Two more reads: the windows go on (carried between them by the call counts).
wait_for_new_line syscalls percent-cpu_cost
wait_for_new_line syscalls percent-cpu_cost
values=$(csv_values syscalls percent-cpu_cost)
echo "$values" | awk '{ for (i = 1; i <= NF; i++) if ($i <= 0 || $i > 100) bad = 1 } END { exit bad || NF < 3 }' ||
	fail "percent-cpu_cost is not between 0 and 100 at every read: $values"
pass "percent-cpu_cost sent by default, at each read: $values"
wait_until 5 grep -q "^gauge	cpu_cost		[0-9.]" "$SNAP" ||
	fail "the snapshot has no cpu_cost gauge line: $(grep cpu_cost "$SNAP" || echo none)"
pass "snapshot: $(grep "^gauge	cpu_cost" "$SNAP")"
cost=$(ls "$WORK/csv/itest/ebpf-syscalls" | grep -E '^(invocations|total_time_in_ms|derive-run_time)' || true)
[ -z "$cost" ] || fail "no CollectCost given, but collectd wrote: $cost"
! grep -q "cannot turn on the kernel's BPF run-time statistics" "$WORK/collectd.log" ||
	fail "collectd (root) could not turn on the statistics"
pass "no CollectCost values: the statistics are held only in the windows"
