#!/bin/sh
# A full filesystem under the snapshot (a 256 KiB tmpfs filled up while collectd runs): the
# previous snapshot stays, whole; the failure is logged once, not every interval; when
# space comes back collectd says so and publishes again.
. "$top_srcdir/tests/support/lib.sh"

CHECK="$top_builddir/tests/support/snapshot_check"
SNAPDIR="$WORK/snap"
SNAP="$SNAPDIR/snapshot"
mkdir "$SNAPDIR"
mount -t tmpfs -o size=256k,mode=0755 ebpf-test-full "$SNAPDIR" || fail "cannot mount a tmpfs on $SNAPDIR"
# collectd first (it holds the snapshot's lock file), then the mount, then lib.sh's cleanup.
full_disk_cleanup() {
	[ -n "$COLLECTD_PID" ] && kill "$COLLECTD_PID" 2>/dev/null && wait "$COLLECTD_PID" 2>/dev/null
	COLLECTD_PID=
	umount "$SNAPDIR" 2>/dev/null || umount -l "$SNAPDIR"
	cleanup
}
trap full_disk_cleanup EXIT INT TERM

write_syscalls_config "$WORK/collectd.conf" "$SNAP" "" < /dev/null
start_collectd "$WORK/collectd.conf"
wait_until 5 test -f "$SNAP" || fail "no snapshot published"

# written_us of the snapshot now (fails the test if it is not whole)
written() { out=$("$CHECK" "$SNAP") || fail "the snapshot is not whole: $out"; echo "${out#* }"; }

dd if=/dev/zero of="$SNAPDIR/fill" bs=4k 2>/dev/null && fail "256 KiB of tmpfs did not fill up"
wait_for_log 'SNMP snapshot not published' 5 || fail "no error logged with the disk full"
w0=$(written)
sleep 4 # four more reads, each failing to publish
w1=$(written)
[ "$w1" = "$w0" ] || fail "the snapshot changed while the disk was full ($w0 -> $w1)"
n=$(grep -c 'SNMP snapshot not published' "$WORK/collectd.log")
[ "$n" = 1 ] || fail "the full disk was logged $n times, not once"
grep 'SNMP snapshot not published' "$WORK/collectd.log" | grep -q "No space left on device. Free space on that filesystem" ||
	fail "the error does not say the disk is full: $(grep 'SNMP snapshot not published' "$WORK/collectd.log")"
pass "disk full: the previous snapshot stays whole, one error in 5 intervals: $(grep -o 'SNMP snapshot not published.*' "$WORK/collectd.log" | cut -c1-160)"

rm "$SNAPDIR/fill"
wait_for_log 'SNMP snapshot published again' 5 || fail "no recovery logged once space came back"
i=0; while [ "$(written)" = "$w0" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(written)" != "$w0" ] || fail "no new snapshot after space came back"
ls "$SNAPDIR" | grep -v '^snapshot\(\.lock\)\?$' && fail "temporary files left in $SNAPDIR"
pass "space back: $(grep -o 'SNMP snapshot published again.*' "$WORK/collectd.log"), no temporary file left"
