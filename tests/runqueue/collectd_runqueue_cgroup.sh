#!/bin/sh
# The real collectd with runqueue By "cgroup": two cgroups made by the test under a private
# parent in the cgroup2 mount. In hot, two CPU-bound shells pinned to one CPU (taskset) take
# turns on it, so that one of them always waits; quiet runs sleep_n (Q sleeps of U µs) while
# they do. Only what the workload guarantees is asserted, never a time that a loaded machine
# could stretch or shorten (tests/runqueue/test_runqueue_cgroup does the same in the library):
#
# - hot's waits are its shells' switch-ins, which the kernel counts (/proc/<pid>/schedstat, the
#   third field): the shells stopped (SIGSTOP) and settled, hot's count is what the kernel
#   counted since each joined, plus the one wait of each SIGKILL's wakeup (and at most one
#   more per shell, if preempted between joining and reading its count). Not exactly: the
#   module has been seen up to 5 waits short of that in 765 (and quiet 1 short of its 50
#   wakeups) with nothing counted in dropped-recursion or dropped-start_lost, as the library
#   test saw its hog short of its switches; so 2% (2 of quiet's) may be missing. With
#   `Witness true` (on here, and sent: derive-untraced-<point>) the witnesses counted 0 in
#   three runs 2 to 4 short: the programs ran for every firing, so the shortfall is a
#   switch-in the module's definition of a wait does not begin, not a skipped event;
# - hot's total wait (the snapshot's lifetime sum) is at least the time both shells ran side
#   by side, T0 to T1: one CPU, two always-runnable threads, one of them waits at every
#   instant; and at most twice their whole lives;
# - quiet's waits are at least its Q wakeups, and its total wait at most its life less the
#   Q x U it slept: below hot's total, since it lived inside T0..T1;
# - the host-wide distribution holds both cgroups' waits; nothing was folded or dropped.
#
# Per-wait percentiles are written (in seconds), but no bound is asserted on them: a wakeup of
# any other task on that CPU can cut a shell's turn short, so no percentile is guaranteed;
# the total is.
. "$top_srcdir/tests/support/lib.sh"

command -v taskset >/dev/null 2>&1 || skip "taskset is missing (apt-get install util-linux)"
HOGS=
kill_hogs() { for p in $HOGS; do kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
CG_BEFORE_REMOVAL=kill_hogs # a cgroup with processes in it cannot be removed
test_cgroups ebpf-it-rqcg hot quiet
HOT="$CG_ROOT/$PARENT/hot"
QUIET="$CG_ROOT/$PARENT/quiet"

Q=50 U=10000  # quiet: 50 sleeps of 10 ms
SIDE_BY_SIDE=2000000000  # ns the shells at least share their CPU
SLEEP_N="$top_builddir/tests/support/sleep_n"
"$SLEEP_N" 1 1000 > /dev/null || fail "sleep_n does not run"
CPU=$(($(nproc) - 1))
mkdir -m 0755 "$WORK/snap"
write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$WORK/snap/snapshot"
  <Module "runqueue">
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*"
    Witness true
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
wait_for_log 'runqueue: sched_wakeup+sched_wakeup_new+sched_switch attached via' 5 || fail "runqueue did not attach"

now() { date +%s%N; }
# The lifetime count and sum (ns) of a histogram in the snapshot (histogram <metric>
# <instance> <unit> <precision> <count> <sum> ...), "0 0" while it has none.
hist_of() {
	awk -F'\t' -v i="$1" '$1 == "histogram" && $2 == "latency" && $3 == i { print $6, $7; f = 1 } END { if (!f) print 0, 0 }' "$WORK/snap/snapshot"
}
# pid's context switch-ins so far, as the kernel counts them (sched_info pcount).
switch_ins() { awk '{ print $3 }' "/proc/$1/schedstat"; }
# settled PID: stopped and off its CPU, its switch-ins unchanged for 50 ms.
settled() {
	[ "$(awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "/proc/$1/stat")" = T ] || return 1
	n=$(switch_ins "$1"); sleep 0.05; [ "$(switch_ins "$1")" = "$n" ]
}

S=$(now)
# Each shell joins hot, writes its switch-ins at that moment, and spins; it never sleeps.
for i in 1 2; do
	taskset -c "$CPU" sh -c 'echo $$ > "$1/cgroup.procs" && read -r _ _ n < /proc/$$/schedstat && echo "$n" > "$2" && while :; do :; done' \
		sh "$HOT" "$WORK/hog$i.join" &
	HOGS="$HOGS $!"
done
for i in 1 2; do wait_until 10 test -s "$WORK/hog$i.join" || fail "shell $i did not join hot"; done
T0=$(now)

qs=$(now)
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3" "$4"' sh "$QUIET" "$SLEEP_N" $Q $U > /dev/null || fail "sleep_n in quiet failed"
qe=$(now)
# Side by side for SIDE_BY_SIDE at least.
while [ $(($(now) - T0)) -lt $SIDE_BY_SIDE ]; do sleep 0.1; done
T1=$(now)
for p in $HOGS; do kill -STOP "$p"; done
for p in $HOGS; do wait_until 10 settled "$p" || fail "shell $p did not stop"; done
i=1 kernel=0
for p in $HOGS; do
	kernel=$((kernel + $(switch_ins "$p") - $(cat "$WORK/hog$i.join")))
	i=$((i + 1))
done
for p in $HOGS; do kill -KILL "$p"; wait "$p" 2>/dev/null || true; done
HOGS=
E=$(now)

# Two more reads after the kill wakeups, so that nothing of the workload is still on its way.
wait_for_new_line runqueue latency-all-50
wait_for_new_line runqueue latency-all-50
set -- $(hist_of "${PARENT}_hot/all"); hot_n=$1 hot_sum=$2
set -- $(hist_of "${PARENT}_quiet/all"); quiet_n=$1 quiet_sum=$2
set -- $(hist_of all); host_n=$1
echo "hot: $hot_n waits (kernel: $kernel switch-ins + 2 kills), $hot_sum ns waited in $((T1 - T0)) ns side by side;" \
	"quiet: $quiet_n waits, $quiet_sum ns in a life of $((qe - qs)) ns; host-wide $host_n waits"

[ $((50 * hot_n)) -ge $((49 * (kernel + 2))) ] && [ "$hot_n" -le $((kernel + 4)) ] ||
	fail "hot has $hot_n waits, not the $kernel switch-ins the kernel counted + 2 kill wakeups (+ 2 at most, - 2% at most; dropped-recursion $(csv_last runqueue derive-dropped-recursion), dropped-start_lost $(csv_last runqueue derive-dropped-start_lost))"
untraced=$(csv_last runqueue "derive-untraced-sched_wakeup+sched_wakeup_new+sched_switch")
[ -n "$untraced" ] || fail "Witness true, and no derive-untraced-sched_wakeup+sched_wakeup_new+sched_switch value"
pass "hot: $hot_n waits for the kernel's $kernel switch-ins and 2 kill wakeups (untraced $untraced)"
[ "$hot_sum" -ge $((T1 - T0)) ] || fail "hot waited $hot_sum ns in all, less than the $((T1 - T0)) ns its shells shared one CPU"
[ "$hot_sum" -le $((2 * (E - S))) ] || fail "hot waited $hot_sum ns in all, more than its two shells lived ($((E - S)) ns each at most)"
pass "hot waited $hot_sum ns in all: at least the $((T1 - T0)) ns side by side, at most 2 x $((E - S)) ns"

[ "$quiet_n" -ge $((Q - 2)) ] || fail "quiet has $quiet_n waits, fewer than its $Q wakeups - 2"
[ "$quiet_sum" -le $((qe - qs - Q * U * 1000)) ] ||
	fail "quiet waited $quiet_sum ns, more than its life ($((qe - qs)) ns) less its $Q sleeps of $U µs"
[ "$quiet_sum" -lt "$hot_sum" ] || fail "quiet waited $quiet_sum ns, not less than hot's $hot_sum"
pass "quiet: $quiet_n waits for its $Q wakeups, $quiet_sum ns in all, less than hot's $hot_sum"

[ "$host_n" -ge $((hot_n + quiet_n)) ] || fail "host-wide $host_n waits, fewer than the cgroups' $hot_n + $quiet_n"
[ "$(csv_last runqueue derive-dropped-cgroup_full)" = 0 ] || fail "runqueue dropped waits' cgroups"
[ ! -e "$WORK/csv/itest/ebpf-runqueue.other" ] || fail "a cgroup was folded into other"
for ti in latency-all-50 latency-all-99; do
	csv_had_seconds "runqueue.${PARENT}_hot" $ti ||
		fail "ebpf-runqueue.${PARENT}_hot/$ti never had a time in seconds: '$(csv_values "runqueue.${PARENT}_hot" $ti)'; plugin instances: $(ls "$WORK/csv/itest/" | tr '\n' ' ')"
done
pass "host-wide $host_n waits hold both cgroups'; hot's percentiles in seconds (last p99 $(csv_last "runqueue.${PARENT}_hot" latency-all-99) s); nothing folded or dropped"
stop_collectd
