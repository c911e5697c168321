#!/bin/sh
# A cgroup flood by an unprivileged user (doc/modules.md, By "cgroup"): a parent cgroup
# delegated to nobody (its directory and cgroup.procs nobody's, as systemd delegates
# user@UID.service), in which nobody makes FLOOD cgroups and visits each with one call of
# sched_rr_get_interval() (tests/engine/cgroup_flood), beside a service cgroup selected by
# `Cgroup`, with collectd run as nobody with the capabilities of the non-root setup
# (contrib/collectd-ebpf.service.d.conf): without CAP_DAC_READ_SEARCH, where cgroups are
# named by a walk of the hierarchy, and with it, where they are opened by their id.
# MaxSeries 20: the per-cgroup table (2 x 20 cgroups x 64 rows) holds far fewer rows than
# the flood makes (a few syscalls in each of its cgroups).
#
# Each way, with the flood's cgroups kept: the reads stay on time (a host-wide value every
# interval, none more than one interval late); the service, which runs right after the
# flood, keeps its exact per-cgroup fsync count, and no event found the table full: the
# glob "/<service>/*" names a directory, so the kernel gives the flood's cgroups no row
# (cgroup_select), whatever cgroup_ignored remembers; the host-wide sched_rr_get_interval
# count is exactly the flood's; collectd's RSS bounded. Without the capability the log says
# that cgroups are named by walking.
#
# Then the flood selected as well (a glob with a wildcard in its first directory: nothing to
# filter on in the kernel): the service, which took its place before, and 19 of the flood's
# cgroups have series, the rest is folded into other; the flood fills the table. Folded
# cgroups pin no row (other carries them): reads later the service's first fsync calls (new
# rows) are counted exactly and nothing more is dropped, other never goes back.
. "$top_srcdir/tests/support/lib.sh"

command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed to drop privileges"
cgroup2_root 'By "cgroup" names cgroup2 cgroups'
FLOOD=3000 K=37
F=$CG_ROOT/ebpf-it-flood-$$ SVC=ebpf-it-svc-$$
FLOOD_N="$top_builddir/tests/engine/cgroup_flood"
FSYNC_N="$top_builddir/tests/support/fsync_n"
mkdir "$F" || skip "cannot make a cgroup under $CG_ROOT"
cg_cleanup() {
	"$FLOOD_N" "$F" $FLOOD remove 2>/dev/null || true
	rmdir "$F/init" "$F" "$CG_ROOT/$SVC/s" "$CG_ROOT/$SVC" 2>/dev/null || true
	cleanup
}
trap cg_cleanup EXIT INT TERM
mkdir "$F/init" "$CG_ROOT/$SVC" "$CG_ROOT/$SVC/s" || fail "cannot make the test's cgroups"
# The delegation: nobody may make cgroups in F and move its processes between them.
chown 65534:65534 "$F" "$F/cgroup.procs" "$F/init/cgroup.procs" || fail "cannot give $F to nobody"
chmod 1777 "$WORK"

# flood_config FILE GLOB: syscalls By "cgroup", MaxSeries 20, the one Cgroup GLOB.
flood_config() {
	INTERVAL=1 write_config "$1" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Module "syscalls">
    By "cgroup"
    CgroupDepth 2
    Cgroup "$2"
    MaxSeries 20
  </Module>
</Plugin>
CONF
}
flood_config "$WORK/collectd.conf" "/$SVC/*"
flood_config "$WORK/selected.conf" "/ebpf-it-*"
dropin="$top_srcdir/contrib/collectd-ebpf.service.d.conf"
caps=$(sed -n 's/^AmbientCapabilities=//p' "$dropin" | tr 'A-Z ' 'a-z\n' | sed -n 's/^cap_/+/p' | paste -sd, -)
case ",$caps," in *,+dac_read_search,*) ;; *) fail "$dropin: AmbientCapabilities lacks CAP_DAC_READ_SEARCH ($caps)" ;; esac
rss_kib() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$COLLECTD_PID/status"; }
host() { csv_last syscalls "operations-$1"; }

# start_nobody CONF CAPS WHAT: collectd as nobody with CAPS, its first host-wide values.
start_nobody() {
	rm -f "$WORK/collectd.log" "$WORK/collectd.sock"
	rm -rf "$WORK/csv" "$WORK/rrd"
	start_collectd "$1" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,$2 --ambient-caps=$2
	wait_for_log '1 of 1 module running' 5 || fail "$3: collectd as nobody with $2 could not start the module"
	wait_for_csv syscalls operations-close 10 || fail "$3: no host-wide values"
	wait_for_new_line syscalls operations-close
}
# The flood, as nobody, from inside the delegated subtree.
flood() {
	sh -c 'echo $$ > "$1/init/cgroup.procs" && exec setpriv --reuid=65534 --regid=65534 --clear-groups "$2" "$1" "$3" 1' \
		sh "$F" "$FLOOD_N" $FLOOD || fail "the flood failed"
}
# in_service PROGRAM ARG...: PROGRAM run in the service's cgroup.
in_service() { sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG_ROOT/$SVC/s" "$@"; }
dropped() { csv_last syscalls derive-dropped-cgroup_full; }

# flood_pass CAPS WHAT: collectd as nobody with CAPS, the flood, the checks.
flood_pass() {
	start_nobody "$WORK/collectd.conf" "$1" "$2"
	rss_before=$(rss_kib)
	t0=$(date +%s)
	flood
	in_service "$FSYNC_N" $K || fail "$2: the service's fsync_n failed"
	wait_until 10 csv_is "syscalls.${SVC}_s" operations-fsync $K ||
		fail "$2: ebpf-syscalls.${SVC}_s/operations-fsync is '$(csv_last "syscalls.${SVC}_s" operations-fsync)', not $K; plugin instances: $(series)"
	wait_until 10 csv_is syscalls operations-sched_rr_get_interval $FLOOD ||
		fail "$2: host-wide operations-sched_rr_get_interval is '$(host sched_rr_get_interval)', not the flood's $FLOOD"
	# Three more reads with the flood's cgroups there.
	for i in 1 2 3; do wait_for_new_line syscalls operations-close; done
	csv_is "syscalls.${SVC}_s" operations-fsync $K || fail "$2: the service's count moved from $K"
	csv_is syscalls operations-sched_rr_get_interval $FLOOD || fail "$2: the host-wide count moved from $FLOOD"
	[ "$(dropped)" = 0 ] || fail "$2: derive-dropped-cgroup_full is '$(dropped)': the flood's cgroups took rows of the table"
	# Every read on time: consecutive host-wide values at most two intervals apart (one late).
	gaps=$(tail -n +2 "$(csv_file syscalls operations-close)" | cut -d, -f1 |
		awk -v t0="$t0" '$1 >= t0 - 1 { if (n++) { g = $1 - last; if (g > max) max = g } last = $1 } END { printf "%d %.2f", n, max }')
	set -- "$@" $gaps
	[ "$3" -ge 4 ] || fail "$2: only $3 host-wide values since the flood began"
	awk -v m="$4" 'BEGIN { exit !(m < 2) }' || fail "$2: a read came $4 s after the one before (Interval 1): reads held up by the flood"
	rss_after=$(rss_kib)
	if [ -z "${SANITIZER_RUNTIME:-}" ]; then
		[ $((rss_after - rss_before)) -lt 4096 ] || fail "$2: collectd's RSS grew by $((rss_after - rss_before)) kB through the flood"
	fi
	errors=$(grep -i -E 'error|fail' "$WORK/collectd.log" | grep -v 'rrdtool plugin' || true)
	[ -z "$errors" ] || fail "$2: collectd logged errors: $errors"
	pass "$2: $FLOOD cgroups; $3 reads since, at most $4 s apart; service ${SVC}_s $K fsync, none dropped; host-wide sched_rr_get_interval $FLOOD; VmRSS $rss_before -> $rss_after kB"
}

without=$(echo "$caps" | tr ',' '\n' | grep -v '^+dac_read_search$' | paste -sd, -)
flood_pass "$without" "without CAP_DAC_READ_SEARCH"
grep -q 'cgroup names: opening a cgroup by its id is refused (no CAP_DAC_READ_SEARCH): cgroups are named by walking' \
	"$WORK/collectd.log" || fail "without CAP_DAC_READ_SEARCH the log does not say that cgroups are named by walking"
pass "without CAP_DAC_READ_SEARCH: $(grep -o 'cgroup names: .*' "$WORK/collectd.log" | head -n 1)"
stop_collectd
flood_pass "$caps" "with CAP_DAC_READ_SEARCH"
! grep -q 'cgroup names:' "$WORK/collectd.log" || fail "with CAP_DAC_READ_SEARCH: $(grep 'cgroup names:' "$WORK/collectd.log")"
grep -q "syscalls: the Cgroup globs are applied in the kernel too: only cgroups below /$SVC take kernel rows" "$WORK/collectd.log" ||
	fail "the log does not say that the glob /$SVC/* is applied in the kernel: $(grep 'Cgroup globs' "$WORK/collectd.log")"
stop_collectd

# The flood selected too, collectd as nobody without CAP_DAC_READ_SEARCH.
"$FLOOD_N" "$F" $FLOOD remove || fail "cannot remove the flood's cgroups"
what="flood selected, without CAP_DAC_READ_SEARCH"
start_nobody "$WORK/selected.conf" "$without" "$what"
grep -q 'syscalls: the Cgroup globs are applied at each read only (a glob names no directory' "$WORK/collectd.log" ||
	fail "$what: the log does not say that the glob is applied at each read only: $(grep 'Cgroup globs' "$WORK/collectd.log")"
in_service true || fail "$what: the service's first process failed"
wait_until 10 csv_has_value "syscalls.${SVC}_s" operations-execve || fail "$what: the service got no series: $(series)"
flood
wait_until 10 csv_is syscalls operations-sched_rr_get_interval $FLOOD ||
	fail "$what: host-wide operations-sched_rr_get_interval is '$(host sched_rr_get_interval)', not the flood's $FLOOD"
for i in 1 2 3; do wait_for_new_line syscalls operations-close; done
d0=$(dropped)
[ "$d0" -gt 0 ] || fail "$what: the flood did not fill the table (derive-dropped-cgroup_full '$d0'): the test proves nothing"
in_service "$FSYNC_N" $K || fail "$what: the service's fsync_n failed"
wait_until 10 csv_is "syscalls.${SVC}_s" operations-fsync $K ||
	fail "$what: ebpf-syscalls.${SVC}_s/operations-fsync is '$(csv_last "syscalls.${SVC}_s" operations-fsync)', not $K: rows folded cgroups kept filled the table (derive-dropped-cgroup_full $d0 -> $(dropped))"
[ "$(dropped)" = "$d0" ] || fail "$what: derive-dropped-cgroup_full went on from $d0 to $(dropped) after the flood"
other=$(csv_values syscalls.other operations-sched_rr_get_interval)
echo "$other" | tr ' ' '\n' | awk 'NF && $1 < last { exit 1 } NF { last = $1 }' || fail "$what: other went back: $other"
[ -n "$other" ] || fail "$what: nothing of the flood in other"
pass "$what: service ${SVC}_s $K fsync in new rows reads after the flood; $d0 events dropped during the flood, none since; other $(csv_last syscalls.other operations-sched_rr_get_interval), never back"
stop_collectd
