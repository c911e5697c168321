#!/bin/sh
# ebpf_exporter's regexp decoder in the real collectd: <Program> ExporterConfig reads
# tests/exporter/exporter_comm.yaml (this project's own config and program in that format:
# close() of a marker fd by command name, decoded by `string` then `regexp` with the patterns
# ^(worker)-.*$ and ^(db.*)$). The workload (tests/support/close_n) runs a process per
# command name, each closing the marker a known number of times:
# - worker-1 (3) and worker-2 (4) are two keys of one label "worker": derive-marked_closes-worker 7;
# - dbsync (5) matches the second pattern as a whole: derive-marked_closes-dbsync 5;
# - other (6) matches no pattern: its label set is dropped, as ebpf_exporter drops it (no
#   series sent), and gauge-unmatched-marked_closes_total counts its one key, where
#   ebpf_exporter loses it without a trace (0 before the workload).
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_comm

start_gated_workload close_n worker-1:3 worker-2:4 dbsync:5 other:6

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "comm">
    ExporterConfig "$OBJ/exporter_comm.yaml"
  </Program>
</Plugin>
CONF

"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the config with its regexp decoder"

start_collectd "$WORK/collectd.conf"
wait_for_log 'comm: count_close attached' 10 || fail "the program did not attach"
UNMATCHED=gauge-unmatched-marked_closes_total
wait_for_csv comm $UNMATCHED 10 || fail "no $UNMATCHED before the workload"
[ "$(awk -v v="$(csv_last comm $UNMATCHED)" 'BEGIN { print v + 0 }')" = 0 ] ||
	fail "$UNMATCHED is $(csv_last comm $UNMATCHED) before the workload, expected 0"
pass "$UNMATCHED is 0 before the workload"

echo go >&7
wait "$WORKLOAD" || fail "the workload failed"

wait_until 5 csv_is comm derive-marked_closes-worker 7 ||
	fail "derive-marked_closes-worker is $(csv_last comm derive-marked_closes-worker), expected 7 (3 + 4)"
pass "worker-1 and worker-2: group 1 of ^(worker)-.*\$ names both, exactly 7 closes"
wait_until 5 csv_is comm derive-marked_closes-dbsync 5 ||
	fail "derive-marked_closes-dbsync is $(csv_last comm derive-marked_closes-dbsync), expected 5"
pass "dbsync: the second pattern's group, exactly 5 closes"

unmatched_is_1() { [ "$(awk -v v="$(csv_last comm $UNMATCHED)" 'BEGIN { print v + 0 }')" = 1 ]; }
wait_until 5 unmatched_is_1 || fail "$UNMATCHED is $(csv_last comm $UNMATCHED), expected 1 (the key of \"other\")"
wait_for_new_line comm derive-marked_closes-worker
ls "$WORK/csv/itest/ebpf-comm/" > "$WORK/files"
[ "$(grep -c '^derive-marked_closes-' "$WORK/files")" = 2 ] || { cat "$WORK/files" >&2; fail "series besides worker and dbsync were sent"; }
pass "other: dropped (no series), counted as 1 key in $UNMATCHED"
stop_collectd
