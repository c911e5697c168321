#!/bin/sh
# <Program> blocks in the real collectd: the article's sync programs (contrib/programs,
# compiled by the build with collectd-ebpf-cc), filtered to one workload process through a
# Param, count exactly N sync() calls and N latency samples; the kprobe alternative of each
# <Probe> fails on this kernel and the tracepoint takes over, as the attach self-metric shows;
# an object that is group-writable is refused with one error while the other programs run.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

N=25
OBJ="$WORK/objects"
install_objects "$OBJ" contrib/programs/sync_count.bpf.o contrib/programs/sync_latency.bpf.o
cp "$OBJ/sync_count.bpf.o" "$OBJ/unsafe.bpf.o"
chmod 664 "$OBJ/unsafe.bpf.o"

start_sync_workload $N

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
$(sync_programs_config)
  <Program "unsafe">
    Object "$OBJ/unsafe.bpf.o"
    <Counter "sync_calls">
    </Counter>
  </Program>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
wait_for_log 'module "unsafe" is off: BPF object ".*unsafe.bpf.o" is writable by its group (mode 0664)' 5 ||
	fail "the group-writable object was not refused with its reason"
[ "$(grep -c 'ebpf plugin: module "unsafe" is off' "$WORK/collectd.log")" = 1 ] || fail "the refusal was not logged exactly once"
pass "a group-writable object is refused, once, with the fix"
wait_for_log 'sync_count: sync attached via tracepoint' 5 || fail "sync_count did not attach via the tracepoint"
wait_for_log 'sync_latency: sync_enter attached via tracepoint' 5 || fail "sync_latency did not attach"
pass "both programs attached through the tracepoint alternative"

wait_for_csv sync_latency "gauge-attach-sync_exit-tracepoint" 10 || fail "no attach self-metric for sync_latency"
[ "$(csv_last sync_latency gauge-attach-sync_exit-tracepoint)" = 1.000000 ] ||
	[ "$(csv_last sync_latency gauge-attach-sync_exit-tracepoint)" = 1 ] ||
	fail "attach self-metric: $(csv_last sync_latency gauge-attach-sync_exit-tracepoint), expected 1 (the kprobe failed first)"
pass "the attach self-metric shows one failed alternative before the tracepoint"

sync_workload_go
wait_until 5 csv_is sync_count derive-sync "$N" || fail "sync_count: derive-sync is $(csv_last sync_count derive-sync), expected $N"
pass "sync_count counted exactly $N sync() calls of the workload"
wait_until 5 csv_is sync_latency derive-sync-count "$N" ||
	fail "sync_latency: derive-sync-count is $(csv_last sync_latency derive-sync-count), expected $N"
[ -n "$(csv_file sync_latency latency-sync-50)" ] && [ -n "$(csv_file sync_latency latency-sync-99)" ] &&
	[ -n "$(csv_file sync_latency latency-sync-average)" ] || fail "sync_latency: no percentile or mean series"
mean=$(tail -n +2 "$(csv_file sync_latency latency-sync-average)" | cut -d, -f2 | awk '$1 > 0 { v = $1 } END { print v + 0 }')
[ "$(awk -v m="$mean" 'BEGIN { print (m > 0 && m < 60) }')" = 1 ] || fail "sync_latency: mean $mean s is not a sync duration"
pass "sync_latency: $N samples, percentiles and a mean of $mean s"
