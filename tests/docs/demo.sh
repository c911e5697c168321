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
# group; env resets SIGINT, which a shell ignores for the commands it starts in the background.
out="$WORK/demo-int.out"
COLLECTD="$COLLECTD" PLUGINDIR="$WORK/plugins" HIST="$top_builddir/collectd-ebpf-hist" \
	setsid env --default-signal=INT sh "$top_srcdir/contrib/demo.sh" > "$out" 2>&1 &
demo_pid=$!
wait_until 20 grep -q '^collectd-ebpf-hist: .*, last ' "$out" || fail "the demo showed no screen: $(tail -n 5 "$out")"
snap=$(sed -n 's/^demo: collectd-ebpf-hist --snapshot \([^ ]*\) .*/\1/p' "$out" | head -n 1)
kill -INT -"$demo_pid"
rc=0
wait "$demo_pid" || rc=$?
[ "$rc" = 0 ] || fail "the demo exited $rc on Ctrl-C (SIGINT to its process group), not 0: $(tail -n 5 "$out")"
[ ! -e "$(dirname "$snap")" ] || fail "the demo left its work directory $(dirname "$snap") after Ctrl-C"
# The workload's last `sleep 0.2` (or dd) may outlive the demo by that long; nothing else may.
session_empty() { ! pgrep -s "$demo_pid"; }
wait_until 5 session_empty || fail "the demo left processes running after Ctrl-C: $(pgrep -a -s "$demo_pid")"
pass "Ctrl-C stops the demo with exit status 0 and leaves nothing behind"
