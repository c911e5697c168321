#!/bin/sh
# A running collectd's SNMP snapshot is its own: `collectd -T` (the pre-flight check users
# run while the daemon runs) publishes nothing, and a second collectd with the same
# SnapshotFile neither overwrites nor removes it. Either used to leave SNMP reporting
# missing(2) until the daemon's next read.
. "$top_srcdir/tests/support/lib.sh"

SNAP="$WORK/snap/snapshot"
write_config "$WORK/daemon.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$SNAP"
</Plugin>
CONF
start_collectd "$WORK/daemon.conf"
wait_until 5 test -f "$SNAP" || fail "the daemon published no snapshot at $SNAP"

# The same configuration under collectd -T, with a log of its own.
sed "s|$WORK/collectd.log|$WORK/check.log|; s|$WORK/collectd.pid|$WORK/check.pid|" "$WORK/daemon.conf" > "$WORK/check.conf"
"$COLLECTD" -T -C "$WORK/check.conf" > "$WORK/check.out" 2>&1 || { cat "$WORK/check.log" >&2; fail "collectd -T failed"; }
[ -f "$SNAP" ] || fail "collectd -T removed the running daemon's snapshot"
grep -q "collectd -T: a test run publishes no SNMP snapshot ($SNAP is left as it is)" "$WORK/check.log" ||
	{ cat "$WORK/check.log" >&2; fail "collectd -T did not say it leaves the snapshot alone"; }
pass "collectd -T leaves the daemon's snapshot in place"

# A second daemon with the same SnapshotFile: refused, and its stop removes nothing.
sed "s|$WORK/collectd.log|$WORK/second.log|; s|$WORK/collectd.pid|$WORK/second.pid|; s|$WORK/collectd.sock|$WORK/second.sock|" \
	"$WORK/daemon.conf" > "$WORK/second.conf"
"$COLLECTD" -f -C "$WORK/second.conf" > "$WORK/second.out" 2>&1 &
second=$!
wait_for_log 'SNMP snapshot not published' 5 "$WORK/second.log" || true # judged below, with the owner
kill "$second"; wait "$second" 2>/dev/null || true
grep -q "SNMP snapshot not published: $SNAP belongs to another running collectd (pid $COLLECTD_PID holds" "$WORK/second.log" ||
	{ cat "$WORK/second.log" >&2; fail "the second collectd did not name the owner"; }
[ -f "$SNAP" ] || fail "the second collectd removed the first one's snapshot"
before=$(stat -c %Y.%i "$SNAP")
i=0
while [ "$(stat -c %Y.%i "$SNAP")" = "$before" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(stat -c %Y.%i "$SNAP")" != "$before" ] || fail "the daemon stopped publishing"
pass "a second collectd leaves the snapshot to its owner, who keeps publishing"

stop_collectd
[ ! -f "$SNAP" ] || fail "the owner did not remove its snapshot when it stopped"
pass "the owner removes its snapshot when it stops"
