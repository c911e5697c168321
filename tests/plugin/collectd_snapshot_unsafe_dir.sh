#!/bin/sh
# collectd (root) with SnapshotFile in another user's directory (nobody's, writable by
# nobody), where that user made <SnapshotFile>.lock a link to a file of their choice:
# collectd creates nothing where the link points, publishes nothing there, says why once
# (the directory's owner and the fix), and its modules run and send values all the same.
# The same in root's own directory, with the link at the lock: not followed either.
. "$top_srcdir/tests/support/lib.sh"

TARGET="$WORK/made-by-root"
mkdir "$WORK/nobody"
chown 65534:65534 "$WORK/nobody"
SNAP="$WORK/nobody/snapshot"
su -s /bin/sh nobody -c "ln -s '$TARGET' '$SNAP.lock'" 2>/dev/null || ln -s "$TARGET" "$SNAP.lock"
[ -L "$SNAP.lock" ] || fail "could not make the link"

write_syscalls_config "$WORK/collectd.conf" "$SNAP" "" < /dev/null
start_collectd "$WORK/collectd.conf"
wait_until 10 test -d "$WORK/csv/itest/ebpf-syscalls" || fail "the syscalls module sent no values"
wait_for_log 'SNMP snapshot not published' 10 || fail "collectd did not say it refuses the directory"
sleep 2 # two more intervals: still refused, still said once
[ ! -e "$TARGET" ] || fail "root followed the link: $TARGET exists"
[ ! -e "$SNAP" ] || fail "collectd published into nobody's directory"
grep -qF "SNMP snapshot not published: the snapshot's directory \"$WORK/nobody\" is owned by uid 65534, not by root or collectd's user: anyone who owns it can replace the snapshot the SNMP subagent serves, or point its .lock file elsewhere (chown root: \"$WORK/nobody\")" "$WORK/collectd.log" ||
	fail "the refusal does not name the directory, its owner and the fix"
[ "$(grep -c 'SNMP snapshot not published' "$WORK/collectd.log")" = 1 ] || fail "the refusal was not said once"
ls "$WORK/csv/itest/ebpf-syscalls/" | grep -q . || fail "the syscalls module sent no values"
pass "another user's directory: nothing created through the link, one warning, the module runs"
stop_collectd

# Root's own directory, with the link at the lock (a leftover, or made before the check).
mkdir "$WORK/snap"
SNAP="$WORK/snap/snapshot"
ln -s "$TARGET" "$SNAP.lock"
: > "$WORK/collectd.log"
sed -i "s|SnapshotFile \".*\"|SnapshotFile \"$SNAP\"|" "$WORK/collectd.conf"
start_collectd "$WORK/collectd.conf"
wait_for_log 'SNMP snapshot not published' 10 || fail "collectd did not refuse the linked lock"
[ ! -e "$TARGET" ] || fail "root followed the link at the lock: $TARGET exists"
grep -qF "SNMP snapshot not published: cannot open the snapshot's lock $SNAP.lock: Too many levels of symbolic links (it is a symbolic link, which collectd does not follow: remove it)" "$WORK/collectd.log" ||
	fail "the refusal does not say the lock is a link"
rm "$SNAP.lock"
wait_until 5 test -f "$SNAP" || fail "with the link removed, collectd did not publish"
grep -q "SNMP snapshot published again to $SNAP" "$WORK/collectd.log" || fail "collectd did not say it publishes again"
pass "a link at the lock in root's directory: not followed, said, and publishing resumes once it is gone"
