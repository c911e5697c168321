#!/bin/sh
# Graphite end to end: the real collectd with the plugin and write_graphite sends to Debian's
# carbon-cache (whisper files), and graphite-web's render API (format=json) gives back exactly
# N fsync calls, the fsync latency percentiles and mean, and the bucket rates, under the
# paths doc/viewing.md shows (host itest).
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/outputs/graphite_lib.sh"

N=300
FSYNC_N="$top_builddir/tests/support/fsync_n"
OPS=itest.ebpf-syscalls.operations-fsync

start_carbon
start_graphite_web
{ write_graphite_config; cat <<'CONF'; } | write_config "$WORK/collectd.conf"
<Plugin ebpf>
  <Module "syscalls">
    Latency "fsync"
    Percentile 50
    Percentile 99
    Bucket 0 0.001
    Bucket 0.001 0
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"

# The first fsync makes the series exist (only series with data are sent).
"$FSYNC_N" 1
g_wait_newer "$OPS" 20 0 || gfail "no $OPS in graphite-web after 20 s"
pass "collectd -> write_graphite -> carbon-cache -> graphite-web: $OPS exists"

# The paths as carbon stores them: doc/modules.md's table, "Graphite path".
for leaf in operations-fsync latency-fsync-50 latency-fsync-99 latency-fsync-average \
	bucket-fsync-0_0_001 bucket-fsync-0_001_inf derive-dropped-start_lost derive-dropped-out_of_range \
	derive-dropped-recursion; do
	g_wait_leaf "itest.ebpf-syscalls.$leaf" 10 ||
		gfail "/metrics/find has no leaf itest.ebpf-syscalls.$leaf; it has: $(g_find 'itest.ebpf-syscalls.*' | tr '\n' ' ')"
done
# The attach method is in the name (tp_btf+task_storage here; another kernel may fall back).
attach=$(g_find 'itest.ebpf-syscalls.gauge-attach-sys_enter+sys_exit-*' | sed -n 's/^leaf //p')
[ -n "$attach" ] || gfail "/metrics/find has no itest.ebpf-syscalls.gauge-attach-sys_enter+sys_exit-* series"
echo "attach method series: $attach"
pass "metric paths as in doc/modules.md (host.ebpf-syscalls.<type>-<instance>, dots in bucket bounds escaped)"

# Exact count. StoreRates false sends the cumulative count, so the difference of the point
# read before the workload and the one read after it is the number of fsync calls in between.
# The plugin counts the whole machine: an fsync by any other process in that window (a few
# seconds) adds to it, so a window that grew by more than N is measured again (up to 5
# windows); one that grew by less than N lost calls and fails at once.
attempt=1
while :; do
	now=$(date +%s)
	g_wait_newer "$OPS" 10 "$now" || gfail "no new $OPS point within 10 s"
	set -- $(g_last "$OPS"); t0=$1 before=$2
	# Graphite keeps one point per second, and collectd can read twice within one second (a
	# late read, then the next on schedule): a read holding the workload could then share
	# t0's second and its latency point fall outside the window (seen once). Starting the
	# workload two seconds after t0 puts every read that holds it after t0.
	while [ "$(date +%s)" -le $((t0 + 1)) ]; do sleep 0.1; done
	"$FSYNC_N" $N
	now=$(date +%s)
	g_wait_newer "$OPS" 10 $((now + 1)) || gfail "no $OPS point after the workload within 10 s"
	set -- $(g_last "$OPS"); t1=$1 after=$2
	grown=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%d", a - b }')
	echo "window $attempt: $OPS $before at $t0 -> $after at $t1 (+$grown, workload $N)"
	[ "$grown" -ge $N ] || gfail "graphite's fsync count grew by $grown, fewer than the $N calls made"
	[ "$grown" -ne $N ] || break
	attempt=$((attempt + 1))
	[ $attempt -le 5 ] || gfail "5 windows, each with fsync calls besides our $N: exact count not seen"
done
pass "graphite-web renders exactly N = $N fsync calls (raw DERIVE counter, StoreRates false)"

# The rate as a graph draws it: nonNegativeDerivative of the counter, summed over the window,
# is the same count.
sum=$(g_render "nonNegativeDerivative($OPS)" -10min |
	awk -v a="$t0" -v b="$t1" '$2 > a && $2 <= b { s += $3 } END { printf "%d", s + 0.5 }')
[ "$sum" = "$grown" ] || gfail "nonNegativeDerivative($OPS) over the window sums to $sum, not $grown"
pass "nonNegativeDerivative() of the counter adds up to the same $grown"

# Percentiles and the mean of the intervals that had fsync calls: plausible seconds, p50 <= p99.
for p in 50 99 average; do
	v=$(g_render "itest.ebpf-syscalls.latency-fsync-$p" -10min |
		awk -v a="$t0" -v b="$t1" '$2 > a && $2 <= b { v = $3 } END { print v }')
	[ -n "$v" ] || gfail "no latency-fsync-$p point in the workload's window ($t0, $t1]"
	awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 10) }' || gfail "latency-fsync-$p = $v s is not a plausible fsync time"
	eval "lat_$p=\$v"
done
awk -v a="$lat_50" -v b="$lat_99" 'BEGIN { exit !(a <= b) }' || gfail "p50 $lat_50 > p99 $lat_99"
pass "latency percentile series in graphite-web (p50 $lat_50 s, p99 $lat_99 s, mean $lat_average s)"

# Bucket rates are events per second of each interval: rate x 1 s per point, summed over both
# buckets, is about the calls made (about: a read that comes 1.1 s after the last holds 1.1 s
# of calls at a rate per second, and carbon keeps one point per second).
events=$(g_render "sumSeries(itest.ebpf-syscalls.bucket-fsync-*)" -10min |
	awk -v a="$t0" -v b="$t1" '$2 > a && $2 <= b { s += $3 } END { printf "%d", s + 0.5 }')
echo "bucket rates over the window: $events events (count $grown)"
awk -v e="$events" -v n="$grown" 'BEGIN { exit !(e >= 0.8 * n && e <= 1.2 * n) }' ||
	gfail "bucket rates add up to $events events in the window, not about $grown"
pass "bucket rate series account for the calls ($events of $grown)"
stop_collectd
