#!/bin/sh
# The real collectd with runqueue By "cgroup" and its Pressure (on by default): the PSI
# counters of three cgroups made by the test, against the cgroups' own *.pressure files.
#
# - hot: two CPU-bound shells pinned to one CPU take turns on it, so one always waits: its
#   `cpu some` grows;
# - quiet: a shell that slept twice (so that the module met the cgroup and gave it a place)
#   and now sleeps: its counters do not move;
# - mem: a dd writing 64 MiB past a 16 MiB memory limit (memory.high where the cgroup2
#   hierarchy has the memory controller, else a cgroup v1 memory cgroup's limit_in_bytes,
#   as on Debian 12's hybrid hierarchy): reclaim stalls it, its `memory some` grows.
#
# Exact: the workload is frozen (hot's shells stopped, dd ended) at two moments; at each, a
# read that began after the freeze has the totals the files have then, so that between the
# two moments every counter grew by exactly what its file's total= grew (microseconds). Then
# quiet is made again (a restart): its counter goes on from what it had, plus the new
# cgroup's total, exactly (the check cannot tell the engine's two ways to notice a new
# incarnation apart, another inode or a total below the last: both carry the same).
. "$top_srcdir/tests/support/lib.sh"

command -v taskset >/dev/null 2>&1 || skip "taskset is missing (apt-get install util-linux)"
cgroup2_root 'Pressure reads cgroup2 files'
[ -r "$CG_ROOT/cpu.pressure" ] || [ -r /proc/pressure/cpu ] || skip "the kernel has no PSI (psi=0 or no CONFIG_PSI)"
HOGS= SLEEPER= V1MEM=
kill_all() {
	for p in $HOGS $SLEEPER; do kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	[ -z "$V1MEM" ] || rmdir "$V1MEM" 2>/dev/null || true
}
CG_BEFORE_REMOVAL=kill_all
test_cgroups ebpf-it-psi hot quiet mem
HOT="$CG_ROOT/$PARENT/hot" QUIET="$CG_ROOT/$PARENT/quiet" MEM="$CG_ROOT/$PARENT/mem"
CPU=$(($(nproc) - 1))

# mem's limit: memory.high in cgroup2, else a v1 memory cgroup the dd joins as well (PSI
# accounts a stall to the task's cgroup2 cgroup whichever hierarchy's limit made it).
if grep -qw memory "$CG_ROOT/cgroup.controllers" && echo +memory > "$CG_ROOT/$PARENT/cgroup.subtree_control" 2>/dev/null; then
	echo 16M > "$MEM/memory.high" || fail "cannot set memory.high of $MEM"
	LIMIT="memory.high 16M"
else
	V1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
	[ -n "$V1" ] || skip "no memory controller in cgroup2 nor a cgroup v1 memory hierarchy"
	V1MEM="$V1/$PARENT"
	mkdir "$V1MEM" && echo 16M > "$V1MEM/memory.limit_in_bytes" || fail "cannot make the v1 memory cgroup $V1MEM"
	LIMIT="v1 memory.limit_in_bytes 16M"
fi
# in_mem CMD...: CMD in mem (and the v1 memory cgroup).
in_mem() {
	sh -c 'echo $$ > "$1/cgroup.procs" && { [ -z "$2" ] || echo $$ > "$2/cgroup.procs"; } && shift 2 && exec "$@"' \
		sh "$MEM" "$V1MEM" "$@"
}

mkdir -m 0755 "$WORK/snap"
INTERVAL=0.5 write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$WORK/snap/snapshot"
  <Module "runqueue">
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*"
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
wait_for_log 'runqueue: sched_wakeup+sched_wakeup_new+sched_switch attached via' 5 || fail "runqueue did not attach"

for i in 1 2; do
	taskset -c "$CPU" sh -c 'echo $$ > "$1/cgroup.procs" && while :; do :; done' sh "$HOT" &
	HOGS="$HOGS $!"
done
sh -c 'echo $$ > "$1/cgroup.procs" && sleep 0.01 && sleep 0.01 && exec sleep 600' sh "$QUIET" &
SLEEPER=$!
in_mem sh -c 'sleep 0.01; sleep 0.01' || fail "cannot run in $MEM"

ci() { echo "runqueue.${PARENT}_$1"; }
for c in hot quiet mem; do
	wait_until 15 csv_has_value "$(ci $c)" derive-pressure-cpu-some ||
		fail "no derive-pressure-cpu-some for $c; series: $(series)"
done
wait_until 10 csv_has_value runqueue derive-pressure-cpu-some || fail "no host-wide derive-pressure-cpu-some; series: $(series)"
pass "pressure counters for hot, quiet, mem and the host"

switch_ins() { awk '{ print $3 }' "/proc/$1/schedstat"; }
settled() {
	[ "$(awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "/proc/$1/stat")" = T ] || return 1
	n=$(switch_ins "$1"); sleep 0.05; [ "$(switch_ins "$1")" = "$n" ]
}
# freeze: hot's shells stopped and settled, then two reads more (the second began after the
# freeze), so that the csv's last values are the totals the files have now.
freeze() {
	for p in $HOGS; do kill -STOP "$p"; done
	for p in $HOGS; do wait_until 10 settled "$p" || fail "shell $p did not stop"; done
	for c in hot quiet mem; do wait_until 5 test "$(wc -l < "$(csv_file "$(ci $c)" derive-pressure-cpu-some)")" -gt 0; done
	wait_for_new_line "$(ci hot)" derive-pressure-cpu-some
	wait_for_new_line "$(ci hot)" derive-pressure-cpu-some
}
# snap TAG: each cgroup's csv value and file total (some, full) per resource, as lines
# "<cgroup> <resource>-<kind> <csv> <file>".
snap() {
	for c in hot quiet mem; do
		for r in cpu memory io; do
			awk -v c=$c -v r=$r '{ sub(/^total=/, "", $5); print c, r "-" $1, $5 }' "$CG_ROOT/$PARENT/$c/$r.pressure" |
			while read -r cg ti file; do
				echo "$cg $ti $(csv_last "$(ci $cg)" "derive-pressure-$ti") $file"
			done
		done
	done > "$WORK/$1"
}

freeze
snap t1
for p in $HOGS; do kill -CONT "$p"; done
in_mem dd if=/dev/zero of="$WORK/mem.dat" bs=1M count=64 status=none || fail "dd in $MEM failed"
rm -f "$WORK/mem.dat"
sleep 1 # hot's shells side by side a while (nothing waits for this: any time > 0 does)
freeze
snap t2
host2=$(csv_last runqueue derive-pressure-cpu-some)

# Each counter's growth equals its file's, exactly; and name the workloads' own.
for t in t1 t2; do awk '{ print $1 "/" $2, $3, $4 }' "$WORK/$t" | sort > "$WORK/$t.sorted"; done
join -j 1 "$WORK/t1.sorted" "$WORK/t2.sorted" > "$WORK/both" || fail "cannot pair the two snaps"
[ "$(wc -l < "$WORK/both")" -ge 17 ] || fail "fewer than 17 series in both snaps: $(cat "$WORK/t1" "$WORK/t2")"
while read -r s c1 f1 c2 f2; do
	[ -n "$c1" ] && [ -n "$c2" ] || fail "$s: no csv value ($c1, $c2)"
	[ $((c2 - c1)) = $((f2 - f1)) ] ||
		fail "$s: the counter grew by $((c2 - c1)) µs ($c1 -> $c2), the file's total by $((f2 - f1)) µs ($f1 -> $f2)"
done < "$WORK/both"
delta() { awk -v s="$1" '$1 == s { print $4 - $2 }' "$WORK/both"; }
pass "every counter of the 3 cgroups grew by exactly its file's total=: $(tr '\n' ';' < "$WORK/both")"
[ "$(delta hot/cpu-some)" -gt 0 ] || fail "hot's cpu some did not grow while two shells shared one CPU"
[ "$(delta quiet/cpu-some)" = 0 ] || fail "quiet's cpu some grew by $(delta quiet/cpu-some) µs while it slept"
[ "$(delta mem/memory-some)" -gt 0 ] || fail "mem's memory some did not grow while dd wrote 64 MiB past $LIMIT"
pass "hot: cpu some +$(delta hot/cpu-some) µs; quiet: +0; mem: memory some +$(delta mem/memory-some) µs ($LIMIT)"
# The snapshot (what SNMP's ebpfCgroupCounterTable, the terminal view and the Prometheus
# endpoint read) has the same counters, with their labels: the workload is frozen, so its
# next write has the csv's values.
snap_counter() {
	awk -F'\t' -v i="$1" '$1 == "counter" && $2 == "pressure" && $3 == i { print $4 "\t" $5 "\t" $6 "\t" $7 "\t" $8 "\t" $9 "\t" $10 }' \
		"$WORK/snap/snapshot"
}
hot_csv=$(csv_last "$(ci hot)" derive-pressure-cpu-some)
wait_until 5 test "$(snap_counter "${PARENT}_hot/cpu-some" | cut -f1)" = "$hot_csv" ||
	fail "the snapshot's pressure ${PARENT}_hot/cpu-some is '$(snap_counter "${PARENT}_hot/cpu-some")', not the csv's $hot_csv"
snap_counter "${PARENT}_hot/cpu-some" | grep -q "cgroup.*${PARENT}_hot" ||
	fail "the snapshot's pressure ${PARENT}_hot/cpu-some has no cgroup label: $(snap_counter "${PARENT}_hot/cpu-some")"
[ -n "$(snap_counter cpu-some)" ] || fail "the snapshot has no host-wide pressure cpu-some"
pass "the snapshot has them: pressure ${PARENT}_hot/cpu-some $(snap_counter "${PARENT}_hot/cpu-some" | tr '\t' ' ')"
[ "$host2" -gt 0 ] || fail "the host's cpu some is $host2"

# quiet made again (a service restarted: another directory at the same path): its name goes
# on from what the last incarnation had at its last read, plus the new one's total since its
# birth, exactly (it sleeps once it has met the module); never back, never a spike.
q2=$(csv_last "$(ci quiet)" derive-pressure-cpu-some)
kill -KILL "$SLEEPER"; wait "$SLEEPER" 2>/dev/null || true
SLEEPER=
wait_until 5 rmdir "$QUIET" || fail "cannot remove $QUIET"
mkdir "$QUIET" || fail "cannot make $QUIET again"
sh -c 'echo $$ > "$1/cgroup.procs" && sleep 0.01 && sleep 0.01 && exec sleep 600' sh "$QUIET" &
SLEEPER=$!
quiet_total() { awk '$1 == "some" { sub(/^total=/, "", $5); print $5 }' "$QUIET/cpu.pressure"; }
sleeping() { [ "$(awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "/proc/$SLEEPER/stat")" = S ] && grep -q '^sleep' "/proc/$SLEEPER/comm"; }
wait_until 5 sleeping || fail "the new quiet's shell did not come to sleep"
carried() { [ "$(csv_last "$(ci quiet)" derive-pressure-cpu-some)" = $((q2 + $(quiet_total))) ]; }
wait_until 10 carried ||
	fail "quiet made again: its cpu some is $(csv_last "$(ci quiet)" derive-pressure-cpu-some), not the $q2 it had + the new cgroup's $(quiet_total) ($(csv_values "$(ci quiet)" derive-pressure-cpu-some))"
pass "quiet made again: cpu some $q2 + the new cgroup's $(quiet_total) µs"
[ ! -e "$WORK/csv/itest/ebpf-runqueue.other" ] || fail "a cgroup was folded into other"
pass "the host's cpu some: $host2 µs since the module's first read"
stop_collectd
