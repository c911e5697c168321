#!/bin/sh
# Cgroup names anyone with a delegated subtree may choose, through `By "cgroup"` into the
# real collectd's write_prometheus and a real Prometheus server's scrape: one name that is
# not UTF-8 (bytes 0xff 0xfe), one with a C1 control (U+009B, a terminal's CSI) and one with
# a bidi override (U+202E) beside a well-named one. Invalid UTF-8 on write_prometheus' page
# made Prometheus refuse the whole host's scrape; base/text_rule.h's rule now writes each
# refused unit '_' (doc/modules.md, Names): the scrape stays up, every series is
# queryable under its escaped name, and collectd's log and csv names are valid UTF-8.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/outputs/prometheus_lib.sh"

BAD=$(printf 'bad\377\376') C1=$(printf 'c1\302\233x') BIDI=$(printf 'rlo\342\200\256exe')
test_cgroups ebpf-it-prom-names good "$BAD" "$C1" "$BIDI"
CG_BEFORE_REMOVAL=stop_prometheus
FSYNC_N="$top_builddir/tests/support/fsync_n"
write_config "$WORK/collectd.conf" <<CONF
$(write_prometheus_config)
<Plugin ebpf>
  SnapshotFile ""
  <Module "syscalls">
    Latency "fsync"
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*"
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
start_prometheus

# run CGROUP COUNT: fsync_n COUNT times from inside the cgroup.
run() { sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$CG_ROOT/$PARENT/$1" "$FSYNC_N" "$2" || fail "the workload in $1 failed"; }
run good 3
run "$BAD" 4
run "$C1" 5
run "$BIDI" 6
wait_exact "syscalls.${PARENT}_good" operations-fsync 3
UP='up{job="collectd"}'
ops() { echo "collectd_ebpf_operations_total{ebpf=\"syscalls.${PARENT}_$1\",type=\"fsync\"}"; }
wait_until 15 prom_is "$(ops good)" 3 ||
	pfail "Prometheus has '$(prom_value "$(ops good)")' for $(ops good), not 3; $UP is '$(prom_value "$UP")'"
prom_is "$UP" 1 || pfail "$UP is '$(prom_value "$UP")', not 1: the scrape was refused"

# The escaped names: each refused byte (0xff, 0xfe) and each refused character '_'.
for want in bad__:4 c1_x:5 rlo_exe:6; do
	wait_exact "syscalls.${PARENT}_${want%:*}" operations-fsync "${want#*:}"
done
pass "csv: the cgroups are syscalls.${PARENT}_good, _bad__, _c1_x and _rlo_exe"
for want in bad__:4 c1_x:5 rlo_exe:6; do
	wait_until 5 prom_is "$(ops "${want%:*}")" "${want#*:}" ||
		pfail "Prometheus has '$(prom_value "$(ops "${want%:*}")")' for $(ops "${want%:*}"), not ${want#*:}"
done
# Three scrapes at least in 5 s, every one accepted.
three_scrapes() { [ -n "$(prom_value "count_over_time(${UP}[5s]) >= 3")" ]; }
wait_until 10 three_scrapes || pfail "Prometheus did not scrape 3 times in 5 s: $(prom_query "${UP}[5s]")"
prom_is "min_over_time(${UP}[5s])" 1 || pfail "a scrape was refused in the last 5 s: $(prom_query "${UP}[5s]")"
pass "Prometheus: up 1, the well-named cgroup's and the escaped cgroups' series queryable"

iconv -f UTF-8 -t UTF-8 "$WORK/collectd.log" > /dev/null || fail "collectd's log is not valid UTF-8"
ls "$WORK/csv/itest" | iconv -f UTF-8 -t UTF-8 > /dev/null || fail "a csv directory's name is not valid UTF-8: $(series)"
! LC_ALL=C grep -q "$(printf '\302\233\|\342\200\256')" "$WORK/collectd.log" || fail "a C1 or bidi control reached collectd's log"
pass "collectd's log and csv names are valid UTF-8 without C1 or bidi controls"
stop_collectd
