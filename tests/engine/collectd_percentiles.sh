#!/bin/sh
# Percentiles users can trust, through the real collectd: 1,932 sleeps of 3 ms,
# timed by the workload itself, read back from collectd's csv files within 5% of the exact
# p50, p90 and p99 of those very durations. With the log2 slots before log-linear
# histograms every value sat in (2.1 ms, 4.2 ms] and p90/p99 read +28%/+32%.
. "$top_srcdir/tests/support/lib.sh"

N=1932
USEC=3000
SLEEP_N="$top_builddir/tests/support/sleep_n"

# A 10 s interval holds the whole workload (about 6 s): the percentiles of that one read
# are computed from exactly its sleeps. Default Precision (5).
INTERVAL=10 write_config "$WORK/collectd.conf" <<'CONF'
<Plugin ebpf>
  <Module "syscalls">
    Latency "nanosleep"
    Percentile 50 90 99
  </Module>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
"$SLEEP_N" 1 1000 > /dev/null || fail "sleep_n does not run"
wait_for_csv syscalls operations-nanosleep 25 || fail "no operations-nanosleep value from collectd"

# wait_lines FILE N SECONDS: until FILE has more than N lines.
wait_lines() {
	i=0
	while [ "$(wc -l < "$1")" -le "$2" ] && [ $i -lt $(($3 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(wc -l < "$1")" -gt "$2" ]
}

COUNT=$(csv_file syscalls operations-nanosleep)
measured=""
for attempt in 1 2 3; do
	# Start right after a read, so that the next read comes after the workload ends.
	lines=$(wc -l < "$COUNT")
	wait_lines "$COUNT" "$lines" 25 || fail "collectd stopped reading"
	lines=$(wc -l < "$COUNT")
	before=$(csv_last syscalls operations-nanosleep)
	truth=$("$SLEEP_N" $N $USEC) || fail "the workload failed"
	if [ "$(wc -l < "$COUNT")" -ne "$lines" ]; then
		echo "attempt $attempt: a read came in the middle of the workload (a slow machine); again" >&2
		continue
	fi
	wait_lines "$COUNT" "$lines" 25 || fail "no read after the workload"
	after=$(csv_last syscalls operations-nanosleep)
	measured=yes
	break
done
[ -n "$measured" ] || fail "three workloads in a row were cut by a read"

grown=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%d", a - b }')
[ "$grown" -eq $N ] || fail "nanosleep count grew by $grown in the measured interval, expected exactly $N (another process called the legacy nanosleep?)"
pass "the measured read holds exactly the workload's $N sleeps"

set -- $truth
for pct in 50 90 99; do
	case $pct in 50) want=$1 ;; 90) want=$2 ;; 99) want=$3 ;; esac
	got=$(csv_last syscalls latency-nanosleep-$pct)
	[ -n "$got" ] || fail "no latency-nanosleep-$pct value"
	err=$(awk -v g="$got" -v w="$want" 'BEGIN { printf "%+.2f", (g - w) / w * 100 }')
	echo "p$pct: truth $want s, collectd $got s ($err%)"
	awk -v e="$err" 'BEGIN { exit !(e <= 5 && e >= -5) }' ||
		fail "p$pct reads $got s against the workload's own $want s: $err%, beyond 5%"
done
pass "p50, p90 and p99 of $N constant 3 ms sleeps within 5% of the truth"
stop_collectd
