#!/bin/sh
# Per-cgroup rows over SNMP, with the real daemons (snmpd as AgentX master, collectd -f with
# syscalls By "cgroup", ebpf-subagent as nobody): two cgroups made by the test under a private
# parent in the cgroup2 mount do N and K fsync calls. ebpfCounterTable serves them as the rows
# whose instance is the cgroup as collectd names it (path below the cgroup2 root, '/' -> '_')
# before a '/' and the syscall: calls of <parent>_a/fsync is N exactly, of <parent>_b/fsync K,
# by snmpget and in a snmpwalk of the module's calls; ebpfHistTable counts the same calls. A
# third cgroup whose instance is longer than the MIB's 48 bytes is in collectd's snapshot but
# not served, and the subagent logs it by name (doc/snmp.md).
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/snmp_lib.sh"

CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$CG_ROOT" ] || skip "no cgroup2 mount (By \"cgroup\" names cgroup2 cgroups)"
PARENT=ebpf-it-snmpcg-$$
LONG=name-longer-than-the-mib-index
CGROUPS="a b $LONG"
mkdir "$CG_ROOT/$PARENT" || skip "cannot make a cgroup under $CG_ROOT"
for c in $CGROUPS; do mkdir "$CG_ROOT/$PARENT/$c" || fail "cannot make the cgroup $PARENT/$c"; done
snmp_cg_cleanup() {
	snmp_stop_daemons || true
	for c in $CGROUPS; do rmdir "$CG_ROOT/$PARENT/$c" 2>/dev/null || true; done
	rmdir "$CG_ROOT/$PARENT" 2>/dev/null || true
	cleanup
}
trap snmp_cg_cleanup EXIT INT TERM

N=140 K=65 M=20
LONG_INSTANCE="${PARENT}_$LONG/fsync"
[ ${#LONG_INSTANCE} -gt 48 ] || fail "the long instance $LONG_INSTANCE is only ${#LONG_INSTANCE} bytes"
mkdir -m 0755 "$WORK/snap"
write_fsync_config "$WORK/collectd.conf" "$SNAP" nogroup 'By "cgroup"' 'CgroupDepth 2' "Cgroup \"/$PARENT/*\"" < /dev/null
write_snmpd_conf < /dev/null
start_snmpd
start_collectd "$WORK/collectd.conf"

# run CGROUP COUNT: fsync_n COUNT times from inside the cgroup.
run() { sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$CG_ROOT/$PARENT/$1" "$FSYNC_N" "$2" || sfail "the workload in $1 failed"; }
run a $N
run b $K
start_subagent
wait_until $((PING + 5)) status_is 1 || sfail "snapshot status not ok(1) over SNMP"
# The long cgroup appears while the subagent serves: it names the new series it leaves out.
run "$LONG" $M
snap_has_long() { grep -q "^counter	calls	$LONG_INSTANCE	$M\$" "$SNAP"; }
wait_until 15 snap_has_long ||
	sfail "the snapshot has no counter calls $LONG_INSTANCE $M: $(grep "$PARENT" "$SNAP" 2>&1 | head -5)"

CALLS="$BASE.1.3.1.3.$(str_oid syscalls).$(str_oid calls)"
HISTCOUNT="$BASE.1.4.1.4.$(str_oid syscalls).$(str_oid latency)"
oid_a="$CALLS.$(str_oid "${PARENT}_a/fsync" implied)"
oid_b="$CALLS.$(str_oid "${PARENT}_b/fsync" implied)"
value_is() { [ "$(value "$1")" = "$2" ]; }
wait_until 15 value_is "$oid_a" $N || sfail "calls of ${PARENT}_a/fsync is '$(value "$oid_a")' at $oid_a, not $N"
wait_until 15 value_is "$oid_b" $K || sfail "calls of ${PARENT}_b/fsync is '$(value "$oid_b")' at $oid_b, not $K"
pass "snmpget ebpfCounterValue: ${PARENT}_a/fsync $N, ${PARENT}_b/fsync $K"

# The walk of the module's calls: the same two fsync rows of this test's cgroups, those values.
walk=$(v2walk "$CALLS" 2>&1) || sfail "snmpwalk of $CALLS: $walk"
# Each of the cgroups has a row per syscall it called; those of fsync are two.
ours=$(echo "$walk" | grep -F "$CALLS.$(str_oid "${PARENT}_" implied)." | grep -F ".$(str_oid /fsync implied) = " || true)
[ "$(echo "$ours" | grep -c .)" = 2 ] || sfail "the walk of calls has not exactly two fsync rows of ${PARENT}: $ours"
echo "$ours" | grep -qxF "$oid_a = Counter64: $N" || sfail "the walk has no $oid_a = $N: $ours"
echo "$ours" | grep -qxF "$oid_b = Counter64: $K" || sfail "the walk has no $oid_b = $K: $ours"
for c in a b; do
	h=$(value "$HISTCOUNT.$(str_oid "${PARENT}_$c/fsync" implied)")
	want=$N; [ $c = a ] || want=$K
	[ "$h" = $want ] || sfail "ebpfHistCount of ${PARENT}_$c/fsync is '$h', not $want"
done
pass "snmpwalk: exactly the rows ${PARENT}_a/fsync = $N and ${PARENT}_b/fsync = $K; ebpfHistCount the same"

# The long one: collectd has it (above), the MIB cannot index it, the subagent says so by name
# (the first five series left out: the cgroup's other syscalls may come before its fsync).
out=$(v2 "$CALLS.$(str_oid "$LONG_INSTANCE" implied)" 2>&1) || true
echo "$out" | grep -q "No Such" || sfail "the ${#LONG_INSTANCE}-byte instance $LONG_INSTANCE answered: $out"
! echo "$walk" | grep -qF "$(str_oid "${PARENT}_$LONG" implied)" || sfail "the walk has a row of $LONG_INSTANCE"
wait_for_log "series left out (names longer than the MIB's index sizes.*syscalls/[a-z]*/${PARENT}_$LONG/" 5 "$WORK/subagent.log" ||
	sfail "the subagent did not log the left-out $LONG_INSTANCE"
pass "the ${#LONG_INSTANCE}-byte instance $LONG_INSTANCE is not served; logged: $(grep -m1 -o 'series left out.*' "$WORK/subagent.log" | cut -c1-160)"
stop_collectd
