#!/bin/sh
# README's first command ends in contrib/demo.sh: it must start collectd with the bundled
# config and print live metrics (calls per second and fsync latency), never "nan", and
# publish its SNMP snapshot to a file of its own.
. "$top_srcdir/tests/integration/lib.sh"

out="$WORK/demo.out"
COLLECTD="$COLLECTD" PLUGINDIR="$WORK/plugins" DEMO_SECONDS=5 sh "$top_srcdir/contrib/demo.sh" > "$out" 2>&1 &
demo_pid=$!
# While it runs: its SNMP snapshot is a file of its own, in its work directory, never a
# running collectd's /run/collectd-ebpf/snapshot (which the demo would overwrite, then
# remove on exit).
i=0
until grep -q '^=== collectd-ebpf live metrics' "$out" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
demo_work=$(sed -n 's/^=== .*(csv in \(.*\)\/csv).*/\1/p' "$out" | head -n 1)
[ -n "$demo_work" ] || fail "demo printed no work directory: $(head -n 5 "$out")"
grep -q 'syscalls' "$demo_work/snapshot" 2>/dev/null || fail "the demo did not publish its own snapshot in $demo_work/snapshot"
wait "$demo_pid" || fail "demo exited non-zero"
cat "$out"
grep -q 'attached via' "$out" || fail "demo did not show the plugin attaching"
grep -A1 'busiest syscalls' "$out" | grep -Eq '^  [a-z_0-9]+ +[0-9.]+$' || fail "demo showed no syscall rates"
grep -Eq '^  fsync-99 +[0-9.]+ us$' "$out" || fail "demo showed no fsync latency"
# A rate's first csv line is "nan": the demo must not print it as a value.
! grep -Eiq '(^| )-?nan( |$)' "$out" || fail "demo printed nan: $(grep -Ei '(^| )-?nan( |$)' "$out" | head -n 3)"
pass "demo shows live metrics"
