#!/bin/sh
# The real collectd daemon with the syscalls module: N fsync() calls show up as an fsync
# count that grows by N, an fsync latency distribution, percentiles and bucket rates in
# csv and rrdtool files; a second module that cannot attach stays off while syscalls runs;
# a collectd restart shows as a gap in the RRD, never as a spike; with Witness true the
# latency point sends derive-untraced-sys_enter+sys_exit.
. "$top_srcdir/tests/support/lib.sh"

N=500
FSYNC_N="$top_builddir/tests/support/fsync_n"
RRDTOOL=${RRDTOOL:-$(command -v rrdtool || true)}

write_config "$WORK/collectd.conf" <<'CONF'
<Plugin ebpf>
  <Module "syscalls">
    Latency "fsync" "fdatasync"
    Percentile 50
    Percentile 99
    Bucket 0 0.001
    Bucket 0.001 0
    Witness true
  </Module>
  # Restricted to a method this module does not have: it must stay off, alone.
  <Module "syscalls" "broken">
    AttachOrder "fentry"
  </Module>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
wait_for_log 'module "syscalls-broken" is off: no attach method works' 5 ||
	fail "the unattachable module did not report itself off"
pass "a module that cannot attach is reported off"
# Task storage where the kernel lets tracing programs use it (5.11+); where it refuses (5.10),
# the tid hash, logged as a fallback together with the refusal.
latency_method=tp_btf+task_storage fallbacks=0
if grep -q 'sys_enter+sys_exit via tp_btf+task_storage: load failed' "$WORK/collectd.log"; then
	latency_method=tp_btf+tid_hash fallbacks=1
	grep -q 'syscalls: sys_enter+sys_exit attached via tp_btf+tid_hash, a fallback (tp_btf+task_storage load failed' \
		"$WORK/collectd.log" || fail "task storage refused, but the tid-hash fallback was not logged"
	pass "attach method logged: tp_btf+tid_hash, as a fallback from task storage"
else
	grep -q 'syscalls: sys_enter+sys_exit attached via tp_btf+task_storage' "$WORK/collectd.log" ||
		fail "attach method not logged"
	pass "attach method logged"
fi

# The first read writes fsync's count once anything on the machine has called fsync; our own
# workload of 1 call makes sure it exists before the measured run.
"$FSYNC_N" 1
wait_for_csv syscalls operations-fsync 10 || fail "no operations-fsync value from collectd"
wait_for_new_line syscalls operations-fsync
before=$(csv_last syscalls operations-fsync)
"$FSYNC_N" $N
wait_for_new_line syscalls operations-fsync
wait_for_new_line syscalls operations-fsync
after=$(csv_last syscalls operations-fsync)
grown=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%d", a - b }')
echo "fsync count: $before -> $after (+$grown, workload $N)"
[ "$grown" -ge $N ] || fail "fsync count grew by $grown, expected at least $N"
# No upper bound: other processes (and other tests running in parallel) call fsync too;
# tests/syscalls/test_syscalls asserts exact counts with a pid filter.
pass "fsync count grew by at least N"
# Witness true: the latency point's witnesses send what the kernel did not hand to it.
untraced=$(csv_last syscalls "derive-untraced-sys_enter+sys_exit")
case "$untraced" in
'' | *[!0-9.]*) fail "no derive-untraced-sys_enter+sys_exit value with Witness true (got '$untraced')" ;;
esac
pass "Witness true: derive-untraced-sys_enter+sys_exit sent ($untraced)"

for ti in fsync-50 fsync-99 fsync-average; do
	v=$(csv_last syscalls latency-$ti)
	[ -n "$v" ] || fail "no latency-$ti value"
	awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 10) }' || fail "latency-$ti = $v s is not a plausible fsync time"
done
p50=$(csv_last syscalls latency-fsync-50); p99=$(csv_last syscalls latency-fsync-99)
awk -v a="$p50" -v b="$p99" 'BEGIN { exit !(a <= b) }' || fail "p50 $p50 > p99 $p99"
pass "fsync latency percentiles and mean in seconds (p50 $p50 s, p99 $p99 s)"

[ -n "$(csv_file syscalls bucket-fsync-0_0.001)" ] || fail "no bucket-fsync-0_0.001 file"
[ -n "$(csv_file syscalls bucket-fsync-0.001_inf)" ] || fail "no bucket-fsync-0.001_inf file"
# Each rate is events per second over the real time since the previous read, which is the
# difference of the csv timestamps (a loaded or emulated machine stretches it beyond the 1 s
# Interval): rate x that time, summed, counts every fsync. The file's first line (the single
# warm-up call) has no previous timestamp and counts its rate over 1 s.
rate_sum=$(for f in $(csv_file syscalls bucket-fsync-0_0.001) $(csv_file syscalls bucket-fsync-0.001_inf); do
	tail -n +2 "$f" | awk -F, 'NR == 1 { s += $2 } NR > 1 { s += $2 * ($1 - t) } { t = $1 } END { printf "%.3f\n", s }'
	done | awk '{ s += $1 } END { printf "%d", s + 0.5 }')
[ "$rate_sum" -ge $N ] || fail "bucket rates add up to $rate_sum events, expected at least $N"
pass "bucket rates account for all $N calls ($rate_sum)"

[ -z "$(csv_file syscalls latency-getpid-50)" ] || fail "latency dispatched for a syscall without Latency"
[ -z "$(csv_file syscalls operations-kexec_load)" ] || fail "a syscall nobody called was dispatched"
pass "only series with data are dispatched"

[ -n "$(csv_file syscalls derive-dropped-start_lost)" ] || fail "self-metric dropped-start_lost missing"
v=$(csv_last syscalls "gauge-attach-sys_enter+sys_exit-$latency_method")
[ -n "$v" ] && awk -v v="$v" -v f="$fallbacks" 'BEGIN { exit !(v == f) }' ||
	fail "attach method value gauge-attach-sys_enter+sys_exit-$latency_method missing or not $fallbacks fallbacks ($v)"
pass "attach method available as a value (gauge-attach-sys_enter+sys_exit-tp_btf+task_storage = 0)"
[ "$(csv_last syscalls derive-dropped-start_lost)" = 0 ] || fail "start times were lost"

# --- rrdtool: the RRD is DERIVE with min 0, and a restart is a gap, not a spike ------------
if [ -z "$RRDTOOL" ]; then
	echo "rrdtool not installed: RRD checks left out" >&2
	stop_collectd
	exit 0
fi
RRD="$WORK/rrd/itest/ebpf-syscalls/operations-fsync.rrd"
[ -f "$RRD" ] || fail "no RRD file $RRD"
"$RRDTOOL" info "$RRD" | grep -q 'ds\[value\].type = "DERIVE"' || fail "RRD is not DERIVE"
"$RRDTOOL" info "$RRD" | grep -q 'ds\[value\].min = 0' || fail "RRD has no min 0"
[ -f "$WORK/rrd/itest/ebpf-syscalls/latency-fsync-99.rrd" ] || fail "no latency RRD"
pass "RRD files written, DERIVE min 0"

# Let the counter grow large, then restart collectd: the new maps start from 0.
"$FSYNC_N" 2000
sleep 3
stop_collectd
start_collectd "$WORK/collectd.conf"
"$FSYNC_N" 1
sleep 4
"$RRDTOOL" flushcached "$RRD" 2>/dev/null || true
max=$("$RRDTOOL" fetch "$RRD" AVERAGE -s -60 | awk -F: 'NR > 2 && $2 !~ /nan/ { v = $2 + 0; if (v > m) m = v } END { printf "%.0f", m }')
echo "largest fsync rate in the RRD across the restart: $max/s"
awk -v m="$max" 'BEGIN { exit !(m < 100000) }' || fail "restart produced a spike of $max fsync/s"
pass "collectd restart shows as a gap, not a spike"
stop_collectd
