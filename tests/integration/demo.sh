#!/bin/sh
# README's first command ends in contrib/demo.sh: it must start collectd with the bundled
# config and print live metrics (calls per second and fsync latency).
. "$top_srcdir/tests/integration/lib.sh"

out="$WORK/demo.out"
PLUGINDIR="$WORK/plugins" DEMO_SECONDS=5 sh "$top_srcdir/contrib/demo.sh" > "$out" 2>&1 || fail "demo exited non-zero"
cat "$out"
grep -q 'attached via' "$out" || fail "demo did not show the plugin attaching"
grep -A1 'busiest syscalls' "$out" | grep -Eq '^  [a-z_0-9]+ +[0-9.]+$' || fail "demo showed no syscall rates"
grep -Eq '^  fsync-99 +[0-9.]+ us$' "$out" || fail "demo showed no fsync latency"
pass "demo shows live metrics"
