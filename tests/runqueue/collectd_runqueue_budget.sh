#!/bin/sh
# CpuBudget and the cost governor on runqueue through the real collectd (doc/modules.md,
# Cost), as tests/engine/collectd_cpu_budget.sh does for syscalls: a scheduler storm on
# purpose (tests/support/sched_storm: pairs of threads ping-ponging a byte through pipes,
# pinned to one CPU, so that every round trip is two wakeups and two switches),
# under a budget set at 75% of what the module cost in the same storm with `CpuBudget "off"`
# (measured first, in a short run of its own):
#  - a storm under its budget (1.6x that) is not stepped down: measured 1 in 1 throughout, no
#    notification (the first read over, priced by a window on an idle host, is priced again);
#  - the line beside the module's memory plan (what `collectd -T` prints) says its budget and
#    steps;
#  - within three reads of the first one over the budget, the cost read is at or under the
#    budget within 20%, its waits sampled 1 in N (gauge-sample_rate N > 1), each step a
#    WARNING notification;
#  - the sampled histogram's scaled count, grown over the storm, within 5% of what the
#    module's unsampled reference instance (a second <Module "runqueue" "ref">, CpuBudget
#    "off", counting the same waits of the whole host) counted in the same reads; and the
#    reference counted at least the switch-ins the kernel counted for the storm's threads
#    (/proc/<tid>/schedstat, third field; the storm's own figure), less 2% (a switch-in
#    that begins no wait, tests/runqueue/collectd_runqueue_cgroup.sh);
#  - after the storm the module returns to 1 in 1, said in an OKAY notification.
# A storm that, this time, never cost more than its budget, or a sampled count beyond 5% of
# the reference's, is measured again (all three parts, at most 3 times): a loaded host moves
# both (below, over_budget_storm and sampled_count).
. "$top_srcdir/tests/support/lib.sh"

command -v taskset >/dev/null 2>&1 || skip "taskset is missing (apt-get install util-linux)"
SNAP="$WORK/snapshot"
# All pairs on the last CPU: on every CPU they starved collectd's read thread (one read
# 4 s late), and this test times reads.
PAIRS=3
CPU=$(($(nproc) - 1))
storm() { taskset -c "$CPU" "$top_builddir/tests/support/sched_storm" "$@"; }
# collectd's csv timestamps: reads are at least a second apart (plugin/ebpf.c, rrdtool).
INTERVAL=1

config() { # $1: CpuBudget, $2: CostPeriod
	write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$SNAP"
  CostPeriod $2
  <Module "runqueue">
    CpuBudget "$1"
  </Module>
  # The same waits unsampled: the reference.
  <Module "runqueue" "ref">
    CpuBudget "off"
  </Module>
</Plugin>
CONF
}

# waits MODULE [FILE]: the lifetime count of MODULE's host-wide wait histogram in the
# snapshot (scaled by the sampling: an estimate of all waits).
waits() {
	awk -F'\t' -v m="$1" '$1 == "module" { mine = $2 == m }
		mine && $1 == "histogram" && $2 == "latency" && $3 == "all" { print $6; exit }' "${2:-$SNAP}"
}

# after_next_read: returns once collectd has read (and written) again.
after_next_read() {
	wait_for_new_line runqueue percent-cpu_cost
}

# read_after EPOCH: MODULE has read (its csv line written) since EPOCH.
read_after() {
	_f=$(csv_file "$1" percent-cpu_cost)
	[ -n "$_f" ] && tail -n 1 "$_f" | awk -F, -v t="$2" '{ exit !($1 > t) }'
}

# snap_after EPOCH: the snapshot was published after both modules' reads that began after
# EPOCH (the csv lines may be written before the snapshot).
snap_after() {
	read_after runqueue "$1" && read_after runqueue-ref "$1" &&
		[ "$(stat -c %Y "$SNAP")" -gt "${1%.*}" ]
}

# over_twice: two reads in a row during the storm (csv lines after $start) cost more than
# $BUDGET: what the governor steps down on.
over_twice() {
	awk -F, -v t="$start" -v b="$BUDGET" '$1 != "epoch" && $1 > t { run = $2 > b ? run + 1 : 0; if (run >= 2) ok = 1 }
		END { exit !ok }' "$(csv_file runqueue percent-cpu_cost)"
}

# --- 1. unsampled: what the module costs in the storm ---------------------------------------
# CostPeriod 2: a cost window (the kernel's run-time statistics on) in the storm, as the
# governor's own windows will be in the second run (each step is measured by one).
measure_unsampled() {
	config off 2
	start_collectd "$WORK/collectd.conf"
	wait_for_csv runqueue percent-cpu_cost 15 || fail "no percent-cpu_cost"
	after_next_read
	storm $PAIRS 4 > "$WORK/storm0" || fail "sched_storm failed"
	after_next_read
	# the reads that fell wholly in the storm: the second largest of the last four (the
	# largest alone, on a loaded machine, was once a third above the others, and no budget
	# under it held)
	C0=$(tail -n 4 "$(csv_file runqueue percent-cpu_cost)" | cut -d, -f2 | sort -g | tail -n 2 | head -n 1)
	stop_collectd
	BUDGET=$(awk -v c="$C0" 'BEGIN { printf "%.2f", c * 0.75 }')
	pass "unsampled: the storm ($(cat "$WORK/storm0") switch-ins) cost $C0% of one CPU; budget $BUDGET%"
	awk -v b="$BUDGET" 'BEGIN { exit !(b >= 0.01) }' || fail "the storm cost too little to test a budget: $C0%"
}

# --- 2. a storm under its budget: no step -------------------------------------------------
# The price of a wait carried from the module's first window, at the start (an idle host),
# put the storm's cost at 4 to 5x what a window in the storm measured (a wait there costs
# more program runs and colder caches): it stepped down a storm under its budget. The first
# read over now opens a cost window, which prices it again at the next read (doc/modules.md).
under_budget() {
	rm -rf "$WORK/csv" "$WORK/rrd" "$SNAP"
	: > "$WORK/collectd.log"
	config "$(awk -v c="$C0" 'BEGIN { printf "%.2f", c * 1.6 }')%" 60
	start_collectd "$WORK/collectd.conf"
	wait_for_csv runqueue percent-cpu_cost 15 && csv_has_value runqueue gauge-sample_rate || fail "no percent-cpu_cost or gauge-sample_rate"
	after_next_read
	storm $PAIRS 4 > /dev/null || fail "sched_storm failed"
	after_next_read
	after_next_read
	stop_collectd
	RATES=$(csv_values runqueue gauge-sample_rate)
	! grep -q "Notification: .*type_instance = cost" "$WORK/collectd.log" && [ "$(echo $RATES | tr ' ' '\n' | sort -u)" = 1.000000 ] ||
		fail "a storm that cost $C0% of one CPU stepped down under a CpuBudget of 1.6 x that: costs $(csv_values runqueue percent-cpu_cost), sample_rate $RATES; $(grep "Notification: .*type_instance = cost" "$WORK/collectd.log" | sed 's/.*message = //')"
	pass "under its budget: costs $(csv_values runqueue percent-cpu_cost), measured 1 in 1 throughout"
}

# --- 3. the same storm over CpuBudget: steps down, holds the budget, steps back -----------
# Returns 1 (after stopping collectd) where the storm, this time, never cost more than the
# budget two reads in a row: a loaded host moves a storm's cost (seen in a CI run beside
# other work: 13.4% measured unsampled, no read of the second storm over 10.1%), so the
# premise, not the governor, failed; the caller measures again.
over_budget_storm() {
	rm -rf "$WORK/csv" "$WORK/rrd" "$SNAP"
	: > "$WORK/collectd.log"
	config "$BUDGET%" 60
	start_collectd "$WORK/collectd.conf"
	wait_for_csv runqueue percent-cpu_cost 15 && csv_has_value runqueue gauge-sample_rate || fail "no percent-cpu_cost or gauge-sample_rate"
	grep -q "cpu budget: runqueue: CpuBudget [0-9.]*% of one CPU .*: samples run-queue waits 1 in 2 to 1 in 64, then detaches sched_wakeup and sched_wakeup_new" "$WORK/collectd.log" ||
		fail "no line of the budget beside the plan: $(grep "kernel memory plan: runqueue\|cpu budget" "$WORK/collectd.log")"
	after_next_read
	start=$(date +%s.%N)
	wait_until 5 snap_after "$start" || fail "no snapshot before the storm"
	cp "$SNAP" "$WORK/before.snap"
	storm $PAIRS 4 > "$WORK/storm" &
	STORM_PID=$!
	trap 'kill $STORM_PID 2>/dev/null || true; cleanup' EXIT INT TERM
	wait "$STORM_PID" || fail "sched_storm failed"
	end=$(date +%s.%N)
	rate=$(csv_last runqueue gauge-sample_rate)
	awk -v n="$rate" 'BEGIN { exit !(n >= 2) }' && return 0
	if ! over_twice && [ "$attempt" -lt 3 ]; then
		echo "the storm cost $(csv_values runqueue percent-cpu_cost) this time, never twice over its budget $BUDGET%: measuring again (attempt $((attempt + 1)) of 3)"
		stop_collectd
		return 1
	fi
	fail "after the storm the waits are sampled 1 in $rate: $(csv_values runqueue gauge-sample_rate); costs $(csv_values runqueue percent-cpu_cost), budget $BUDGET%"
}

# The sampled count against the reference's: 0 when within 5%; 1 (measure again) when not
# and attempts are left. A fair 1-in-4 sample of 400,000 waits is within 0.3%; seen beyond
# it on a loaded host: +2.5% and +7.9% here beside a CI run and three helpers' builds, -2.1%
# and -0.8% before (the reference itself then short of the storm's own switch-ins: the
# kernel skips programs uncounted under load, doc/modules.md, Known limits).
sampled_count() {
	awk -v s="$SAMPLED" -v r="$REF" 'BEGIN { e = (s - r) / r; exit !(e <= 0.05 && e >= -0.05) }' && return 0
	[ "$attempt" -lt 3 ] || fail "sampled: the wait histogram's scaled count grew by $SAMPLED over the storm, the reference's by $REF: beyond 5%"
	echo "sampled: the scaled count grew by $SAMPLED, the reference's by $REF: beyond 5%; measuring again (attempt $((attempt + 1)) of 3)"
	return 1
}

attempt=1
while :; do
	measure_unsampled
	under_budget
	if over_budget_storm; then
		wait_until 10 snap_after "$end" || fail "no snapshot after the storm"
		cp "$SNAP" "$WORK/after.snap"
		SAMPLED=$(($(waits runqueue "$WORK/after.snap") - $(waits runqueue "$WORK/before.snap")))
		REF=$(($(waits runqueue-ref "$WORK/after.snap") - $(waits runqueue-ref "$WORK/before.snap")))
		wait_until 30 csv_is runqueue gauge-sample_rate 1.000000 || fail "not back to 1 in 1 after the storm: $(csv_values runqueue gauge-sample_rate)"
		stop_collectd
		budget_held runqueue "$BUDGET" "run-queue waits"
		storm=$(cat "$WORK/storm")
		# 2% short at most, as collectd_runqueue_cgroup.sh found a switch-in that begins no wait
		awk -v r="$REF" -v s="$storm" 'BEGIN { exit !(r >= 0.98 * s) }' ||
			fail "the reference counted $REF waits over the storm, its threads switched in $storm times"
		sampled_count && break
	fi
	attempt=$((attempt + 1))
done
pass "sampled: the wait histogram's scaled count grew by $SAMPLED, the reference's by $REF (the storm's threads switched in $storm times)"
