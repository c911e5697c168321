# Shared by the integration tests: runs the real collectd daemon with this build's
# ebpf.so next to collectd's own plugins, in a throw-away directory.
#
# collectd loads plugins from one PluginDir and refuses symlinks, so the plugins are
# copied into $WORK/plugins.

set -eu

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; [ -f "${WORK:-/nonexistent}/collectd.log" ] && sed 's/^/  log: /' "$WORK/collectd.log" >&2; exit 1; }
pass() { echo "ok: $*"; }

: "${top_builddir:?run through make check}"
: "${COLLECTD:=$(command -v collectd || echo /usr/sbin/collectd)}"
[ -x "$COLLECTD" ] || skip "the collectd daemon is not installed (apt-get install collectd-core)"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF programs"
PLUGIN_SO="$top_builddir/.libs/ebpf.so"
[ -f "$PLUGIN_SO" ] || fail "$PLUGIN_SO not built"
STOCK_PLUGINDIR=$("$COLLECTD" -h | sed -n 's/^ *Plugin directory *//p')
TYPESDB=/usr/share/collectd/types.db
# The self-metrics a module or program sends beside its own values (doc/modules.md,
# Self-metrics), as `grep -v` arguments: a test that lists one's csv files to find stray
# values leaves these out, so that a new self-metric is added here once.
SELF_METRICS="-e ^percent-map_fill -e ^percent-cpu_cost -e ^gauge-sample_rate -e ^gauge-attach -e ^derive-dropped- -e ^derive-missed- -e ^bytes-kernel_memory"
[ -f "$TYPESDB" ] || skip "collectd's types.db is missing ($TYPESDB)"
# A classic tracepoint program (the tests' own, users') attaches by the id tracefs gives, and
# tracefs is mounted at boot by systemd only: mounted here as the plugin's error tells users,
# so that no test depends on an earlier one having mounted it (module_test.h does the same).
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing ||
	skip "tracefs is not mounted and cannot be: mount -t tracefs nodev /sys/kernel/tracing"

WORK=$(mktemp -d /tmp/ebpf-it.XXXXXX)
chmod 755 "$WORK"
COLLECTD_PID=
# Never stops early: under set -e, a failing kill or wait (collectd already gone, killed by
# the signal) would end the trap before the work directory is removed.
cleanup() {
	if [ -n "$COLLECTD_PID" ]; then
		kill "$COLLECTD_PID" 2>/dev/null || true
		wait "$COLLECTD_PID" 2>/dev/null || true
	fi
	san=0
	sanitizer_reports || san=1
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
	[ "$san" = 0 ] || exit 1
}
# --enable-sanitizers: a test passes only if no daemon it ran (collectd, the subagent) wrote a
# sanitizer report into its logs; a daemon the test stops has no exit status to say so.
sanitizer_reports() {
	[ -n "${SANITIZER_RUNTIME:-}" ] || return 0
	reports=$(grep -l -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$WORK"/*.log "$WORK"/*.stdout 2>/dev/null) || return 0
	for r in $reports; do echo "FAIL: sanitizer report in $r:" >&2; sed 's/^/  /' "$r" >&2; done
	return 1
}
trap cleanup EXIT INT TERM

mkdir -p "$WORK/plugins"
for p in csv rrdtool logfile unixsock; do
	cp "$STOCK_PLUGINDIR/$p.so" "$WORK/plugins/" || skip "collectd plugin $p.so missing from $STOCK_PLUGINDIR"
done
cp "$PLUGIN_SO" "$WORK/plugins/ebpf.so"

# write_config FILE: the common part, then stdin (the <Plugin ebpf> block) appended.
write_config() {
	cat > "$1" <<CONF
Hostname "itest"
FQDNLookup false
Interval ${INTERVAL:-1}
BaseDir "$WORK"
PIDFile "$WORK/collectd.pid"
PluginDir "$WORK/plugins"
TypesDB "$TYPESDB"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$WORK/collectd.log"
  Timestamp true
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$WORK/csv"
</Plugin>
LoadPlugin rrdtool
<Plugin rrdtool>
  DataDir "$WORK/rrd"
</Plugin>
LoadPlugin unixsock
<Plugin unixsock>
  SocketFile "$WORK/collectd.sock"
</Plugin>
LoadPlugin ebpf
CONF
	cat >> "$1"
}

# start_collectd CONFIG [wrapper...]: starts collectd -f and waits for its read loop.
start_collectd() {
	conf=$1; shift
	"$@" "$COLLECTD" -f -C "$conf" >> "$WORK/collectd.stdout" 2>&1 &
	COLLECTD_PID=$!
	wait_for_log "Initialization complete" 20 || fail "collectd did not start"
}

stop_collectd() {
	kill "$COLLECTD_PID" && wait "$COLLECTD_PID" 2>/dev/null || true
	COLLECTD_PID=
}

# kill_collectd: SIGKILL, as a crash would end it (no cleanup of its own); it must still be
# running to be killed.
kill_collectd() {
	kill -9 "$COLLECTD_PID" || fail "collectd (pid $COLLECTD_PID) was gone before the SIGKILL"
	wait "$COLLECTD_PID" 2>/dev/null || true
	COLLECTD_PID=
}

# write_syscalls_config FILE SNAPSHOT GROUP [LINE...]: write_config with the syscalls module
# and publishing SNAPSHOT (owned by GROUP; "" leaves collectd's own), the LINEs added inside
# that module; stdin (more <Module> blocks) appended inside the plugin. One writer of this
# block for the tests that want the module as it is and those that want fsync latency.
write_syscalls_config() {
	_conf=$1 _snap=$2 _group=$3; shift 3
	{
		echo "<Plugin ebpf>"
		echo "  SnapshotFile \"$_snap\""
		[ -z "$_group" ] || echo "  SnapshotGroup \"$_group\""
		echo '  <Module "syscalls">'
		for _line in "$@"; do echo "    $_line"; done
		echo '  </Module>'
		cat
		echo "</Plugin>"
	} | write_config "$_conf"
}

# write_fsync_config FILE SNAPSHOT GROUP [LINE...]: write_syscalls_config with the module
# recording fsync latency (its first LINE).
write_fsync_config() {
	_conf=$1 _snap=$2 _group=$3; shift 3
	write_syscalls_config "$_conf" "$_snap" "$_group" 'Latency "fsync"' "$@"
}

# wait_until SECONDS COMMAND...: polls every 0.1 s until COMMAND succeeds (its output dropped).
wait_until() {
	_tries=$(($1 * 10)); shift
	while ! "$@" >/dev/null 2>&1; do
		_tries=$((_tries - 1)); [ $_tries -gt 0 ] || return 1
		sleep 0.1
	done
}

# process_gone PID: the process has ended (a zombie, not yet waited for, has ended).
process_gone() { ! ps -o stat= -p "$1" | grep -qv Z; }

# wait_for_log PATTERN SECONDS [LOG]: until LOG (collectd's own by default) has PATTERN.
wait_for_log() {
	wait_until "$2" grep -q -- "$1" "${3:-$WORK/collectd.log}"
}

# csv_file PLUGIN_INSTANCE TYPE-INSTANCE: today's csv file of one value.
csv_file() {
	ls "$WORK/csv/itest/ebpf-$1/$2-"* 2>/dev/null | tail -n 1
}

# csv_last PLUGIN_INSTANCE TYPE-INSTANCE: the newest value written.
csv_last() {
	f=$(csv_file "$1" "$2")
	[ -n "$f" ] || { echo ""; return; }
	tail -n 1 "$f" | cut -d, -f2
}

# csv_has_value PLUGIN_INSTANCE TYPE-INSTANCE: the file has at least one value (not only
# its header line).
csv_has_value() {
	case "$(csv_last "$1" "$2")" in ""|value) return 1 ;; esac
}

# csv_is PLUGIN_INSTANCE TYPE-INSTANCE VALUE: the newest value written is VALUE.
csv_is() {
	[ "$(csv_last "$1" "$2")" = "$3" ]
}

# csv_had_seconds PLUGIN_INSTANCE TYPE-INSTANCE: every value written is a time in seconds
# (0 to 10) and at least one is above 0 (an interval without events writes 0).
csv_had_seconds() {
	_f=$(csv_file "$1" "$2")
	[ -n "$_f" ] && tail -n +2 "$_f" | cut -d, -f2 | awk '$1 > 0 { seen = 1 } $1 < 0 || $1 >= 10 { bad = 1 } END { exit bad || !seen }'
}
# csv_values PLUGIN_INSTANCE TYPE-INSTANCE: every value written, on one line (for messages).
csv_values() { _f=$(csv_file "$1" "$2"); [ -n "$_f" ] && tail -n +2 "$_f" | cut -d, -f2 | tr '\n' ' '; }

# wait_for_csv PLUGIN_INSTANCE TYPE-INSTANCE SECONDS: until the file has at least one value.
wait_for_csv() {
	wait_until "$3" csv_has_value "$1" "$2"
}

# wait_for_new_line PLUGIN_INSTANCE TYPE-INSTANCE: waits for one more read than now.
wait_for_new_line() {
	f=$(csv_file "$1" "$2")
	n=$(wc -l < "$f")
	i=0
	while [ "$(wc -l < "$f")" -le "$n" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

# cgroup2_root [WHAT]: sets CG_ROOT to the cgroup2 mount, or skips the test without one (WHAT:
# what of the test needs it, for the message). Every cgroup test finds the mount so.
cgroup2_root() {
	CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[ -n "$CG_ROOT" ] || skip "no cgroup2 mount${1:+ ($1)}"
}

# test_cgroups PREFIX CHILD...: a private parent PREFIX-<pid> (PARENT) in the cgroup2 mount
# (CG_ROOT), depth 1, with the CHILD cgroups in it (depth 2: CgroupDepth 2 is theirs); removed
# when the test exits, then cleanup. A test with more to undo first (processes still in the
# cgroups, a loop device) names its function in CG_BEFORE_REMOVAL. Skips without a cgroup2
# mount.
CG_BEFORE_REMOVAL=
test_cgroups() {
	cgroup2_root 'By "cgroup" names cgroup2 cgroups'
	PARENT=$1-$$
	shift
	CG_CHILDREN=$*
	trap remove_test_cgroups EXIT INT TERM
	mkdir "$CG_ROOT/$PARENT" || skip "cannot make a cgroup under $CG_ROOT"
	for c in $CG_CHILDREN; do mkdir "$CG_ROOT/$PARENT/$c" || fail "cannot make the cgroup $PARENT/$c"; done
}
remove_test_cgroups() {
	[ -z "$CG_BEFORE_REMOVAL" ] || $CG_BEFORE_REMOVAL
	for c in $CG_CHILDREN; do rmdir "$CG_ROOT/$PARENT/$c" 2>/dev/null || true; done
	rmdir "$CG_ROOT/$PARENT" 2>/dev/null || true
	cleanup
}

# series: the plugin instances collectd wrote, on one line (for messages).
series() { ls "$WORK/csv/itest/" | tr '\n' ' '; }

# wait_exact PLUGIN_INSTANCE TYPE-INSTANCE WANT: until collectd wrote WANT, else fail, with what
# the test's function named in WAIT_EVIDENCE (if any) prints about it.
WAIT_EVIDENCE=
wait_exact() {
	wait_until 15 csv_is "$1" "$2" "$3" ||
		fail "ebpf-$1/$2 is '$(csv_last "$1" "$2")', not $3; plugin instances: $(series)${WAIT_EVIDENCE:+; $($WAIT_EVIDENCE)}"
}

# hist_field METRIC INSTANCE FIELD: that field of a histogram's line in the snapshot
# $WORK/snap/snapshot (histogram <metric> <instance> <unit> <precision> <count> ...: 5 the
# precision, 6 the lifetime count); hist_count METRIC INSTANCE: its count; hist_is ... WANT:
# the count is WANT.
hist_field() {
	awk -F'\t' -v m="$1" -v i="$2" -v f="$3" '$1 == "histogram" && $2 == m && $3 == i { print $f }' "$WORK/snap/snapshot"
}
hist_count() { hist_field "$1" "$2" 6; }
hist_is() { [ "$(hist_count "$1" "$2")" = "$3" ]; }

# budget_held MODULE BUDGET WHAT: after a storm under CpuBudget BUDGET (percent of one CPU)
# and collectd stopped, MODULE's costs held it (doc/modules.md, Cost): of the first read over
# the budget and the three after it, one sampled at or under the budget within 20%; WARNING
# notifications of the step to "WHAT sampled 1 in 2" and OKAY of "WHAT measured 1 in 1 again".
# A read's sample_rate line is the N it set, so a cost read was measured at the N of the read
# before it.
budget_held() {
	_costs=$(csv_values "$1" percent-cpu_cost) _rates=$(csv_values "$1" gauge-sample_rate)
	echo "cost:        $_costs"
	echo "sample_rate: $_rates"
	awk -F, -v b="$2" 'FNR == 1 { file++; next }
	file == 1 { rate[$1] = $2; next }
	{ n++; t[n] = $1; c[n] = $2 }
	END {
		for (i = 1; i <= n; i++) if (c[i] > b) { first = i; break }
		if (!first) { print "never over the budget"; exit 1 }
		for (i = first + 1; i <= first + 3 && i <= n; i++)
			if (rate[t[i - 1]] >= 2 && c[i] <= 1.2 * b) { print "read " i - first " after the first over (" c[first] "%): " c[i] "% at 1 in " rate[t[i - 1]]; exit 0 }
		print "not sampled and at or under 1.2 x the budget within three reads of the first over"; exit 1
	}' "$(csv_file "$1" gauge-sample_rate)" "$(csv_file "$1" percent-cpu_cost)" > "$WORK/held" ||
		fail "$(cat "$WORK/held"): budget $2%, costs $_costs, sample_rate $_rates"
	pass "held: budget $2%, $(cat "$WORK/held")"
	grep -q "Notification: severity = WARNING.*type_instance = cost.*$3 sampled 1 in 2," "$WORK/collectd.log" ||
		fail "no WARNING notification of the step to 1 in 2: $(grep Notification "$WORK/collectd.log")"
	grep -q "Notification: severity = OKAY.*type_instance = cost.*$3 measured 1 in 1 again" "$WORK/collectd.log" ||
		fail "no OKAY notification of the step back to 1 in 1: $(grep Notification "$WORK/collectd.log")"
	pass "$(grep -c "Notification: .*type_instance = cost" "$WORK/collectd.log") notifications, e.g. $(grep -m 1 -o 'Notification: severity = WARNING.*type_instance = cost.*' "$WORK/collectd.log" | sed 's/.*message = //')"
}

# collectd_t CONF MESSAGE: collectd -T on CONF, its output in $WORK/check.out; if it fails,
# the test fails showing that output, with MESSAGE.
collectd_t() {
	"$COLLECTD" -T -C "$1" > "$WORK/check.out" 2>&1 || { cat "$WORK/check.out" >&2; fail "$2"; }
}

# For the tests that run a document's walk as printed (README's, doc/programs.md's).
# doc_walk FILE NAME: the sh blocks of FILE between <!-- NAME and <!-- /NAME -->.
doc_walk() {
	awk -v first="<!-- $2" -v last="<!-- /$2" 'index($0, first) == 1 { on = 1; next } index($0, last) == 1 { on = 0 }
		on && /^```sh$/ { code = 1; next } code && /^```$/ { code = 0; next } code' "$1"
}
# walk_collectd_conf OUT: contrib/collectd.conf, moved into $WORK by the caller (on stdin), as
# the walks' host has it: plugins from the build tree, 1 s intervals.
walk_collectd_conf() {
	sed 's/^Interval 10$/Interval 1/' | sed "1i PluginDir \"$WORK/plugins\"" > "$1"
	grep -q '^Interval 1$' "$1" || fail "contrib/collectd.conf has no Interval 10 line"
}
# walk_ebpf_conf SNAPSHOT OUT: contrib/ebpf.conf with its SnapshotFile moved to SNAPSHOT (in $WORK).
walk_ebpf_conf() {
	sed "s|^<Plugin ebpf>\$|&\\n  SnapshotFile \"$1\"|" "$top_srcdir/contrib/ebpf.conf" > "$2"
	grep -q "SnapshotFile \"$WORK/" "$2" || fail "contrib/ebpf.conf has no <Plugin ebpf> line"
}
