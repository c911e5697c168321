#!/bin/sh
# collectd with ReadThreads 5, every module and a 1 s Interval (rrdtool's shortest step): the modules' read
# callbacks run at the same time on five threads. They share one thing, the snapshot store
# (plugin/snapshot_store.c, under its mutex): everything else a read touches is
# the module's own (its maps, histogram state, name caches, dispatch context) or is set
# before the first read (log handler, CollectCost) or made once (pthread_once: the kernel
# symbol table; thread-local: the last libbpf warning). So, under a workload of known
# totals repeated for ROUNDS rounds:
#   - collectd runs five reader threads;
#   - the loop device's write and read counts are exact, the system-wide ones at least the
#     workload's (every_module.sh);
#   - every snapshot taken meanwhile (every 0.1 s) is whole, lists every module (a record
#     lost to a race would be missing) and was written no earlier than the one before;
#   - at the end the snapshot's block counts equal collectd's own values.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/every_module.sh"

ROUNDS=${READ_THREADS_ROUNDS:-8}
F=20 E=10 C=10 W=40 R=25
CHECK="$top_builddir/tests/support/snapshot_check"
SNAP="$WORK/snap/snapshot"

every_module_config "$WORK/collectd.conf" <<CONF
ReadThreads 5
CONF
start_read_threads_collectd
pass "$running, read by $readers threads every second"

workload 1 1 1 1 1
sleep 3
base=$(counters)
set -- $base
[ $# = 7 ] && ! echo "$base" | grep -q value || fail "a series is missing at the baseline: $base"
modules=$("$CHECK" "$SNAP" | cut -d' ' -f1) || fail "no whole snapshot at the baseline"

# Snapshots while the modules read at once: whole, every module, written times in order.
(
	last=0
	while :; do
		out=$("$CHECK" "$SNAP" 2>&1) || { echo "torn: $out"; exit 1; }
		set -- $out
		[ "$1" = "$modules" ] || { echo "$1 modules, not $modules: $out"; exit 1; }
		[ "$2" -ge "$last" ] || { echo "written $2 after $last"; exit 1; }
		last=$2
		echo ok
		sleep 0.1
	done
) > "$WORK/snapshots" 2>&1 &
watcher=$!

round=0 # not i: workload uses it
while [ $round -lt "$ROUNDS" ]; do
	workload $F $E $C $W $R
	round=$((round + 1))
	sleep 0.7
done
sleep 3 # two more reads
kill "$watcher" 2>/dev/null && wait "$watcher" 2>/dev/null || true
grep -v '^ok$' "$WORK/snapshots" && fail "a snapshot taken during the reads was wrong (above)"
taken=$(grep -c '^ok$' "$WORK/snapshots")
[ "$taken" -ge 10 ] || fail "only $taken snapshots checked"
pass "$taken snapshots taken during the reads: each whole, $modules modules, in order"

end=$(counters)
kill -0 "$COLLECTD_PID" || fail "collectd died"
check_totals "$base" "$end" "$ROUNDS" $F $E $C $W $R
[ "$(grep -o '[0-9]* of [0-9]* modules running' "$WORK/collectd.log" | tail -n 1)" = "$running" ] ||
	fail "the running modules changed"
pass "exact loop-device totals and the workload counted, $ROUNDS rounds, with reads on 5 threads"

# The snapshot holds the same numbers collectd dispatched (one read fills both).
set -- $end
# snap_count INSTANCE: the block module's "ios" counter of INSTANCE in the snapshot.
snap_count() {
	awk -F'\t' -v i="$1" '$1 == "module" { m = $2 } m == "block" && $1 == "counter" && $2 == "ios" && $3 == i { print $4 }' "$SNAP"
}
snap_w=$(snap_count "$DISK-write") snap_r=$(snap_count "$DISK-read")
[ "$snap_w" = "$(delta 0 "$4")" ] && [ "$snap_r" = "$(delta 0 "$5")" ] ||
	fail "snapshot block counts $snap_w/$snap_r, collectd's $4/$5"
pass "snapshot and collectd agree: $DISK writes $snap_w, reads $snap_r"
