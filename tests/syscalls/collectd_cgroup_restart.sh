#!/bin/sh
# A service restarted (its cgroup removed and made again under the same path: a new cgroup
# id, as `systemctl restart` does) keeps one series per name in the real collectd, and a real
# Prometheus server scraping collectd's write_prometheus sees one counter without a reset:
# - operations-fsync: 600 calls, the restart, 40 calls, 10 calls: 600 -> 640 -> 650, never
#   back (a name's counter is the sum over its incarnations, doc/modules.md);
# - latency-fsync-99 only for the reads whose interval had calls, and bucket-fsync-0_10 (all
#   of them) 0 in the reads without: no phantom of the 40 calls in every read after;
#   the 10 calls' bucket rate times the interval is 10, not the cumulative 50;
# - Prometheus: resets() 0 and max - min 50 over a window with the restart in it, and
#   increase() 50 up to its own extrapolation to the window's edges.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/outputs/prometheus_lib.sh"

test_cgroups ebpf-it-restart svc
CG_BEFORE_REMOVAL=stop_prometheus
SVC="$CG_ROOT/$PARENT/svc"
FSYNC_N="$top_builddir/tests/support/fsync_n"
I="syscalls.${PARENT}_svc"
write_config "$WORK/collectd.conf" <<CONF
$(write_prometheus_config)
<Plugin ebpf>
  <Module "syscalls">
    Latency "fsync"
    Percentile 99
    Bucket 0 10
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*"
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
start_prometheus

# run COUNT: fsync_n COUNT times from inside the service's cgroup.
run() { sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$SVC" "$FSYNC_N" "$1" || fail "the workload in svc failed"; }
lines() { f=$(csv_file "$I" "$1"); [ -n "$f" ] && wc -l < "$f" || echo 0; }
OPS="collectd_ebpf_operations_total{ebpf=\"$I\",type=\"fsync\"}"

run 600
wait_exact "$I" operations-fsync 600
wait_until 15 prom_is "$OPS" 600 || pfail "Prometheus has '$(prom_value "$OPS")' for $OPS, not 600"
t0=$(date +%s)
pass "600 calls: operations-fsync 600 in csv and in Prometheus"

# The restart: the old cgroup removed, a new one under the same path, 40 calls in it.
rmdir "$SVC" || fail "cannot remove $SVC"
mkdir "$SVC" || fail "cannot make $SVC again"
run 40
wait_exact "$I" operations-fsync 640
p99_lines=$(lines latency-fsync-99)
wait_for_new_line "$I" operations-fsync
wait_for_new_line "$I" operations-fsync
wait_for_new_line "$I" operations-fsync
csv_is "$I" operations-fsync 640 || fail "operations-fsync went from 640 to '$(csv_last "$I" operations-fsync)' after the restart"
[ "$(lines latency-fsync-99)" = "$p99_lines" ] ||
	fail "latency-fsync-99 was sent in reads without a call: $(tail -n 4 "$(csv_file "$I" latency-fsync-99)" | tr '\n' ' ')"
quiet=$(tail -n 3 "$(csv_file "$I" bucket-fsync-0_10)" | cut -d, -f2 | tr '\n' ' ')
[ "$quiet" = "0.000000 0.000000 0.000000 " ] || fail "bucket-fsync-0_10 in three reads without a call: $quiet"
pass "restart + 40 calls: operations-fsync 640, then no percentile and bucket rates 0 in 3 reads without a call"

bucket_lines=$(lines bucket-fsync-0_10)
run 10
wait_exact "$I" operations-fsync 650
wait_until 5 test "$(lines bucket-fsync-0_10)" -gt "$bucket_lines" || fail "no bucket-fsync-0_10 after 10 calls"
# The calls' bucket rate times the real interval: the read's events (csv's times are ms).
events=$(tail -n +$((bucket_lines)) "$(csv_file "$I" bucket-fsync-0_10)" |
	awk -F, 'NR > 1 { e += $2 * ($1 - t) } { t = $1 } END { printf "%.0f", e }')
[ "$events" = 10 ] || fail "the 10 calls' bucket rates make $events events: $(tail -n 3 "$(csv_file "$I" bucket-fsync-0_10)" | tr '\n' ' ')"
all=$(csv_values "$I" operations-fsync)
echo "$all" | tr ' ' '\n' | awk 'NF && $1 < last { exit 1 } NF { last = $1 }' || fail "operations-fsync went back: $all"
pass "10 calls more: operations-fsync 650, bucket rate x interval = $events events; never back: $all"

# Prometheus: the window holds the 600 before the restart and the 650 after it.
wait_until 15 prom_is "$OPS" 650 || pfail "Prometheus has '$(prom_value "$OPS")' for $OPS, not 650"
w=$(($(date +%s) - t0 + 3))
resets=$(prom_value "resets(${OPS}[${w}s])")
span=$(prom_value "max_over_time(${OPS}[${w}s]) - min_over_time(${OPS}[${w}s])")
increase=$(prom_value "increase(${OPS}[${w}s])")
[ "$resets" = 0 ] || pfail "Prometheus counted $resets resets of $OPS over the restart (increase $increase)"
[ "$span" = 50 ] || pfail "Prometheus' $OPS went from min to max by $span over the window, not 50: $(prom_query "${OPS}[${w}s]")"
# increase() extrapolates the samples' span to the window's edges: at most by one scrape
# interval (1 s) at each end.
awk -v v="$increase" -v w="$w" 'BEGIN { exit !(v >= 50 && v <= 50 * w / (w - 2)) }' ||
	pfail "Prometheus' increase() over ${w}s is $increase for 50 calls"
pass "Prometheus over ${w}s with the restart: resets 0, max - min 50, increase() $increase"
stop_collectd
