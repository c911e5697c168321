#!/bin/sh
# collectd killed: with SIGKILL in the middle of its reads (three times, at different points
# of the 1 s interval) the snapshot stays whole and parseable, the kernel frees every program
# and link (nothing pinned or left behind), and the next collectd publishes to the same path
# at once (the dead one's lock went with it). With SIGTERM, collectd detaches everything
# (`bpftool prog` and `bpftool link` list none of its ids) and removes its snapshot.
. "$top_srcdir/tests/support/lib.sh"

command -v bpftool >/dev/null || skip "bpftool not installed (apt-get install bpftool)"
CHECK="$top_builddir/tests/support/snapshot_check"
SNAP="$WORK/snap/snapshot"
write_fsync_config "$WORK/collectd.conf" "$SNAP" "" <<CONF
  <Module "runqueue">
  </Module>
CONF

ids() { bpftool "$1" show 2>/dev/null | sed -n 's/^\([0-9][0-9]*\): .*/\1/p' | sort; }
# ours KIND: the ids of that kind that appeared since $WORK/KIND.before (the test lock keeps
# every other BPF user out meanwhile).
ours() { ids "$1" | comm -13 "$WORK/$1.before" -; }
still_there() { ids "$1" | comm -12 "$WORK/$1.ours" -; }

# start_and_wait: collectd up, its programs and links noted, one snapshot published.
start_and_wait() {
	ids prog > "$WORK/prog.before"; ids link > "$WORK/link.before"
	start_collectd "$WORK/collectd.conf"
	wait_for_log '2 of 2 modules running' 10 || fail "the modules did not start"
	wait_until 5 test -f "$SNAP" || fail "no snapshot published"
	ours prog > "$WORK/prog.ours"; ours link > "$WORK/link.ours"
	[ -s "$WORK/prog.ours" ] && [ -s "$WORK/link.ours" ] || fail "bpftool shows no program or link of collectd"
}

# gone_within SECONDS: until none of collectd's programs and links is left. The kernel frees
# a program after its last reference goes, through RCU: a moment after the process ends.
gone_within() {
	i=0; while [ -n "$(still_there prog)$(still_there link)" ] && [ $i -lt $(($1 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	[ -z "$(still_there prog)$(still_there link)" ]
}

for delay in 0.2 0.5 0.9; do
	start_and_wait
	grep -q 'belongs to another running collectd' "$WORK/collectd.log" &&
		fail "after a SIGKILL the next collectd found the snapshot owned"
	sleep 1.3
	sleep $delay
	kill_collectd
	out=$("$CHECK" "$SNAP") || fail "after SIGKILL (at +$delay s) the snapshot is not whole: $out"
	gone_within 5 ||
		fail "programs $(still_there prog | paste -sd,) / links $(still_there link | paste -sd,) outlived the killed collectd"
	pass "SIGKILL at +$delay s: snapshot whole (${out%% *} modules), $(wc -l < "$WORK/prog.ours") programs and $(wc -l < "$WORK/link.ours") links freed"
	: > "$WORK/collectd.log"
done

start_and_wait
stop_collectd
gone_within 5 || fail "5 s after SIGTERM bpftool still shows programs $(still_there prog | paste -sd,) / links $(still_there link | paste -sd,)"
[ ! -e "$SNAP" ] || fail "after SIGTERM the snapshot is still there"
pass "SIGTERM: none of collectd's $(wc -l < "$WORK/prog.ours") programs and $(wc -l < "$WORK/link.ours") links left, snapshot removed"
