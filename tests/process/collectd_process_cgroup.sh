#!/bin/sh
# The real collectd with process By "cgroup": two cgroups made by the test under a private
# parent in the cgroup2 mount. In each, a shell joins the cgroup, then runs /bin/true in a
# loop, NA times in a, NB in b. process counts a fork for the forking task's cgroup, an exec
# for the exec'ing task's and an exit for the exiting task's (doc/modules.md, *Per-cgroup
# attribution*), so each cgroup counts exactly what the shell does once inside it: one fork,
# one exec and one exit per /bin/true, and the shell's own exit (its fork and exec were
# before it joined); no thread exits.
#
# Then an OOM kill, counted for the victim's cgroup: oom_hog starts in a and its child
# allocates in a cgroup with a memory limit until the kernel kills it. Where the memory
# controller is cgroup v1's (this project's test machine) the limit is in the v1 hierarchy
# and the victim stays in a in cgroup2: a's oom_kills is 1. Where it is v2's, oom_hog's
# limited cgroup is a cgroup2 cgroup of its own at depth 1, which the Cgroup list selects
# too: that cgroup's oom_kills is 1. b's counts do not move.
#
# The host-wide series hold at least both cgroups' sums; nothing was folded or dropped.
. "$top_srcdir/tests/support/lib.sh"

test_cgroups ebpf-it-proccg a b

NA=60 NB=25
OOM_HOG="$top_builddir/tests/support/oom_hog"
write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Module "process">
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*" "/ebpf-test-oom-*"
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
for point in sched_process_fork sched_process_exec sched_process_exit; do
	wait_for_log "process: $point attached via" 5 || fail "process did not attach $point"
done

# run CGROUP COUNT: a shell that joins the cgroup, then runs /bin/true COUNT times.
run() {
	sh -c 'echo $$ > "$1/cgroup.procs" && i=0 && while [ $i -lt "$2" ]; do /bin/true; i=$((i + 1)); done' \
		sh "$CG_ROOT/$PARENT/$1" "$2" || fail "the workload in $1 failed"
}
run a $NA
run b $NB

# exact CGROUP RUNS [EXITS]: the cgroup's forks and execs are RUNS, its exits EXITS (RUNS + 1,
# its shell's, by default).
exact() {
	wait_exact "process.${PARENT}_$1" derive-forks "$2"
	wait_exact "process.${PARENT}_$1" derive-execs "$2"
	wait_exact "process.${PARENT}_$1" derive-exits "${3:-$(($2 + 1))}"
}
exact a $NA
exact b $NB
# One more read: anything else of theirs would have been sent by now.
wait_for_new_line "process.${PARENT}_a" derive-forks
for n in a b; do
	f=$(csv_file "process.${PARENT}_$n" derive-thread_exits)
	[ -z "$f" ] || csv_is "process.${PARENT}_$n" derive-thread_exits 0 ||
		fail "ebpf-process.${PARENT}_$n/derive-thread_exits is '$(csv_last "process.${PARENT}_$n" derive-thread_exits)': its processes had no threads"
done
exact a $NA
exact b $NB
pass "per cgroup: a $NA forks, $NA execs, $((NA + 1)) exits; b $NB, $NB, $((NB + 1)); no thread exits"

for v in forks execs; do
	host=$(csv_last process derive-$v)
	[ "${host:-0}" -ge $((NA + NB)) ] || fail "host-wide derive-$v is '$host', less than the cgroups' $((NA + NB))"
done
host=$(csv_last process derive-exits)
[ "${host:-0}" -ge $((NA + NB + 2)) ] || fail "host-wide derive-exits is '$host', less than the cgroups' $((NA + NB + 2))"
pass "host-wide forks $(csv_last process derive-forks), execs $(csv_last process derive-execs), exits $host: at least the cgroups' sums"

# --- the OOM kill, for the victim's cgroup ----------------------------------------------------
# oom_hog prints the cgroup2 cgroup of its victim ("cgroup2 <path>"), keeps its limited cgroup
# 3 s (so that collectd reads the kill while a v2 one still exists), and exits 77 when no
# memory controller lets it make one.
# Without LeakSanitizer's check at its exit (in the sanitized build): the check stops the
# process's threads from a task it clones (CLONE_VM, not a thread: a process of its own), whose
# exit a would count beside oom_hog's (seen: a's exits 64, not 63).
set +e
out=$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" ebpf_oom_hog 1 3' sh "$CG_ROOT/$PARENT/a" "$OOM_HOG")
rc=$?
set -e
if [ $rc = 77 ]; then
	echo "SKIP (OOM part only): no cgroup memory controller, v1 or v2, lets oom_hog limit a cgroup here: $out"
else
	[ $rc = 0 ] || fail "oom_hog failed (exit $rc): $out"
	victim=$(echo "$out" | sed -n 's/^victim //p')
	path=$(echo "$out" | sed -n 's/^cgroup2 //p')
	# Its cgroup at depth 2, as sent: the leading / dropped, the others written _.
	vcg=$(echo "$path" | cut -d/ -f2-3 | tr / _)
	# a's counts grow by oom_hog's: its exec, its fork of the hog, its exit, and the hog's
	# where the hog died in a.
	case "$path" in
	"/$PARENT/a") where="a (the memory limit is cgroup v1's)" oom_exits=2 ;;
	/ebpf-test-oom-*) where="oom_hog's own cgroup2 cgroup (the memory limit is cgroup v2's)" oom_exits=1 ;;
	*) fail "oom_hog's victim is in the cgroup2 cgroup '$path', neither a nor oom_hog's own: $out" ;;
	esac
	wait_exact "process.$vcg" derive-oom_kills 1
	host=$(csv_last process derive-oom_kills)
	[ "${host:-0}" -ge 1 ] || fail "host-wide derive-oom_kills is '$host' after an OOM kill"
	# The log line names the victim's cgroup (its cgroup2 path, whole), as the notification does.
	wait_for_log "process: OOM kill: victim pid $victim (ebpf_oom_hog) in cgroup $path" 10 ||
		fail "collectd's log has no OOM kill of pid $victim in cgroup $path: $(grep "victim pid $victim" "$WORK/collectd.log")"
	exact a $((NA + 1)) $((NA + 1 + oom_exits))
	exact b $NB
	pass "OOM kill of pid $victim counted for the victim's cgroup, $where: ebpf-process.$vcg/derive-oom_kills 1 (host-wide $host); a grew by oom_hog's fork, exec and $oom_exits exits, b unchanged"
fi

[ "$(csv_last process derive-dropped-cgroup_full)" = 0 ] || fail "process dropped tasks' cgroups"
[ ! -e "$WORK/csv/itest/ebpf-process.other" ] || fail "a cgroup was folded into other"
pass "nothing folded or dropped"
stop_collectd
