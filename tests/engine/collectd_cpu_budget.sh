#!/bin/sh
# CpuBudget and the cost governor through the real collectd (doc/modules.md, Cost): a
# syscall storm on purpose (3 threads of getppid() in a tight loop) with the syscalls
# module's `Latency "all"`, under a budget set at 75% of what the module cost in the same
# storm with `CpuBudget "off"` (measured first, in a short run of its own):
#  - the line beside the module's memory plan (what `collectd -T` prints) says its budget and
#    steps;
#  - within three reads of the first one over the budget, the cost read is at or under the
#    budget within 20%, Latency sampled 1 in N (gauge-sample_rate N > 1), each step a WARNING
#    notification;
#  - a fixed-latency workload (3,000 legacy nanosleeps of 200 us) while sampled: its latency
#    p50, p90 and p99 each within 5% of those of the same sleeps unsampled (a second instance
#    of the module, `Latency "nanosleep"`, CpuBudget "off", the same precision), or, where
#    the sleeps' own spread is wider than that, where a fair 1-in-N sample of them can land
#    (its rank among the unsampled sleeps within 4 standard errors of the quantile's), the
#    histogram's scaled count (the snapshot's) within 5% of the workload's own 3,000, and the
#    call counter, which is not sampled, exactly 3,000; getppid counted no fewer times than
#    the storm made;
#  - after the storm the module returns to 1 in 1, said in an OKAY notification.
. "$top_srcdir/tests/support/lib.sh"

STORM="$top_builddir/tests/support/getppid_storm"
SLEEP_N="$top_builddir/tests/support/sleep_n"
SNAP="$WORK/snapshot"
SLEEPS=3000
# collectd's csv timestamps: reads are at least a second apart (plugin/ebpf.c, rrdtool).
INTERVAL=1

config() { # $1: CpuBudget, $2: CostPeriod
	write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$SNAP"
  CostPeriod $2
  <Module "syscalls">
    Latency "all"
    Percentile 50 90 99
    CpuBudget "$1"
  </Module>
  # The same sleeps unsampled, at the same precision (the plan gives "all" 3): the reference.
  <Module "syscalls" "ref">
    Latency "nanosleep"
    Percentile 50 90 99
    Precision 3
    CpuBudget "off"
  </Module>
</Plugin>
CONF
}

# snap_value KIND NAME [MODULE] [FILE]: MODULE's (default the governed one) nanosleep or
# getppid line's cumulative count in the snapshot (counter calls: its value; histogram
# latency: its lifetime count).
snap_value() {
	awk -F'\t' -v k="$1" -v n="$2" -v m="${3:-syscalls}" '$1 == "module" { mine = $2 == m }
		mine && $1 == k && $3 == n { print (k == "histogram" ? $6 : $4); exit }' "${4:-$SNAP}"
}

# after_next_read: returns once collectd has read (and written) again.
after_next_read() {
	wait_for_new_line syscalls percent-cpu_cost
}

# read_after EPOCH: the governed module has read (its csv line written) since EPOCH.
read_after() {
	_f=$(csv_file syscalls operations-nanosleep)
	[ -n "$_f" ] && tail -n 1 "$_f" | awk -F, -v t="$1" '{ exit !($1 > t) }'
}

# snap_grown MODULE COUNT: the snapshot has MODULE's read that counted COUNT more sleeps than
# before.snap (the snapshot is published at the end of a read, the csv lines may be written
# before).
snap_grown() {
	_now=$(snap_value counter nanosleep "$1") _then=$(snap_value counter nanosleep "$1" "$WORK/before.snap")
	[ $((${_now:-0} - ${_then:-0})) -ge "$2" ]
}

# sleeps: the workload, then a read; sets SLEEP_TRUTH (p50 p90 p99, s), SLEEP_CALLS and
# SLEEP_HIST (what the counter and the histogram's count grew by), from before.snap and
# after.snap: the snapshot before it, and of the first reads of both modules that began after
# it. Nobody else calls the legacy nanosleep.
sleeps() {
	cp "$SNAP" "$WORK/before.snap"
	SLEEP_TRUTH=$("$SLEEP_N" $SLEEPS 200) || fail "sleep_n failed"
	end=$(date +%s.%N)
	wait_until 10 read_after "$end" || fail "no read after the workload"
	c1=$(csv_last syscalls operations-nanosleep)
	c0=$(snap_value counter nanosleep syscalls "$WORK/before.snap")
	SLEEP_CALLS=$((c1 - ${c0:-0}))
	wait_until 5 snap_grown syscalls "$SLEEP_CALLS" && wait_until 5 snap_grown syscalls-ref "$SLEEP_CALLS" ||
		fail "the snapshot never had the reads that counted the $SLEEP_CALLS sleeps"
	cp "$SNAP" "$WORK/after.snap"
	h1=$(snap_value histogram nanosleep syscalls "$WORK/after.snap")
	h0=$(snap_value histogram nanosleep syscalls "$WORK/before.snap")
	SLEEP_HIST=$((${h1:-0} - ${h0:-0}))
}

# workload_percentiles MODULE [VALUE]: p50, p90 and p99 (s) of MODULE's nanosleep histogram
# grown from before.snap to after.snap: the workload's own, whatever reads it fell in; linear
# within a slot, whose bounds are bpf/include/hist_slot.h's. With VALUE (s): the share of
# those sleeps at or under it instead (its rank), linear within a slot the same way.
workload_percentiles() {
	awk -F'\t' -v m="$1" -v value="${2:-}" '
	function upper(p, s,   g, e) { if (s < 2^p) return s + 1; g = int(s / 2^p); e = g + p - 1; return 2^e + (s % 2^p + 1) * 2^(e - p) }
	function lower(p, s,   g, e) { if (s < 2^p) return s; g = int(s / 2^p); e = g + p - 1; return 2^e + (s % 2^p) * 2^(e - p) }
	FNR == 1 { file++ }
	$1 == "module" { mine = $2 == m; inh = 0 }
	$1 == "histogram" { inh = mine && $2 == "latency" && $3 == "nanosleep"; if (inh) prec = $5 }
	$1 == "bucket" && inh { d[$2] += (file == 1 ? -$3 : $3); if ($2 + 0 > top) top = $2 + 0 }
	END {
		for (i = 0; i <= top; i++) total += d[i]
		if (value != "") {
			v = value * 1e9; cum = 0
			for (i = 0; i <= top; i++) {
				lo = lower(prec, i); hi = upper(prec, i)
				if (v >= hi) { cum += d[i]; continue }
				if (v > lo) cum += d[i] * (v - lo) / (hi - lo)
				break
			}
			printf "%.6f\n", cum / total; exit
		}
		split("0.5 0.9 0.99", q, " ")
		for (k = 1; k <= 3; k++) {
			want = q[k] * total; cum = 0
			for (i = 0; i <= top; i++) {
				c = d[i]
				if (c > 0 && cum + c >= want) {
					lo = lower(prec, i); hi = upper(prec, i)
					printf "%.9f ", (lo + (hi - lo) * (want - cum) / c) / 1e9; break
				}
				cum += c
			}
		}
	}' "$WORK/before.snap" "$WORK/after.snap"
}

# over_twice: two reads in a row during the storm (csv lines after $start) cost more than
# $BUDGET: what the governor steps down on. A loaded host moves a storm's cost between the
# run that measured it and the run under the budget (seen with runqueue, the same here in
# CI's sanitized lane: no read of the second storm over the budget); then the premise, not
# the governor, failed, and both runs are made again (at most 3 times).
over_twice() {
	awk -F, -v t="$start" -v b="$BUDGET" '$1 != "epoch" && $1 > t { run = $2 > b ? run + 1 : 0; if (run >= 2) ok = 1 }
		END { exit !ok }' "$(csv_file syscalls percent-cpu_cost)"
}

attempt=1
while :; do
	rm -rf "$WORK/csv" "$WORK/rrd" "$SNAP"
	# --- 1. unsampled: what the module costs in the storm ---------------------------------------
	# CostPeriod 2: a cost window (the kernel's run-time statistics on) in the storm, as the
	# governor's own windows will be in the second run (each step is measured by one).
	config off 2
	start_collectd "$WORK/collectd.conf"
	wait_for_csv syscalls percent-cpu_cost 15 || fail "no percent-cpu_cost"
	after_next_read
	"$STORM" 3 3 > "$WORK/storm0" || fail "getppid_storm failed"
	after_next_read
	# the reads that fell wholly in the storm: the largest of the last three
	C0=$(tail -n 3 "$(csv_file syscalls percent-cpu_cost)" | cut -d, -f2 | sort -g | tail -n 1)
	stop_collectd
	# Between the cost at 1 in 2 (about 0.55 of it here) and the cost unsampled.
	BUDGET=$(awk -v c="$C0" 'BEGIN { printf "%.2f", c * 0.75 }')
	pass "unsampled: the storm cost $C0% of one CPU; budget $BUDGET%"
	awk -v b="$BUDGET" 'BEGIN { exit !(b >= 0.01) }' || fail "the storm cost too little to test a budget: $C0%"

	# --- 2. the same storm under CpuBudget: steps down, holds the budget, steps back ----------
	rm -rf "$WORK/csv" "$WORK/rrd" "$SNAP"
	: > "$WORK/collectd.log"
	config "$BUDGET%" 60
	start_collectd "$WORK/collectd.conf"
	wait_for_csv syscalls percent-cpu_cost 15 && csv_has_value syscalls gauge-sample_rate || fail "no percent-cpu_cost or gauge-sample_rate"
	grep -q "cpu budget: syscalls: CpuBudget [0-9.]*% of one CPU .*: samples Latency 1 in 2 to 1 in 64, then detaches sys_enter" "$WORK/collectd.log" || fail "no line of the budget beside the plan: $(grep "kernel memory plan: syscalls\|cpu budget" "$WORK/collectd.log")"
	after_next_read
	start=$(date +%s.%N)
	"$STORM" 3 6 > "$WORK/storm" &
	STORM_PID=$!
	trap 'kill $STORM_PID 2>/dev/null || true; cleanup' EXIT INT TERM
	wait "$STORM_PID" || fail "getppid_storm failed"
	rate=$(csv_last syscalls gauge-sample_rate)
	awk -v n="$rate" 'BEGIN { exit !(n >= 2) }' && break
	over_twice || [ "$attempt" -ge 3 ] ||
		{ echo "the storm cost $(csv_values syscalls percent-cpu_cost) this time, never twice over its budget $BUDGET%: measuring again (attempt $((attempt + 1)) of 3)"; stop_collectd; attempt=$((attempt + 1)); continue; }
	fail "after the storm Latency is sampled 1 in $rate: $(csv_values syscalls gauge-sample_rate); costs $(csv_values syscalls percent-cpu_cost), budget $BUDGET%"
done
sleeps
SAMPLED=$(workload_percentiles syscalls)
UNSAMPLED=$(workload_percentiles syscalls-ref)
RATES=$(csv_values syscalls gauge-sample_rate)
rate=$(csv_last syscalls gauge-sample_rate)
awk -v n="$rate" 'BEGIN { exit !(n >= 2) }' || fail "the workload was not sampled throughout: sample_rate $RATES"
GETPPID=$(snap_value counter getppid)
wait_until 30 csv_is syscalls gauge-sample_rate 1.000000 || fail "not back to 1 in 1 after the storm: $(csv_values syscalls gauge-sample_rate)"
stop_collectd

budget_held syscalls "$BUDGET" Latency

[ "$SLEEP_CALLS" -eq $SLEEPS ] || fail "sampled: the nanosleep counter grew by $SLEEP_CALLS, not exactly $SLEEPS"
# The histogram's scaled count within 5% of the truth, or within what a fair 1-in-N sample of
# the sleeps allows: the tick is per CPU and counts every syscall there, so on a busy host it
# takes the sleeps at random (each sampled one counts N: the estimate's standard error is
# sqrt(n N (1 - 1/N)), 145 of 3,000 at 1 in 8; seen: 3,200 at 1 in 8 beside six compilers,
# 1.4 of them). A count that is not weighted (748 of 3,000 at 1 in 4) or weighted twice is
# far outside both. N: the largest sample rate the module was read at (NMAX), which makes
# the band the widest a fair sample allows.
NMAX=$(printf '%s\n' $RATES | sort -g | tail -n 1)
awk -v h="$SLEEP_HIST" -v n=$SLEEPS -v N="$NMAX" 'BEGIN { e = (h - n) / n; if (e <= 0.05 && e >= -0.05) exit 0
	k = 4 * sqrt(n * N * (1 - 1 / N)); exit !(h >= n - k && h <= n + k) }' ||
	fail "sampled: the nanosleep histogram's scaled count grew by $SLEEP_HIST, not within 5% of $SLEEPS nor where a 1 in $NMAX sample can put it"
pass "sampled: nanosleep counted exactly $SLEEP_CALLS, its histogram's scaled count $SLEEP_HIST (truth $SLEEPS)"
set -- $UNSAMPLED
u50=$1 u90=$2 u99=$3
# Each percentile within 5% of the unsampled one, or, where the sleeps spread wider than 5%
# around it, where a fair sample can put it: a 1-in-N sample of n sleeps keeps about n/N,
# and its q-quantile lies, with all but 1 in 15,000 chance, between the unsampled sleeps'
# quantiles at q -+ 4 sqrt(q (1 - q) / (n/N)) (the binomial's standard error). The 5% alone
# is not what sampling can promise in a tail: p99 of 3,000 is the 30th largest, a 1 in 4
# sample's the 8th of its 750 (seen under CI's load, the sleeps' p99 1.37x their p50:
# sampled 0.327 ms against 0.355 ms, 8% apart). A sampler that favours short or long calls
# moves the rank out of the band (one that kept only the shorter half would put p99 near
# the unsampled p50). N: NMAX, as above.
set -- $SAMPLED
for p in 50 90 99; do
	case $p in 50) u=$u50 s=$1 ;; 90) u=$u90 s=$2 ;; 99) u=$u99 s=$3 ;; esac
	awk -v s="$s" -v u="$u" 'BEGIN { e = (s - u) / u; exit !(e <= 0.05 && e >= -0.05) }' && continue
	r=$(workload_percentiles syscalls-ref "$s")
	awk -v r="$r" -v q="0.$p" -v n=$SLEEPS -v N="$NMAX" 'BEGIN { k = 4 * sqrt(q * (1 - q) / (n / N)); exit !(r >= q - k && r <= q + k) }' ||
		fail "p$p sampled $s s against unsampled $u s of the same sleeps: beyond 5%, and its rank among them $r is not where a 1 in $NMAX sample of $SLEEPS can put p$p"
	echo "p$p sampled $s s against unsampled $u s: beyond 5%, and its rank among the unsampled sleeps $r is where a fair 1 in $NMAX sample of $SLEEPS lands"
done
pass "percentiles sampled $SAMPLED s, unsampled $UNSAMPLED s (the workload's own: $SLEEP_TRUTH)"
storm=$(cat "$WORK/storm")
[ "$GETPPID" -ge "$storm" ] || fail "getppid counted $GETPPID times, the storm made $storm calls"
pass "getppid counted $GETPPID times (the storm's own count: $storm)"
