#!/bin/sh
# Self-metrics end to end with the real daemons (doc/modules.md, Self-metrics): collectd with
# CollectCost true and the syscalls module on its tid-hash candidate writes the map fill,
# the programs' run counts and run times, the module's CPU time, the attach methods and
# the recursion misses; snmpd + ebpf-subagent serve the same values (gauge table, counter
# table); and collectd without CollectCost writes no cost value at all.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"

# The syscalls module's programs on the classic tracepoint with the tid hash (start_tid).
PROG=lat_exit_tp_hash
config() { # $1: CollectCost value
	write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$SNAP"
  SnapshotGroup "nogroup"
  CollectCost $1
  <Module "syscalls">
    AttachOrder "tracepoint"
    Latency "fsync"
  </Module>
</Plugin>
CONF
}

# --- CollectCost true: collectd -----------------------------------------------------------------
config true
start_collectd "$WORK/collectd.conf"
wait_for_log "CollectCost: each module sends its programs' run count and time" 5 ||
	fail "CollectCost true was not logged"
"$FSYNC_N" 10
for v in percent-map_fill-start_tid invocations-$PROG derive-run_time-$PROG total_time_in_ms \
	derive-dropped-recursion gauge-attach-sys_enter+sys_exit-tracepoint+tid_hash; do
	wait_for_csv syscalls $v 10 || fail "collectd wrote no $v"
done
fill=$(csv_last syscalls percent-map_fill-start_tid)
awk -v f="$fill" 'BEGIN { exit !(f >= 0 && f <= 100) }' || fail "map fill $fill is no percentage"
pass "collectd writes the map fill of start_tid ($fill %), the attach method and dropped-recursion"
# bytes-kernel_memory: what the kernel charges for the module's maps. collectd runs only
# this module, so its maps are the map fds collectd holds; bpftool asks the kernel for each
# by id. Map sizes never change once created, so any read's value must equal the sum.
wait_for_csv syscalls bytes-kernel_memory 10 || fail "collectd wrote no bytes-kernel_memory"
ids=$(grep -h '^map_id:' /proc/$COLLECTD_PID/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un)
[ -n "$ids" ] || fail "collectd (pid $COLLECTD_PID) holds no BPF map"
bpftool_bytes=0 nmaps=0
for id in $ids; do
	b=$(bpftool map show id "$id" | sed -n 's/.*memlock \([0-9]*\)B.*/\1/p')
	[ -n "$b" ] || fail "bpftool map show id $id printed no memlock: $(bpftool map show id "$id" 2>&1)"
	bpftool_bytes=$((bpftool_bytes + b)); nmaps=$((nmaps + 1))
done
km=$(csv_last syscalls bytes-kernel_memory)
awk -v a="$km" -v b="$bpftool_bytes" 'BEGIN { exit !(a == b) }' ||
	fail "bytes-kernel_memory $km, but bpftool's memlock of collectd's $nmaps maps adds up to $bpftool_bytes"
pass "bytes-kernel_memory $km = bpftool's memlock of the module's $nmaps maps"
# The csv plugin stores DERIVE values as they are (cumulative): a probe that fires between
# two reads has more runs and more run time in the second.
runs1=$(csv_last syscalls invocations-$PROG); ns1=$(csv_last syscalls derive-run_time-$PROG)
"$FSYNC_N" 10
wait_for_new_line syscalls invocations-$PROG
wait_for_new_line syscalls derive-run_time-$PROG
runs2=$(csv_last syscalls invocations-$PROG); ns2=$(csv_last syscalls derive-run_time-$PROG)
awk -v a="$runs1" -v b="$runs2" -v c="$ns1" -v d="$ns2" 'BEGIN { exit !(b > a && d > c) }' ||
	fail "$PROG: runs $runs1 -> $runs2, run time $ns1 -> $ns2 ns: a probe that fires costs more than 0"
pass "CollectCost: $PROG runs $runs1 -> $runs2, run time $ns1 -> $ns2 ns; total_time_in_ms $(csv_last syscalls total_time_in_ms)"

# --- the same through SNMP ------------------------------------------------------------------------
start_snmp
m=$(str_oid syscalls)
fill_oid=$BASE.1.6.1.3.$m.$(str_oid map_fill).$(str_oid start_tid implied)
text_oid=$BASE.1.6.1.4.$m.$(str_oid map_fill).$(str_oid start_tid implied)
runs_oid=$BASE.1.3.1.3.$m.$(str_oid runs).$(str_oid $PROG implied)
cpu_oid=$BASE.1.3.1.3.$m.$(str_oid cpu_time_ms) # the empty instance adds no arc
miss_oid=$BASE.1.3.1.3.$m.$(str_oid dropped).$(str_oid recursion implied)
has() { [ -n "$(value "$1")" ] && ! value "$1" | grep -q "No Such"; }
wait_until 15 has "$fill_oid" || sfail "no ebpfGaugeValue for syscalls map_fill start_tid ($fill_oid): $(value "$fill_oid")"
for o in "$text_oid" "$runs_oid" "$cpu_oid" "$miss_oid"; do
	has "$o" || sfail "$o not served: $(value "$o")"
done
snmpwalk -v2c -c public -On -t 2 -r 1 "$AGENT" $BASE.1.6 > "$WORK/gauges.walk" 2>&1 ||
	sfail "walking the gauge table failed: $(cat "$WORK/gauges.walk")"
grep -q "^$fill_oid = Gauge32: " "$WORK/gauges.walk" || sfail "the walk of ebpfGaugeTable has no map fill row:
$(cat "$WORK/gauges.walk")"
grep -q "^$BASE\.1\.6\.1\.3\.$m\.$(str_oid attach)\." "$WORK/gauges.walk" || sfail "the walk has no attach rows"
r1=$(value "$runs_oid"); sleep 2.5; r2=$(value "$runs_oid")
[ "$r2" -gt "$r1" ] || sfail "runs of $PROG over SNMP did not grow: $r1 -> $r2"
km_oid=$BASE.1.6.1.3.$m.$(str_oid kernel_memory) # the empty instance adds no arc
[ "$(value "$km_oid")" = "$bpftool_bytes" ] || sfail "ebpfGaugeValue of kernel_memory is $(value "$km_oid"), bpftool says $bpftool_bytes"
pass "SNMP: kernel_memory $(value "$km_oid") bytes, as bpftool says"
pass "SNMP: map fill $(value "$fill_oid") % ($(value "$text_oid")), runs of $PROG $r1 -> $r2, cpu_time_ms $(value "$cpu_oid"), dropped recursion $(value "$miss_oid")"

# --- CollectCost false: no cost value at all ---------------------------------------------------
stop_collectd
rm -rf "$WORK/csv"
config false
start_collectd "$WORK/collectd.conf"
"$FSYNC_N" 10
wait_for_csv syscalls percent-map_fill-start_tid 10 || fail "no map fill without CollectCost"
wait_for_new_line syscalls percent-map_fill-start_tid
cost=$(ls "$WORK/csv/itest/ebpf-syscalls" | grep -E '^(invocations|total_time_in_ms|derive-run_time)' || true)
[ -z "$cost" ] || fail "CollectCost false, but collectd wrote: $cost"
wait_until 10 sh -c "! snmpget -v2c -c public -On -t 2 -r 1 $AGENT $runs_oid | grep -q Counter64" ||
	sfail "CollectCost false, but SNMP still serves the run count"
pass "CollectCost false: no run counts, run times or CPU time, in collectd or SNMP"
