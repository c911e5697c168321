#!/bin/sh
# Runs collectd in the foreground with the ebpf plugin and contrib/ebpf.conf, and shows
# what it measures in collectd-ebpf-hist, the terminal view: fsync latency as a log2
# histogram with star bars (as BCC's tools draw it) and the busiest syscalls per second,
# refreshed every interval. A small background workload makes a few fsync calls so there
# is something to see. Ctrl-C stops it; DEMO_SECONDS=N stops it after N seconds.
set -eu
# Ctrl-C must stop it however it was started: a shell cannot trap a signal that was ignored
# when it started (a script's background commands start with SIGINT ignored), so the demo
# starts itself again once with SIGINT at its default.
[ -n "${DEMO_SIGINT_DEFAULT:-}" ] || exec env --default-signal=INT DEMO_SIGINT_DEFAULT=1 sh "$0" "$@"
here=$(cd "$(dirname "$0")" && pwd)
# COLLECTD: another collectd binary or wrapper (the tests pass theirs).
collectd=${COLLECTD:-$(command -v collectd || echo /usr/sbin/collectd)}
[ -x "$collectd" ] || { echo "demo: collectd is not installed (apt-get install collectd-core)" >&2; exit 1; }
plugindir=${PLUGINDIR:-$("$collectd" -h | sed -n 's/^ *Plugin directory *//p')}
[ -f "$plugindir/ebpf.so" ] || {
	echo "demo: $plugindir/ebpf.so not found: run 'make install' after './configure --prefix=/usr'" >&2
	exit 1
}
hist=${HIST:-$(command -v collectd-ebpf-hist || true)}
[ -n "$hist" ] && [ -x "$hist" ] || {
	echo "demo: collectd-ebpf-hist not found in PATH: run 'make install' after './configure --prefix=/usr'" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || echo "demo: not root: the plugin will say which capabilities it lacks" >&2

work=$(mktemp -d /tmp/collectd-ebpf-demo.XXXXXX)
interval=2
cat > "$work/collectd.conf" <<CONF
Hostname "demo"
FQDNLookup false
Interval $interval
BaseDir "$work"
PIDFile "$work/collectd.pid"
PluginDir "$plugindir"
TypesDB "/usr/share/collectd/types.db"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$work/collectd.log"
</Plugin>
Include "$here/ebpf.conf"
# The view reads the snapshot, so no write plugin: values stop after collectd's cache
# instead of going to the built-in write target, which logs "Available write targets::
# [none]" for every value (thousands of lines a minute).
PostCacheChain "demo"
<Chain "demo">
  Target "stop"
</Chain>
# The demo's own snapshot file, the one the view reads: a collectd already running on this
# host keeps publishing to /run/collectd-ebpf/snapshot for its SNMP subagent, untouched.
<Plugin ebpf>
  SnapshotFile "$work/snapshot"
</Plugin>
CONF

"$collectd" -f -C "$work/collectd.conf" &
collectd_pid=$!
( while :; do dd if=/dev/zero of="$work/fsync.dat" bs=4k count=1 conv=fsync 2>/dev/null; sleep 0.2; done ) &
workload_pid=$!
hist_pid=
# Ctrl-C (the way to stop it) is a normal end: exit 0. Any other end keeps its own status.
# Everything the demo started stops with it: collectd, the workload, the view. The cleanup
# never fails: under set -e a failing kill or wait (one already gone, or its status 143 from
# the SIGTERM) would end the trap with status 1 before the rest ran.
cleanup() {
	trap - INT TERM HUP PIPE EXIT
	kill $collectd_pid $workload_pid $hist_pid 2>/dev/null || :
	wait $collectd_pid $workload_pid $hist_pid 2>/dev/null || :
	rm -rf "$work"
}
trap 'cleanup; exit 0' INT TERM HUP PIPE
trap 'rc=$?; cleanup; exit $rc' EXIT

i=0
# Until the plugin has started its modules (the snapshot can exist before: modules are
# published as configured first), so that the attach lines below are there.
until { [ -f "$work/snapshot" ] && grep -q 'ebpf plugin: [0-9]* of [0-9]* modules* running' "$work/collectd.log" 2>/dev/null; } ||
	[ $i -ge 200 ] || ! kill -0 $collectd_pid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
grep -h 'ebpf plugin' "$work/collectd.log" | tail -n 3 | sed 's/^/log: /'
[ -f "$work/snapshot" ] || { echo "demo: collectd published nothing in $work/snapshot (log above)" >&2; exit 1; }
echo "demo: collectd-ebpf-hist --snapshot $work/snapshot -i $interval (Ctrl-C stops)"
# In the background, waited for: a shell runs its traps only once a command in the foreground
# has ended, while `wait` returns at once for a trapped signal (so a plain kill stops it too).
# The view resets the SIGINT that a background command starts with ignored, so Ctrl-C, sent
# to the whole process group, stops it as well.
if [ -n "${DEMO_SECONDS:-}" ]; then
	timeout "$DEMO_SECONDS" "$hist" --snapshot "$work/snapshot" -i $interval --top 8 &
	hist_pid=$!
	wait $hist_pid || [ $? = 124 ]
	hist_pid=
else
	"$hist" --snapshot "$work/snapshot" -i $interval --top 8 &
	hist_pid=$!
	wait $hist_pid
	hist_pid=
fi
