#!/bin/sh
# A late read must not cost rrdtool an update. collectd schedules a read that ran late at once
# again (src/daemon/plugin.c: a next read time in the past becomes now), so after a stall two
# reads fall in one whole second; the rrdtool plugin rounds each value's time to the second and
# rrdtool refuses the second update ("illegal attempt to update ... minimum one second step"),
# which a loaded machine with Interval 1 showed (56 refused in one run). The plugin leaves such
# a read to the next one. Here collectd is stopped (SIGSTOP) for 2.5 intervals while the
# workload makes N fsyncs, then resumed: no update is refused, and the N fsyncs are all in
# the counter after the stall (nothing was lost by the read left out).
. "$top_srcdir/tests/support/lib.sh"

N=40
write_fsync_config "$WORK/collectd.conf" "" "" < /dev/null
start_collectd "$WORK/collectd.conf"
"$top_builddir/tests/support/fsync_n" 1 > /dev/null || fail "fsync_n failed"
wait_for_csv syscalls operations-fsync 10 || fail "no operations-fsync from the first reads"
wait_for_new_line syscalls operations-fsync
# The fsync count before the stall, once the reads have settled (this test's fsyncs come
# after it; others on the machine may add to both).
before=$(csv_last syscalls operations-fsync)

kill -STOP "$COLLECTD_PID"
"$top_builddir/tests/support/fsync_n" $N > /dev/null || { kill -CONT "$COLLECTD_PID"; fail "fsync_n failed"; }
sleep 2.5
kill -CONT "$COLLECTD_PID"
for i in 1 2 3 4; do wait_for_new_line syscalls operations-fsync; done
after=$(csv_last syscalls operations-fsync)
stop_collectd

refused=$(grep -c 'illegal attempt to update' "$WORK/collectd.log" || true)
[ "$refused" = 0 ] || fail "rrdtool refused $refused updates after the stall: $(grep -m1 'illegal attempt' "$WORK/collectd.log")"
[ $((after - before)) -ge $N ] || fail "operations-fsync grew by $((after - before)) across the stall, not at least $N"
# Every update rrdtool took is one second or more after the one before it.
CSV=$(csv_file syscalls operations-fsync)
secs=$(awk -F, '/^[0-9]/ { s = int($1 + 0.5); if (s == last) dup++; last = s } END { print dup + 0 }' "$CSV")
[ "$secs" = 0 ] || fail "$secs values of operations-fsync share a whole second with the one before: $(cat "$CSV")"
pass "a 2.5 s stall with Interval 1: no update refused, operations-fsync grew by $((after - before)) (>= $N), no two values in one second"
