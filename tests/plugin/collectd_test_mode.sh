#!/bin/sh
# `collectd -T` is a check: it must write no data. collectd 5.12 runs every read callback once
# under -T and hands the values to the writers (src/daemon/collectd.c, plugin_read_all_once),
# so a check followed at once by the daemon made rrdtool refuse the daemon's first updates
# ("illegal attempt to update using time ... minimum one second step"). Here: -T with
# csv and rrdtool leaves no file, and the daemon started right after it logs no such error while
# it writes its values.
. "$top_srcdir/tests/support/lib.sh"

write_fsync_config "$WORK/collectd.conf" "" "" <<CONF
  <Module "signals">
  </Module>
  <Module "block">
  </Module>
  <Module "process">
  </Module>
CONF
# Whether collectd's write threads take the values before -T shuts them down is a race (before
# the fix: 4 to 54 files a run here): three checks in a row.
for i in 1 2 3; do
	"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/check.out" 2>&1 || { cat "$WORK/check.out" >&2; fail "collectd -T failed"; }
	grep -q 'ebpf plugin: collectd -T: every module is read once, its values go to no writer' "$WORK/collectd.log" ||
		{ cat "$WORK/check.out" >&2; fail "collectd -T did not say that it sends no values"; }
	written=$(find "$WORK/csv" "$WORK/rrd" -type f 2>/dev/null | sed "s|$WORK/||")
	[ -z "$written" ] || fail "collectd -T wrote data: $(echo "$written" | head -n 5 | tr '\n' ' ')"
done
pass "collectd -T three times: the modules read, no csv or rrd file written"

# At once the daemon, as "collectd -T && collectd" does.
start_collectd "$WORK/collectd.conf"
"$top_builddir/tests/support/fsync_n" 3 > /dev/null || fail "fsync_n failed"
wait_for_csv syscalls operations-fsync 10 || fail "the daemon sent no operations-fsync"
for i in 1 2 3; do wait_for_new_line syscalls operations-fsync; done # three more reads, each updating every RRD
stop_collectd
[ -f "$WORK/rrd/itest/ebpf-syscalls/operations-fsync.rrd" ] || fail "the daemon wrote no operations-fsync.rrd"
refused=$(grep -c 'illegal attempt to update' "$WORK/collectd.log" || true)
[ "$refused" = 0 ] || fail "rrdtool refused $refused updates: $(grep -m1 'illegal attempt' "$WORK/collectd.log")"
pass "the daemon started right after collectd -T: $(find "$WORK/rrd" -name '*.rrd' | wc -l) RRD files, no update refused"
