#!/bin/sh
# ebpf_exporter's cgroup_id_map in the real collectd: <Program> ExporterConfig reads
# tests/exporter/exporter_cgroup_ids.yaml (this project's own config and program in that
# format), whose cgroup_id_map keeps the cgroups named .../ebpf-it-cgid-<pid>/keep<N> in the
# program's hash cgroup_id_map; the program counts close() of a marker fd by cgroup, in the
# kept or the unkept counter as the map says. In a test cgroup with the children keep, other
# (made before collectd starts) and keep2 (made while it runs):
# - keep's 5 closes count as kept, other's 6 as unkept (the map was filled at start);
# - gauge-cgroup_ids-cgroup_id_map says 1, then 2 once keep2 exists (the map follows at the
#   next read), and keep2's 4 closes count as kept;
# - keep2 removed: its id leaves the map, the gauge is 1 again.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

cgroup2_root
PARENT=ebpf-it-cgid-$$
CG="$CG_ROOT/$PARENT"
mkdir "$CG" "$CG/keep" "$CG/other" || fail "cannot make the cgroups under $CG"
cg_cleanup() { rmdir "$CG/keep2" "$CG/keep" "$CG/other" "$CG" 2>/dev/null || true; cleanup; }
trap cg_cleanup EXIT INT TERM

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_cgroup_ids

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "cgids">
    ExporterConfig "$OBJ/exporter_cgroup_ids.yaml"
  </Program>
</Plugin>
CONF
"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the config with its cgroup_id_map"

# in_cgroup NAME COUNT: close_n, as process "w", closing the marker COUNT times in $CG/NAME
in_cgroup() { close_in_cgroup "$CG/$1" w "$2"; }
ids_are() { [ "$(awk -v v="$(csv_last cgids gauge-cgroup_ids-cgroup_id_map)" 'BEGIN { print v + 0 }')" = "$1" ]; }

start_collectd "$WORK/collectd.conf"
wait_for_log 'cgids: count_close attached' 10 || fail "the program did not attach"
wait_until 10 ids_are 1 || fail "gauge-cgroup_ids-cgroup_id_map is '$(csv_last cgids gauge-cgroup_ids-cgroup_id_map)', expected 1 (keep)"
in_cgroup keep 5
in_cgroup other 6
KEEP=derive-marked_closes_kept-${PARENT}_keep
OTHER=derive-marked_closes_unkept-${PARENT}_other
wait_until 5 csv_is cgids $KEEP 5 || fail "$KEEP is '$(csv_last cgids $KEEP)', expected 5; $(ls "$WORK/csv/itest/ebpf-cgids/" | tr '\n' ' ')"
wait_until 5 csv_is cgids $OTHER 6 || fail "$OTHER is '$(csv_last cgids $OTHER)', expected 6"
[ -z "$(ls "$WORK/csv/itest/ebpf-cgids/" | grep -e "^derive-marked_closes_unkept-${PARENT}_keep-" -e "^derive-marked_closes_kept-${PARENT}_other-")" ] ||
	fail "a cgroup counted on the wrong side: $(ls "$WORK/csv/itest/ebpf-cgids/" | tr '\n' ' ')"
pass "keep (in the map from the start): 5 closes kept; other: 6 unkept"

mkdir "$CG/keep2" || fail "cannot make $CG/keep2"
wait_until 10 ids_are 2 || fail "gauge-cgroup_ids-cgroup_id_map is '$(csv_last cgids gauge-cgroup_ids-cgroup_id_map)' after keep2 was made, expected 2"
in_cgroup keep2 4
wait_until 5 csv_is cgids ${KEEP}2 4 || fail "${KEEP}2 is '$(csv_last cgids ${KEEP}2)', expected 4"
pass "keep2, made while collectd ran: in the map at the next read, its 4 closes kept"

rmdir "$CG/keep2" || fail "cannot remove $CG/keep2"
wait_until 10 ids_are 1 || fail "gauge-cgroup_ids-cgroup_id_map is '$(csv_last cgids gauge-cgroup_ids-cgroup_id_map)' after keep2 was removed, expected 1"
[ "$(awk -v v="$(csv_last cgids gauge-cgroup_ids_unplaced-cgroup_id_map)" 'BEGIN { print v + 0 }')" = 0 ] ||
	fail "gauge-cgroup_ids_unplaced-cgroup_id_map is $(csv_last cgids gauge-cgroup_ids_unplaced-cgroup_id_map)"
pass "keep2 removed: its id left the map (1 id), none unplaced"
stop_collectd
