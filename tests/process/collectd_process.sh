#!/bin/sh
# The real collectd daemon with the process module: N execs of /bin/true show in the csv
# files as exec and exit counts that grow by at least N, and an OOM kill in a
# memory-limited cgroup is counted and logged by collectd with the victim's pid and name.
# Every point sends derive-untraced-<point> (its witness).
. "$top_srcdir/tests/support/lib.sh"

N=300
OOM_HOG="$top_builddir/tests/support/oom_hog"

write_config "$WORK/collectd.conf" <<'CONF'
<Plugin ebpf>
  <Module "process">
  </Module>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
for point in sched_process_fork sched_process_exec sched_process_exit mark_victim; do
	grep -q "process: $point attached via tp_btf" "$WORK/collectd.log" || fail "$point: attach method not logged"
done
pass "all four probe points attached via tp_btf"

/bin/true
wait_for_csv process derive-execs 10 || fail "no derive-execs value from collectd"
wait_for_new_line process derive-execs
before=$(csv_last process derive-execs)
exits_before=$(csv_last process derive-exits)
i=0
while [ $i -lt $N ]; do /bin/true; i=$((i + 1)); done
wait_for_new_line process derive-execs
wait_for_new_line process derive-execs
after=$(csv_last process derive-execs)
exits_after=$(csv_last process derive-exits)
grown=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%d", a - b }')
exits_grown=$(awk -v a="$exits_after" -v b="$exits_before" 'BEGIN { printf "%d", a - b }')
echo "execs: $before -> $after (+$grown), exits +$exits_grown, workload $N"
[ "$grown" -ge $N ] || fail "exec count grew by $grown, expected at least $N"
[ "$exits_grown" -ge $N ] || fail "exit count grew by $exits_grown, expected at least $N"
# No upper bound here: the rest of the machine (and tests running in parallel) exec too;
# tests/process/test_process asserts exact counts with the process-tree filter.
pass "exec and exit counts grew by at least N"
[ -n "$(csv_file process derive-forks)" ] || fail "no derive-forks value"
# Each point's witness (tp_btf): what the kernel did not hand to the programs, always sent.
for point in sched_process_fork sched_process_exec sched_process_exit mark_victim; do
	[ -n "$(csv_file process "derive-untraced-$point")" ] || fail "no derive-untraced-$point value"
done
pass "untraced per point sent (execs untraced: $(csv_last process derive-untraced-sched_process_exec))"
[ "$(csv_last process derive-dropped-oom_events)" = 0 ] || fail "OOM events were dropped"

set +e
out=$("$OOM_HOG")
rc=$?
set -e
[ $rc = 77 ] && skip "OOM part: the kernel gives this test no cgroup memory controller to make an OOM kill in"
[ $rc = 0 ] || fail "oom_hog failed (exit $rc): $out"
victim=$(echo "$out" | sed -n 's/^victim //p')
wait_for_log "process: OOM kill: victim pid $victim (ebpf_oom_hog)" 10 ||
	fail "the OOM kill of pid $victim is not in collectd's log"
pass "OOM kill logged: $(grep -o "OOM kill: victim pid $victim ([^)]*)" "$WORK/collectd.log")"

# A process name is anyone's to choose (prctl(PR_SET_NAME)): one with a newline must not
# forge a line in collectd's log (the kernel keeps 15 bytes of a name: all of this one).
forged=$(printf 'x\nERROR: forged')
out=$("$OOM_HOG" "$forged") || fail "oom_hog with a hostile name failed: $out"
victim=$(echo "$out" | sed -n 's/^victim //p')
wait_for_log "OOM kill: victim pid $victim (x" 10 || fail "the OOM kill of pid $victim is not in collectd's log"
if grep -q '^ERROR: forge' "$WORK/collectd.log"; then
	grep -A1 "victim pid $victim" "$WORK/collectd.log" >&2
	fail "a process name forged a line in collectd's log"
fi
grep -qF "OOM kill: victim pid $victim (x\nERROR: forged)" "$WORK/collectd.log" ||
	fail "the hostile name is not logged escaped"
pass "hostile name logged on one line: $(grep -o "OOM kill: victim pid $victim ([^)]*)" "$WORK/collectd.log")"
wait_for_csv process derive-oom_kills 5 || fail "no derive-oom_kills value"
kills=$(csv_last process derive-oom_kills)
[ "$kills" -ge 1 ] || fail "oom_kills is $kills"
pass "OOM kill counted (derive-oom_kills $kills)"
stop_collectd
