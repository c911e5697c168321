#!/bin/sh
# collectd killed with SIGKILL in the middle of its reads while snmpd and the subagent serve
# its snapshot: the file stays whole; ebpfSnapshotAge grows second by second with the time
# since the last write (equal to the file's own `written` time); the status stays ok(1) up
# to the subagent's --stale-after, then turns stale(5), with an error saying why and no
# table served (old numbers must not look current); a new collectd makes it ok(1) again.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"

STALE=4
CHECK="$top_builddir/tests/support/snapshot_check"
write_fsync_config "$WORK/collectd.conf" "$SNAP" nogroup <<CONF
  <Module "runqueue">
  </Module>
CONF
start_snmp --stale-after=$STALE
start_collectd "$WORK/collectd.conf"
wait_for_log '2 of 2 modules running' 10 || fail "the modules did not start"
wait_until 10 status_is 1 || sfail "snapshot status not ok(1) with collectd running: $(value $BASE.1.1.2.0)"
AGE=$BASE.1.1.3.0
FSYNC_CALLS="$BASE.1.3.1.3.$(str_oid syscalls).$(str_oid calls).$(str_oid fsync implied)"
"$FSYNC_N" 1
wait_until 5 is_number "$FSYNC_CALLS" || sfail "no calls/fsync served"
age=$(value $AGE)
[ "$age" -le 2 ] || sfail "ebpfSnapshotAge is $age s while collectd publishes every second"
pass "collectd running: status ok(1), age $age s"

# In the middle of the 1 s interval, where a read is likely under way.
sleep 1.5
kill_collectd
killed=$(date +%s)
out=$("$CHECK" "$SNAP") || sfail "after SIGKILL the snapshot is not whole: $out"
pass "SIGKILL: the snapshot stays whole ($out)"

# The age is the time since the file's `written` line, and grows with the clock.
written_s=$(($(sed -n 's/^written\t\([0-9]*\)$/\1/p' "$SNAP") / 1000000))
a1=$(value $AGE); t1=$(date +%s)
[ "$(value $BASE.1.1.1.0)" = 1 ] || sfail "status $(value $BASE.1.1.1.0) at age $a1 s, below --stale-after $STALE"
sleep 2
a2=$(value $AGE); t2=$(date +%s)
d=$((a2 - a1)) want=$((t2 - t1))
[ "$d" -ge $((want - 1)) ] && [ "$d" -le $((want + 1)) ] || sfail "age went $a1 -> $a2 s in $want s"
[ "$a2" -ge $((t2 - written_s - 1)) ] && [ "$a2" -le $((t2 - written_s)) ] ||
	sfail "age $a2 s, but the file was written $((t2 - written_s)) s ago"
pass "age grows with the clock: $a1 -> $a2 s in $want s (file written $((t2 - written_s)) s ago); status ok(1) below $STALE s"

wait_until $((STALE + 3)) status_is 5 || sfail "status $(value $BASE.1.1.1.0), not stale(5), $(($(date +%s) - killed)) s after the kill"
age=$(value $AGE)
[ "$age" -ge "$STALE" ] || sfail "stale(5) at age $age s, before --stale-after $STALE"
err=$(value $BASE.1.1.2.0)
echo "$err" | grep -q "more than $STALE s ago (--stale-after): collectd has stopped publishing" ||
	sfail "ebpfSnapshotError does not say why: \"$err\""
# A walk past the scalars: the next object is not ours (snmpd says so), never a table row.
rows=$(v2walk $BASE.1.2 2>/dev/null | grep -E "^$BASE\.1\.[2-6]\..* = (INTEGER|STRING|Counter|Gauge|Timeticks)" || true)
[ -z "$rows" ] || sfail "table objects still served from a stale snapshot: $rows"
grep -q "more than $STALE s ago" "$WORK/subagent.log" || sfail "the subagent did not log the stale snapshot"
pass "past --stale-after $STALE s: stale(5) at age $age s, tables empty, error \"$err\""

# The new collectd publishes before its modules attach: fsync once they run.
: > "$WORK/collectd.log"
start_collectd "$WORK/collectd.conf"
wait_for_log '2 of 2 modules running' 10 || fail "the modules did not start again"
wait_until 10 status_is 1 || sfail "status $(value $BASE.1.1.1.0), not ok(1), after collectd restarted"
age=$(value $AGE)
[ "$age" -le 2 ] || sfail "ebpfSnapshotAge $age s after collectd restarted"
"$FSYNC_N" 1 # a series is served once it has data
wait_until 15 is_number "$FSYNC_CALLS" || sfail "no calls/fsync served after collectd restarted: $(value "$FSYNC_CALLS"); $(grep -c fsync "$SNAP") fsync lines in the snapshot, status $(value $BASE.1.1.1.0)"
pass "collectd restarted: ok(1) again, age $age s, counters served"
