# Shared by tests/soak/soak.sh and collectd_read_threads.sh; sourced after lib.sh: collectd
# with every module, a loop device of its own ($LOOP, $DISK), and a workload of known totals.
FSYNC_N="$top_builddir/tests/support/fsync_n"
BACKING="$WORK/loop.img"

every_module_cleanup() {
	[ -n "$COLLECTD_PID" ] && kill "$COLLECTD_PID" 2>/dev/null && wait "$COLLECTD_PID" 2>/dev/null
	COLLECTD_PID=
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP" && LOOP= # the trap may run twice: TERM, then EXIT
	cleanup
}
trap every_module_cleanup EXIT INT TERM
truncate -s 64M "$BACKING"
LOOP=$(losetup -f --show --direct-io=on "$BACKING") || fail "cannot attach a loop device"
DISK=${LOOP#/dev/}

# every_module_config FILE [LINES]: collectd's configuration, stdin (global options) before
# the ebpf block, which enables every module, publishes the snapshot and ends with LINES
# (more options or <Program> blocks).
every_module_config() {
	write_config "$1" <<CONF
$(cat)
<Plugin ebpf>
  SnapshotFile "$WORK/snap/snapshot"
${2:-}
  <Module "syscalls">
    Latency "fsync"
  </Module>
  <Module "block">
    Disk "$DISK"
  </Module>
  <Module "runqueue">
  </Module>
  <Module "tcp">
  </Module>
  <Module "process">
  </Module>
  <Module "vfs">
  </Module>
  <Module "fs">
  </Module>
  <Module "dcache">
  </Module>
  <Module "pagecache">
  </Module>
</Plugin>
CONF
}

# start_read_threads_collectd: collectd on $WORK/collectd.conf (written with ReadThreads 5),
# until it reports its modules; sets $running ("N of M modules running") and fails unless
# collectd runs 5 reader threads.
start_read_threads_collectd() {
	start_collectd "$WORK/collectd.conf"
	wait_for_log 'modules running' 10 || fail "collectd did not report its modules"
	running=$(grep -o '[0-9]* of [0-9]* modules running' "$WORK/collectd.log" | tail -n 1)
	readers=$(cat /proc/$COLLECTD_PID/task/*/comm | grep -c '^reader#' || true)
	[ "$readers" = 5 ] || fail "collectd runs $readers reader threads, expected 5 (ReadThreads 5)"
}

# workload F E C W R: F fsync() calls, E execs of /bin/true, C connects to a closed port on
# 127.0.0.1 (by bash, one connect() each; run under the command $CONNECT_IN when set, e.g. in
# a network namespace of their own), W O_DIRECT writes of 64 KiB and R reads of 16 KiB on the
# loop device.
workload() {
	"$FSYNC_N" "$1" || fail "fsync_n failed"
	i=0; while [ $i -lt "$2" ]; do /bin/true; i=$((i + 1)); done
	${CONNECT_IN:-} bash -c "for i in \$(seq $3); do (: </dev/tcp/127.0.0.1/9) 2>/dev/null; done; true" ||
		fail "the connects' shell failed" # each connect is refused, as meant
	dd if=/dev/zero of="$LOOP" bs=64k count="$4" oflag=direct status=none || fail "dd write failed"
	dd if="$LOOP" of=/dev/null bs=16k count="$5" iflag=direct status=none || fail "dd read failed"
}

# counters: the newest value of each counted series, one line.
counters() {
	echo "$(csv_last syscalls operations-fsync) $(csv_last process derive-execs) $(csv_last tcp derive-connect_failures)" \
		"$(csv_last block operations-$DISK-write) $(csv_last block operations-$DISK-read)" \
		"$(csv_last block derive-untraced-$DISK-write) $(csv_last block derive-untraced-$DISK-read)"
}

delta() { awk -v a="$2" -v b="$1" 'BEGIN { printf "%d", a - b }'; }
# atleast NAME BEFORE AFTER WANT: a system-wide count, at least the workload's.
atleast() {
	d=$(delta "$2" "$3")
	[ "$d" -ge "$4" ] || fail "$1: grew by $d, expected at least $4"
	echo "${REPORT_PREFIX:-}$1 +$d (workload $4, $((d - $4)) from the rest of the machine)"
}
# exact NAME BEFORE AFTER UNTRACED_BEFORE UNTRACED_AFTER WANT: the loop device's count,
# exactly the workload's once the IO the kernel did not hand to the programs is added
# (doc/modules.md, Known limits: derive-untraced, from /proc/diskstats, shows every such loss).
exact() {
	d=$(delta "$2" "$3"); u=$(delta "$4" "$5")
	[ $((d + u)) = "$6" ] || fail "$1: counted $d and $u untraced, expected $6 in all"
	echo "${REPORT_PREFIX:-}$1 +$d, untraced +$u (workload $6)"
}

# check_totals BASE END ROUNDS F E C W R: every count of `counters` grew by the workload's
# (lines printed with $REPORT_PREFIX).
check_totals() {
	set -- $1 "$2" "$3" "$4" "$5" "$6" "$7" "$8"
	b1=$1 b2=$2 b3=$3 b4=$4 b5=$5 b6=$6 b7=$7 end=$8 r=$9
	shift 9
	F=$1 E=$2 C=$3 W=$4 R=$5
	set -- $end
	atleast fsync "$b1" "$1" $((F * r))
	atleast execs "$b2" "$2" $((E * r))
	atleast connect_failures "$b3" "$3" $((C * r))
	exact "$DISK-write" "$b4" "$4" "$b6" "$6" $((W * r))
	exact "$DISK-read" "$b5" "$5" "$b7" "$7" $((R * r))
}
