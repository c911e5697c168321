# Shared by the integration tests of <Program> blocks and block IO (after lib.sh).

# install_objects DIR BUILT.bpf.o...: copies the build's objects (paths under $top_builddir)
# into DIR as the safe loader wants them: mode 0644 in a directory of mode 0755.
install_objects() {
	dir=$1; shift
	mkdir -p "$dir"
	chmod 755 "$dir"
	for o in "$@"; do
		cp "$top_builddir/$o" "$dir/" || fail "$o not built"
		chmod 644 "$dir/${o##*/}"
	done
}

# install_exporter_configs DIR NAME...: tests/exporter/NAME.bpf.o and NAME.yaml (an
# ebpf_exporter config and its object, ExporterConfig finds the object beside it) into DIR.
install_exporter_configs() {
	dir=$1; shift
	for n in "$@"; do
		install_objects "$dir" "tests/exporter/$n.bpf.o"
		cp "$top_srcdir/tests/exporter/$n.yaml" "$dir/" && chmod 644 "$dir/$n.yaml" || fail "cannot copy $n.yaml"
	done
}

# exporter_syscalls_program NAME: a <Program "NAME"> block of tests/exporter/exporter_syscalls.yaml
# (installed in $OBJ by install_exporter_configs) on the workload's process ($WORKLOAD), for
# the tests that read that config in collectd.
exporter_syscalls_program() {
	cat <<CONF
  <Program "$1">
    ExporterConfig "$OBJ/exporter_syscalls.yaml"
    Param "filter_tgid" $WORKLOAD
  </Program>
CONF
}

# shipped_program_config NAME PARAM VALUE: $WORK/collectd.conf (no snapshot) that includes
# contrib/programs/NAME.conf as shipped, but for its object, read from $OBJ, and a line
# Param "PARAM" VALUE after its Object line (the workload the test counts); written to
# $WORK/NAME.conf. The doc examples' tests run the shipped .conf so, as users drop it in.
shipped_program_config() {
	sed -e "s|/etc/collectd/ebpf.d|$OBJ|" -e "s|^\( *\)Object .*|&\n\1Param \"$2\" $3|" \
		"$top_srcdir/contrib/programs/$1.conf" > "$WORK/$1.conf"
	grep -qF "Param \"$2\" $3" "$WORK/$1.conf" || fail "the $2 Param was not added"
	write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
</Plugin>
Include "$WORK/$1.conf"
CONF
}

# close_in_cgroup DIR COMM COUNT: tests/support/close_n, as process COMM in the cgroup
# directory DIR, closing the marker fd COUNT times.
close_in_cgroup() {
	echo go | sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3:$4"' sh "$1" \
		"$top_builddir/tests/support/close_n" "$2" "$3" || fail "the workload in $1 failed"
}

# online_cpus: the ids of the online CPUs, one a line (/sys/devices/system/cpu/online: "0-3,6").
online_cpus() {
	tr ',' '\n' < /sys/devices/system/cpu/online | awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }'
}

# attach_loop MEGABYTES [DIR]: a loop device with direct IO over a new file in DIR (default
# /var/tmp), set as LOOP (/dev/loopN) and DISK (loopN); detached and removed when the test exits.
attach_loop() {
	command -v losetup >/dev/null 2>&1 || skip "losetup is missing (apt-get install mount)"
	BACKING=$(mktemp "${2:-/var/tmp}/ebpf-it-loop.XXXXXX")
	LOOP=
	trap cleanup_loop EXIT INT TERM
	truncate -s "$1M" "$BACKING"
	LOOP=$(losetup -f --show --direct-io=on "$BACKING") || skip "cannot attach a loop device"
	DISK=${LOOP#/dev/}
	# udev probes a new disk: let it finish before a test counts the disk's requests.
	command -v udevadm >/dev/null 2>&1 && udevadm settle 2>/dev/null || true
}
cleanup_loop() {
	detach_loop
	cleanup
}
detach_loop() {
	[ -z "$LOOP" ] || losetup -d "$LOOP" || true
	rm -f "$BACKING"
}

# start_gated_workload PROGRAM ARG...: tests/support/PROGRAM ARG... (write_n, close_n), which
# waits for a line on stdin before it does anything, started now so that its pid (WORKLOAD)
# can go into a config (Param "filter_tgid") before collectd attaches; `echo go >&7` lets it
# run, `wait "$WORKLOAD"` for its end. Its fd 3 is closed: write_n's /dev/null is then its
# fd 3 whatever the shell had open, the "unknown:3" label the exporter tests check.
start_gated_workload() {
	_program=$1; shift
	mkfifo "$WORK/go"
	"$top_builddir/tests/support/$_program" "$@" < "$WORK/go" 3>&- &
	WORKLOAD=$!
	exec 7> "$WORK/go" # keeps the fifo open: the workload blocks in fgets until the line
}

# start_sync_workload N: tests/support/sync_n, waiting on a fifo so that its pid (WORKLOAD)
# can go into a config (Param "filter_tgid") before it calls sync() N times on sync_workload_go.
start_sync_workload() { start_waiting_workload sync_n "$1"; }
sync_workload_go() { waiting_workload_go; }

# start_waiting_workload PROGRAM N: tests/support/PROGRAM N (sync_n, gai_n), which waits for
# a line on stdin, says "done" when it is; its pid in WORKLOAD; waiting_workload_go starts it.
start_waiting_workload() {
	mkfifo "$WORK/go"
	"$top_builddir/tests/support/$1" "$2" < "$WORK/go" > "$WORK/workload.out" &
	WORKLOAD=$!
	exec 7> "$WORK/go" # keeps the fifo open: the workload blocks in fgets until the line
}
waiting_workload_go() {
	echo go >&7
	i=0
	while ! grep -q done "$WORK/workload.out" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q done "$WORK/workload.out" || fail "the workload did not finish"
}

# sync_programs_config: the <Program> blocks of the article's sync counter and sync latency
# histogram (installed in $OBJ), filtered to the workload $WORKLOAD, each with its kprobe
# alternative first.
sync_programs_config() {
	cat <<CONF
  <Program "sync_count">
    Object "$OBJ/sync_count.bpf.o"
    Param "filter_tgid" $WORKLOAD
    <Probe "sync">
      Program "sync_kprobe" "sync_tp"
    </Probe>
    <Counter "sync_calls">
      Type "derive"
      TypeInstance "sync"
    </Counter>
  </Program>
  <Program "sync_latency">
    Object "$OBJ/sync_latency.bpf.o"
    Param "filter_tgid" $WORKLOAD
    <Probe "sync_enter">
      Program "sync_enter_kprobe" "sync_enter_tp"
    </Probe>
    <Probe "sync_exit">
      Program "sync_exit_kprobe" "sync_exit_tp"
    </Probe>
    <Histogram "sync_latency">
      Layout "value"
      SlotsField "slots"
      SumField "sum"
      Buckets "native"
      Multiplier 0.000000001
      Type "latency"
      TypeInstance "sync"
      Percentile 50 99
    </Histogram>
  </Program>
CONF
}
