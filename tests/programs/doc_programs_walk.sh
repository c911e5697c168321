#!/bin/sh
# doc/programs.md's first walk, as printed: the sh blocks between <!-- programs-walk and
# <!-- /programs-walk --> run verbatim on a host set up as README's collectd walk leaves it
# (contrib/collectd.conf installed, collectd running with a pid file), except that the system
# paths they name (/etc/collectd, /var/lib/collectd, /run/collectd.pid, the log) are moved
# into the test's directory, collectd's plugins come from the build tree, and
# collectd-ebpf-cc is the source tree's. Checked: collectd -T passes with the program's block,
# the restart block restarts collectd without systemd, and the 10 sync() calls of the last
# block are exactly 10 in derive-sync's RRD.
. "$top_srcdir/tests/support/lib.sh"

walk=$(doc_walk "$top_srcdir/doc/programs.md" programs-walk)
[ -n "$walk" ] || fail "doc/programs.md has no programs walk"

relocate() {
	sed -e "s|/etc/collectd|$WORK/etc/collectd|g" -e "s|/var/log/collectd.log|$WORK/collectd.log|g" \
		-e "s|/var/lib/collectd|$WORK/var/lib/collectd|g" -e "s|/run/collectd.pid|$WORK/collectd.pid|g"
}
# The host as README's walk leaves it: its collectd.conf (1 s intervals) and ebpf.conf (its
# SnapshotFile moved into $WORK), collectd started as its step 3 prints.
mkdir -p "$WORK/etc/collectd/collectd.conf.d" "$WORK/var/lib" "$WORK/run" "$WORK/src/contrib"
relocate < "$top_srcdir/contrib/collectd.conf" | walk_collectd_conf "$WORK/etc/collectd/collectd.conf"
walk_ebpf_conf "$WORK/run/snapshot" "$WORK/etc/collectd/collectd.conf.d/ebpf.conf"
# contrib/programs as in the checkout, its .conf files' object paths moved like the commands'.
cp -r "$top_srcdir/contrib/programs" "$WORK/src/contrib/"
for conf in "$top_srcdir"/contrib/programs/*.conf; do relocate < "$conf" > "$WORK/src/contrib/programs/${conf##*/}"; done
grep -q "Object \"$WORK/etc/collectd/ebpf.d/sync_count.bpf.o\"" "$WORK/src/contrib/programs/sync_count.conf" ||
	fail "contrib/programs/sync_count.conf does not name /etc/collectd/ebpf.d/sync_count.bpf.o"
# collectd runs detached (no child of this shell): stopped by its pid, waited for before the
# work directory goes.
stop_daemon() {
	if [ -n "$COLLECTD_PID" ]; then
		kill "$COLLECTD_PID" 2>/dev/null || :
		wait_until 10 sh -c "! kill -0 $COLLECTD_PID" || :
	fi
	cleanup
}
trap stop_daemon EXIT INT TERM
export COLLECTD_EBPF_CACHE="$WORK/cc-cache"
"$COLLECTD" -C "$WORK/etc/collectd/collectd.conf" -P "$WORK/collectd.pid" || fail "collectd did not start"
wait_until 20 test -s "$WORK/collectd.pid" || fail "collectd wrote no pid file"
COLLECTD_PID=$(cat "$WORK/collectd.pid")

echo "$walk" | relocate | sed -e "s|^collectd-ebpf-cc |sh \"$top_srcdir/tools/collectd-ebpf-cc.sh\" |" \
	-e "s|^collectd |\"$COLLECTD\" |" -e "s|^rrdtool |\"${RRDTOOL:-rrdtool}\" |" > "$WORK/walk.sh"
grep -q "collectd-ebpf-cc.sh\" -o $WORK/etc/collectd/ebpf.d/sync_count.bpf.o" "$WORK/walk.sh" ||
	fail "the walk does not compile sync_count as expected: $(cat "$WORK/walk.sh")"
# Split after collectd -T (steps to the check), after the restart's collectd (the restart),
# the rest (the workload and the reading).
check=$(sed -n '1,/ -T -C /p' "$WORK/walk.sh")
restart=$(sed '1,/ -T -C /d' "$WORK/walk.sh" | sed -n '1,/^"[^"]*" -C /p')
rest=$(sed '1,/ -T -C /d' "$WORK/walk.sh" | sed '1,/^"[^"]*" -C /d')
[ -n "$check" ] && [ -n "$restart" ] && [ -n "$rest" ] || fail "could not split the walk: $(cat "$WORK/walk.sh")"

( cd "$WORK/src" && sh -e -c "$check" ) > "$WORK/check.out" 2>&1 || { cat "$WORK/check.out" >&2; fail "the walk's first block failed"; }
grep -q '^collectd -T: exit status 0$' "$WORK/check.out" || { cat "$WORK/check.out" >&2; fail "collectd -T with the program's block did not pass"; }
pass "compiled with collectd-ebpf-cc, block installed, collectd -T: exit status 0"

old_pid=$COLLECTD_PID
( cd "$WORK/src" && sh -e -c "$restart" ) > "$WORK/restart.out" 2>&1 || { cat "$WORK/restart.out" >&2; fail "the restart block failed"; }
kill -0 "$old_pid" 2>/dev/null && fail "the collectd before the restart still runs"
wait_until 20 test -s "$WORK/collectd.pid" || fail "the restarted collectd wrote no pid file"
COLLECTD_PID=$(cat "$WORK/collectd.pid")
[ "$COLLECTD_PID" != "$old_pid" ] || fail "the pid file still names the old collectd"
wait_for_log 'ebpf plugin: 2 of 2 modules running' 20 || fail "the restarted collectd did not start ebpf.conf's module and the program"
rrd="$WORK/var/lib/collectd/rrd/$(hostname)/ebpf-sync_count/derive-sync.rrd"
# The workload counts from the program's start: its first read (a 0) is before the walk's syncs.
wait_until 10 test -f "$rrd" || fail "no first read of the program ($rrd)"
pass "restarted without systemd (pid $old_pid -> $COLLECTD_PID), the program running"

( cd "$WORK/src" && sh -e -c "$rest" ) > "$WORK/rest.out" 2>&1 || { cat "$WORK/rest.out" >&2; fail "the last block failed"; }
value=$(awk -F': ' '/^[0-9]+: / { print $2 }' "$WORK/rest.out")
[ "$value" = 10 ] || { cat "$WORK/rest.out" >&2; fail "rrdtool lastupdate of derive-sync read '$value', not the walk's 10 sync() calls"; }
pass "the last block: 10 sync() calls, rrdtool lastupdate reads $value"
