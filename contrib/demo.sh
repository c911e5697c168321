#!/bin/sh
# Runs collectd in the foreground with the ebpf plugin and contrib/ebpf.conf, writing csv
# into a temporary directory, and prints the live metrics every interval: the busiest
# syscalls, the ones failing most, and fsync latency (a small background workload makes
# a few fsync calls so there is something to see). Ctrl-C stops it; DEMO_SECONDS=N stops
# it after N seconds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# COLLECTD: another collectd binary or wrapper (the tests pass theirs).
collectd=${COLLECTD:-$(command -v collectd || echo /usr/sbin/collectd)}
[ -x "$collectd" ] || { echo "demo: collectd is not installed (apt-get install collectd-core)" >&2; exit 1; }
plugindir=${PLUGINDIR:-$("$collectd" -h | sed -n 's/^ *Plugin directory *//p')}
[ -f "$plugindir/ebpf.so" ] || {
	echo "demo: $plugindir/ebpf.so not found: run 'make install' after './configure --prefix=/usr'" >&2
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
LoadPlugin csv
<Plugin csv>
  DataDir "$work/csv"
  StoreRates true
</Plugin>
Include "$here/ebpf.conf"
# The demo's own snapshot file: a collectd already running on this host keeps publishing
# to /run/collectd-ebpf/snapshot for its SNMP subagent, untouched by the demo.
<Plugin ebpf>
  SnapshotFile "$work/snapshot"
</Plugin>
CONF

"$collectd" -f -C "$work/collectd.conf" &
collectd_pid=$!
( while :; do dd if=/dev/zero of="$work/fsync.dat" bs=4k count=1 conv=fsync 2>/dev/null; sleep 0.2; done ) &
workload_pid=$!
trap 'kill $collectd_pid $workload_pid 2>/dev/null; wait $collectd_pid 2>/dev/null; rm -rf "$work"; exit 0' INT TERM HUP PIPE EXIT

# last VALUE-FILE-PREFIX: newest value of each matching csv file, as "name value". A rate's
# first line is "nan" (csv's StoreRates needs two reads): such series are left out until
# they have a number.
latest() {
	for f in "$work"/csv/demo/ebpf-syscalls/"$1"-*; do
		[ -f "$f" ] || continue
		name=${f##*/"$1"-}; name=${name%-????-??-??}
		v=$(tail -n 1 "$f" | cut -d, -f2)
		case "$v" in ""|nan|-nan|value) continue ;; esac
		printf '%s %s\n' "$name" "$v"
	done
}

start=$(date +%s)
while kill -0 $collectd_pid 2>/dev/null; do
	sleep $interval
	echo "=== collectd-ebpf live metrics, $(date '+%H:%M:%S') (csv in $work/csv) ==="
	grep -h 'ebpf plugin' "$work/collectd.log" | tail -n 3 | sed 's/^/log: /'
	echo "busiest syscalls (calls/s):"
	latest operations | sort -k2 -g -r | head -n 8 | awk '{ printf "  %-20s %10.1f\n", $1, $2 }'
	echo "failing syscalls (errors/s):"
	latest errors | sort -k2 -g -r | awk '$2 > 0' | head -n 5 | awk '{ printf "  %-20s %10.1f\n", $1, $2 }'
	echo "fsync latency (last interval):"
	latest latency | grep '^fsync-' | awk '{ printf "  %-20s %10.1f us\n", $1, $2 * 1e6 }'
	latest bucket | grep '^fsync-' | awk '{ printf "  %-20s %10.1f /s\n", $1, $2 }'
	if [ -n "${DEMO_SECONDS:-}" ] && [ $(( $(date +%s) - start )) -ge "$DEMO_SECONDS" ]; then
		break
	fi
done
