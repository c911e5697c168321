#!/bin/sh
# Two collectd daemons with the plugin at once (each its own SnapshotFile, csv and socket):
# both attach and both count the same N fsync() calls; stopping the second leaves the
# first's programs attached (it keeps counting). The same SnapshotFile for both is
# collectd_snapshot_owner.sh's case.
. "$top_srcdir/tests/support/lib.sh"

N=300
FSYNC_N="$top_builddir/tests/support/fsync_n"
write_fsync_config "$WORK/collectd.conf" "$WORK/snap1/snapshot" "" < /dev/null
sed "s|$WORK/collectd.log|$WORK/second.log|; s|$WORK/collectd.pid|$WORK/second.pid|; s|$WORK/collectd.sock|$WORK/second.sock|;
     s|$WORK/csv|$WORK/csv2|; s|$WORK/rrd|$WORK/rrd2|; s|$WORK/snap1/|$WORK/snap2/|" "$WORK/collectd.conf" > "$WORK/second.conf"

start_collectd "$WORK/collectd.conf"
"$COLLECTD" -f -C "$WORK/second.conf" > "$WORK/second.stdout" 2>&1 &
SECOND=$!
stop_second() { [ -z "$SECOND" ] || { kill "$SECOND" 2>/dev/null; wait "$SECOND" 2>/dev/null; SECOND=; }; }
trap 'stop_second; cleanup' EXIT INT TERM
wait_for_log '1 of 1 module running' 10 "$WORK/second.log" || { cat "$WORK/second.log" >&2; fail "the second collectd did not start the module"; }
wait_for_log '1 of 1 module running' 5 || fail "the first collectd did not start the module"

# count CSVDIR: the newest fsync count one daemon wrote.
count() { f=$(ls "$1"/itest/ebpf-syscalls/operations-fsync-* 2>/dev/null | tail -n 1); [ -n "$f" ] && tail -n 1 "$f" | cut -d, -f2; }
# settle: two more reads of both daemons (Interval 1)
settle() { sleep 2.5; }

"$FSYNC_N" 1
i=0; until [ -n "$(count "$WORK/csv")" ] && [ -n "$(count "$WORK/csv2")" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
settle
a0=$(count "$WORK/csv"); b0=$(count "$WORK/csv2")
"$FSYNC_N" $N
settle
a1=$(count "$WORK/csv"); b1=$(count "$WORK/csv2")
da=$(awk -v a="$a1" -v b="$a0" 'BEGIN { printf "%d", a - b }')
db=$(awk -v a="$b1" -v b="$b0" 'BEGIN { printf "%d", a - b }')
[ "$da" -ge $N ] && [ "$db" -ge $N ] || fail "with two daemons the fsync counts grew by $da and $db, expected at least $N each"
pass "two daemons at once: both counted the $N fsyncs (+$da, +$db)"

stop_second
a0=$(count "$WORK/csv")
"$FSYNC_N" $N
settle
a1=$(count "$WORK/csv")
da=$(awk -v a="$a1" -v b="$a0" 'BEGIN { printf "%d", a - b }')
[ "$da" -ge $N ] || fail "after the second daemon stopped the first counted $da of $N fsyncs"
pass "the second stopped: the first still counts (+$da of $N)"
