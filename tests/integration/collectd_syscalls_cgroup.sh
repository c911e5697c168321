#!/bin/sh
# The real collectd with syscalls By "cgroup": three cgroups made by the test under a private
# parent in the cgroup2 mount (depth 1, so that CgroupDepth 2 is theirs), each running fsync_n
# with its own count. With MaxSeries 2 the first two have their own plugin_instance
# (ebpf-syscalls.<parent>_a, as doc/modules.md names them), exactly N and K fsync calls and
# fsync percentiles; the third is in ebpf-syscalls.other, exactly M, with gauge-folded-cgroups
# 1; the host-wide series go on beside them; the snapshot file (SNMP, the terminal view)
# carries the cgroup before a '/' in the instance.
. "$top_srcdir/tests/integration/lib.sh"

CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$CG_ROOT" ] || skip "no cgroup2 mount (By \"cgroup\" names cgroup2 cgroups)"
PARENT=ebpf-it-bycg-$$
mkdir "$CG_ROOT/$PARENT" || skip "cannot make a cgroup under $CG_ROOT"
for c in a b c; do mkdir "$CG_ROOT/$PARENT/$c" || fail "cannot make the cgroup $PARENT/$c"; done
cg_cleanup() {
	for c in a b c; do rmdir "$CG_ROOT/$PARENT/$c" 2>/dev/null || true; done
	rmdir "$CG_ROOT/$PARENT" 2>/dev/null || true
	cleanup
}
trap cg_cleanup EXIT INT TERM

N=120 K=75 M=33
FSYNC_N="$top_builddir/tests/integration/fsync_n"
mkdir -m 0755 "$WORK/snap"
write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$WORK/snap/snapshot"
  <Module "syscalls">
    Latency "fsync"
    Percentile 50
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*"
    MaxSeries 2
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
"$FSYNC_N" 1
wait_for_csv syscalls operations-fsync 10 || fail "no host-wide operations-fsync"
host_before=$(csv_last syscalls operations-fsync)

# run CGROUP COUNT: fsync_n COUNT times from inside the cgroup.
run() { sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$CG_ROOT/$PARENT/$1" "$FSYNC_N" "$2" || fail "the workload in $1 failed"; }
series() { ls "$WORK/csv/itest/" | tr '\n' ' '; }

run a $N
wait_until 15 csv_is "syscalls.${PARENT}_a" operations-fsync $N ||
	fail "ebpf-syscalls.${PARENT}_a/operations-fsync is '$(csv_last "syscalls.${PARENT}_a" operations-fsync)', not $N; plugin instances: $(series)"
run b $K
wait_until 15 csv_is "syscalls.${PARENT}_b" operations-fsync $K ||
	fail "ebpf-syscalls.${PARENT}_b/operations-fsync is '$(csv_last "syscalls.${PARENT}_b" operations-fsync)', not $K; plugin instances: $(series)"
pass "per cgroup: $N fsync calls in ebpf-syscalls.${PARENT}_a, $K in ebpf-syscalls.${PARENT}_b"
for c in a b; do
	v=$(csv_last "syscalls.${PARENT}_$c" latency-fsync-50)
	awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 10) }' || fail "${PARENT}_$c latency-fsync-50 is '$v', not an fsync time in seconds"
done
pass "fsync p50 per cgroup: a $(csv_last "syscalls.${PARENT}_a" latency-fsync-50) s, b $(csv_last "syscalls.${PARENT}_b" latency-fsync-50) s"

run c $M
wait_until 15 csv_is syscalls.other operations-fsync $M ||
	fail "ebpf-syscalls.other/operations-fsync is '$(csv_last syscalls.other operations-fsync)', not $M; plugin instances: $(series)"
wait_until 5 csv_is syscalls gauge-folded-cgroups 1.000000 ||
	fail "gauge-folded-cgroups is '$(csv_last syscalls gauge-folded-cgroups)', not 1"
[ ! -e "$WORK/csv/itest/ebpf-syscalls.${PARENT}_c" ] || fail "the third cgroup got a series under MaxSeries 2"
pass "MaxSeries 2: the third cgroup's $M calls are in ebpf-syscalls.other, gauge-folded-cgroups 1"

host_after=$(csv_last syscalls operations-fsync)
[ $((host_after - host_before)) -ge $((N + K + M)) ] ||
	fail "host-wide operations-fsync grew by $((host_after - host_before)), less than the $((N + K + M)) calls of the cgroups"
grep -q "^counter	calls	${PARENT}_a/fsync	$N\$" "$WORK/snap/snapshot" ||
	fail "the snapshot has no counter calls ${PARENT}_a/fsync $N: $(grep "$PARENT" "$WORK/snap/snapshot" | head -5)"
pass "host-wide operations-fsync goes on (+$((host_after - host_before))); the snapshot carries ${PARENT}_a/fsync"
stop_collectd
