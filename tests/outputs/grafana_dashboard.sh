#!/bin/sh
# contrib/grafana/collectd-ebpf.json against the real graphite-web: Grafana is not in Debian,
# so every query of the dashboard is sent to graphite-web as Grafana would send it (host
# filled in) after collectd with every module wrote through write_graphite to carbon and a
# workload ran. Each series path of each target must be found by /metrics/find and each
# target must /render to at least one non-null point: no panel is empty.
#
# Modules that need fentry or kprobes (fs, dcache, pagecache) are off on a kernel without
# both, as this CI host's; their targets are then only checked to parse (HTTP 200, no data)
# and listed. With EBPF_EXPECT_KFUNCS=1 (a kernel with them) every target must have data.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/outputs/graphite_lib.sh"

DASHBOARD="$top_srcdir/contrib/grafana/collectd-ebpf.json"
FSYNC_N="$top_builddir/tests/support/fsync_n"

"$PY" "$top_srcdir/tests/outputs/grafana_targets.py" "$DASHBOARD" itest > "$WORK/targets" ||
	fail "cannot list the dashboard's targets"
pass "$(wc -l < "$WORK/targets") targets in $(cut -f1 "$WORK/targets" | sort -u | wc -l) panels, all on \${datasource} and \$host"

start_carbon
start_graphite_web
# Every module, each with a Bucket so that every heatmap has series.
{ write_graphite_config; cat <<'CONF'; } | write_config "$WORK/collectd.conf"
<Plugin ebpf>
  <Module "syscalls">
    Latency "fsync" "read" "write"
    Bucket 0 0.001
    Bucket 0.001 0
  </Module>
  <Module "block">
    Bucket 0 0.001
    Bucket 0.001 0
  </Module>
  <Module "runqueue">
    Bucket 0 0.0001
    Bucket 0.0001 0
  </Module>
  <Module "tcp">
    Bucket 0 0.001
    Bucket 0.001 0
  </Module>
  <Module "process">
  </Module>
  <Module "vfs">
    Bucket 0 0.001
    Bucket 0.001 0
  </Module>
  <Module "fs">
    Bucket 0 0.001
    Bucket 0.001 0
  </Module>
  <Module "dcache">
  </Module>
  <Module "pagecache">
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
off=$(sed -n 's/.*ebpf plugin: module "\([a-z]*\)" is off:.*/\1/p' "$WORK/collectd.log" | sort -u | tr '\n' ' ')
if [ -n "$off" ]; then
	[ -z "${EBPF_EXPECT_KFUNCS:-}" ] || fail "modules off on a kernel expected to run them all: $off"
	for m in $off; do
		case $m in fs|dcache|pagecache) ;; *) fail "module $m is off: only fs, dcache and pagecache may be (no fentry/kprobes)" ;; esac
	done
	echo "modules off on this kernel (no fentry or kprobes): $off"
fi

# The workload, spread over a few intervals: fsync and file IO (syscalls, vfs, block on the
# disk under /var/tmp), fork+exec (process), TCP connects to graphite-web (tcp: each query
# is a new connection), and the scheduling all of that causes (runqueue).
for i in 1 2 3 4; do
	"$FSYNC_N" 50
	g_find 'itest.*' > /dev/null
	sleep 1
done

# Each target, as Grafana sends it; series appear as carbon creates them and rates need two
# points, so each is given up to 15 s.
checked=0 parsed_only=0
while IFS="$(printf '\t')" read -r panel target paths; do
	module=$(echo "$paths" | sed -n 's/^itest\.ebpf-\([a-z]*\)\..*/\1/p')
	case " $off " in
	*" ${module:-(all)} "*)
		g_render "$target" -5min > "$WORK/points" || fail "panel $panel: graphite-web cannot render $target"
		[ ! -s "$WORK/points" ] || fail "panel $panel: $target has data, but module $module is off"
		echo "panel $panel: $target parses; module $module is off on this kernel, no data to check"
		parsed_only=$((parsed_only + 1))
		continue ;;
	esac
	i=0
	until g_render "$target" -5min > "$WORK/points" && [ -s "$WORK/points" ]; do
		i=$((i + 1))
		[ $i -lt 15 ] || gfail "panel $panel: $target renders no data points after the workload"
		sleep 1
	done
	for p in $paths; do
		[ -n "$(g_find "$p" | grep '^leaf ')" ] || gfail "panel $panel: /metrics/find finds no series for $p"
	done
	echo "panel $panel: $target: $(cut -d' ' -f1 "$WORK/points" | sort -u | wc -l) series, $(wc -l < "$WORK/points") points"
	checked=$((checked + 1))
done < "$WORK/targets"
pass "$checked targets found and rendered with data; $parsed_only of modules that are off here parsed without data"
stop_collectd
