#!/bin/sh
# make soak: collectd with every module for SOAK_SECONDS (default 1800) under a workload of
# known totals, repeated every PERIOD (10) seconds: F fsync() calls, E execs of /bin/true, C
# connects to a closed port on 127.0.0.1, and W O_DIRECT writes + R reads on a loop device
# of its own. At the end: the loop device's counts are exact (nothing else touches it),
# counting what the block module reports as untraced (the kernel's own losses); the
# others are system-wide, so at least the workload's (the excess, from the rest of the
# machine, is printed); every module that started is still running; collectd's RSS and
# open fds, sampled every period, are flat (after the first minute, RSS within
# SOAK_RSS_SLACK_KB, default 2048; fds back to their count, see below). Run before each release; doc/contributing.md, Soak.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/every_module.sh"

SECONDS_TOTAL=${SOAK_SECONDS:-1800}
PERIOD=10 F=20 E=20 C=20 W=50 R=30

every_module_config "$WORK/collectd.conf" < /dev/null
start_collectd "$WORK/collectd.conf"
wait_for_log 'modules running' 10 || fail "collectd did not report its modules"
running=$(grep -o '[0-9]* of [0-9]* modules running' "$WORK/collectd.log" | tail -n 1)
echo "soak: $running for $SECONDS_TOTAL s; loop device $DISK"

# One of each first, so that every series exists before the baseline.
workload 1 1 1 1 1
sleep 3
base=$(counters)
echo "soak: baseline fsync execs connect_failures $DISK-write $DISK-read untraced-$DISK-write untraced-$DISK-read: $base"
set -- $base
[ $# = 7 ] && ! echo "$base" | grep -q value || fail "a series is missing at the baseline: $base"

rounds=0 start=$(date +%s)
: > "$WORK/samples"
while [ $(($(date +%s) - start)) -lt "$SECONDS_TOTAL" ]; do
	workload $F $E $C $W $R
	rounds=$((rounds + 1))
	kill -0 "$COLLECTD_PID" || fail "collectd died during the soak"
	echo "$(($(date +%s) - start)) $(awk '/^VmRSS/ { print $2 }' /proc/$COLLECTD_PID/status) $(ls /proc/$COLLECTD_PID/fd | wc -l)" \
		>> "$WORK/samples"
	sleep $PERIOD
done
sleep 3 # two more reads
end=$(counters)
echo "soak: $rounds rounds; end: $end"

REPORT_PREFIX="soak: " check_totals "$base" "$end" $rounds $F $E $C $W $R
grep 'module ".*" is off' "$WORK/collectd.log" | cut -c1-200 | sed 's/^/soak: (off from the start) /' || true
[ "$(grep -o '[0-9]* of [0-9]* modules running' "$WORK/collectd.log" | tail -n 1)" = "$running" ] ||
	fail "the running modules changed during the soak"

# Flat: after the first minute (or the first sample), RSS within the slack; the fd count back
# to its fewest of the first minute in the last minute's samples (a sample taken during a read sees the file
# the read has open: one or two more), never more than 4 above it.
awk -v slack="${SOAK_RSS_SLACK_KB:-2048}" -v total="$SECONDS_TOTAL" '
	NR == 1 || $1 <= 60 { r0 = $2; if (f0 == "" || $3 < f0) f0 = $3; next }
	{ if ($2 > rmax) rmax = $2; if ($3 > fmax) fmax = $3; rl = $2; n++
	  if ($1 >= total - 60 && (lastmin == "" || $3 < lastmin)) lastmin = $3 }
	END {
		if (!n) { rmax = r0; rl = r0; fmax = f0; lastmin = f0 }
		printf "soak: collectd RSS %d kB after the first minute, at most %d kB, %d kB at the end; fds %d, at most %d, %d in the last minute\n", r0, rmax, rl, f0, fmax, lastmin
		if (rmax - r0 > slack) { print "FAIL: RSS grew by " rmax - r0 " kB" > "/dev/stderr"; exit 1 }
		if (lastmin != f0 || fmax > f0 + 4) { print "FAIL: the fd count grew" > "/dev/stderr"; exit 1 }
	}' "$WORK/samples" || fail "collectd's RSS or fds grew (samples: seconds RSS-kB fds: $(tr '\n' ';' < "$WORK/samples"))"
pass "soak of $SECONDS_TOTAL s: loop-device counts exact, workload counted, RSS and fds flat"
