#!/bin/sh
# README's first command ends in contrib/demo.sh: it must start collectd with the bundled
# config and show the terminal view (collectd-ebpf-hist) of what it measures: the fsync
# latency histogram with star bars and syscall rates, never "nan", read from an SNMP
# snapshot file of its own.
. "$top_srcdir/tests/support/lib.sh"

out="$WORK/demo.out"
COLLECTD="$COLLECTD" PLUGINDIR="$WORK/plugins" HIST="$top_builddir/collectd-ebpf-hist" DEMO_SECONDS=7 \
	sh "$top_srcdir/contrib/demo.sh" > "$out" 2>&1 &
demo_pid=$!
# While it runs: its snapshot is a file of its own, in its work directory, never a running
# collectd's /run/collectd-ebpf/snapshot (which the demo would overwrite, then remove on exit).
wait_until 10 grep -q '^collectd-ebpf-hist: .*, last ' "$out" || true # judged below, by what it printed
snap=$(sed -n 's/^demo: collectd-ebpf-hist --snapshot \([^ ]*\) .*/\1/p' "$out" | head -n 1)
case "$snap" in /tmp/collectd-ebpf-demo.*/snapshot) ;; *) fail "demo names no snapshot of its own: $(head -n 5 "$out")" ;; esac
grep -q 'syscalls' "$snap" 2>/dev/null || fail "the demo did not publish its own snapshot in $snap"
# Its collectd log while it runs (the demo removes it on exit): the plugin's lines, and not the
# "Available write targets:: [none]" that collectd logs per value without a write plugin.
cp "$(dirname "$snap")/collectd.log" "$WORK/demo-collectd.log" || fail "the demo's collectd has no log"
grep -q 'ebpf plugin: [0-9]* of [0-9]* modules* running' "$WORK/demo-collectd.log" || fail "the demo's log has no plugin start"
n=$(grep -c 'Available write targets' "$WORK/demo-collectd.log" || true)
[ "$n" = 0 ] || fail "the demo's collectd logged \"Available write targets\" $n times: $(grep -m1 'Available write' "$WORK/demo-collectd.log")"
wait "$demo_pid" || fail "demo exited non-zero: $(tail -n 5 "$out")"
cat "$out"
grep -q 'attached via' "$out" || fail "demo did not show the plugin attaching"
grep -q "^collectd-ebpf-hist: $snap, last [0-9.]* s" "$out" || fail "demo showed no interval screen"
# The fsync histogram as BCC draws it: a unit header, then rows with counts and star bars.
grep -Eq '^  latency-fsync: [1-9][0-9]* events' "$out" || fail "demo showed no fsync latency histogram"
grep -Eq '^     (nsecs|usecs|msecs|secs) +: count     distribution$' "$out" || fail "no histogram header"
grep -Eq '^ +[0-9.]+ -> [0-9.]+ +: [1-9][0-9]* +\|\*+ *\|$' "$out" || fail "no histogram row with a star bar"
grep -Eq '^ +[0-9.]+ +[0-9]+  operations-[a-z_0-9]+$' "$out" || fail "demo showed no syscall rates"
# A rate's first value is "nan" in collectd's csv; the view computes its own and never shows one.
! grep -Eiq '(^| )-?nan( |$)' "$out" || fail "demo printed nan: $(grep -Ei '(^| )-?nan( |$)' "$out" | head -n 3)"
pass "demo shows the terminal view: the fsync histogram and syscall rates"

# Ctrl-C, the way README says to stop it: the terminal sends SIGINT to the foreground process
# group (the demo's shell, collectd-ebpf-hist, collectd). A session of its own gives it that
# group. stopped_by NAME SIGNAL TARGET START...: the demo started by the command START (its
# path the last argument) in a session of its own, once its view showed a screen, is sent SIGNAL to
# TARGET ("group": its process group, as Ctrl-C; "shell": its shell alone, as kill PID); it
# exits 0, removes its work directory and leaves no process behind.
stopped_by() {
	name=$1 sig=$2 target=$3
	shift 3
	out="$WORK/demo-$sig-$target.out"
	COLLECTD="$COLLECTD" PLUGINDIR="$WORK/plugins" HIST="$top_builddir/collectd-ebpf-hist" \
		setsid "$@" "$top_srcdir/contrib/demo.sh" > "$out" 2>&1 &
	demo_pid=$!
	wait_until 20 grep -q '^collectd-ebpf-hist: .*, last ' "$out" || demo_fail "$name: the demo showed no screen: $(tail -n 5 "$out")"
	snap=$(sed -n 's/^demo: collectd-ebpf-hist --snapshot \([^ ]*\) .*/\1/p' "$out" | head -n 1)
	if [ "$target" = group ]; then kill -"$sig" -"$demo_pid"; else kill -"$sig" "$demo_pid"; fi
	# The demo ends first: a demo that hangs fails here, not in wait below.
	wait_until 10 process_gone "$demo_pid" || demo_fail "$name: the demo still runs 10 s after SIG$sig: $(pgrep -a -s "$demo_pid")"
	rc=0
	wait "$demo_pid" || rc=$?
	[ "$rc" = 0 ] || demo_fail "$name: the demo exited $rc on SIG$sig, not 0: $(tail -n 5 "$out")"
	[ ! -e "$(dirname "$snap")" ] || demo_fail "$name: the demo left its work directory $(dirname "$snap")"
	# The workload's last `sleep 0.2` (or dd) may outlive the demo by that long; nothing else may
	# (collectd-ebpf-hist once ran on, printing "no such file" every 2 s).
	wait_until 5 session_empty || demo_fail "$name: the demo left processes running: $(pgrep -a -s "$demo_pid")"
	pass "$name: the demo exits 0 and leaves nothing behind"
}
session_empty() { ! pgrep -s "$demo_pid"; }
# demo_fail WHY: what fail says, after stopping what the demo left (its process group).
demo_fail() { kill -- -"$demo_pid" 2>/dev/null || :; fail "$1"; }
# env resets SIGINT, which a shell ignores for the commands it starts in the background.
stopped_by "Ctrl-C" INT group env --default-signal=INT sh
# Started with SIGINT ignored (by a script, in the background): the shell cannot trap it and
# its commands inherit it; the view once ignored it and ran on after collectd stopped.
stopped_by "Ctrl-C with SIGINT ignored at start" INT group sh -c 'trap "" INT; exec sh "$0"'
# kill of the shell alone: it once waited for the view before running its trap.
stopped_by "SIGTERM to the demo's shell" TERM shell sh
