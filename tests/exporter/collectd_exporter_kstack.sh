#!/bin/sh
# ebpf_exporter's kstack decoder in the real collectd: <Program> ExporterConfig reads
# tests/exporter/exporter_kstack.yaml (this project's own config and program in that format:
# renames of a process to "kstk", keyed by the kernel stack bpf_get_stack gives at the
# task_rename tracepoint). The workload (tests/support/close_n) starts 7 children named
# "kstk" (prctl PR_SET_NAME, one rename each) and 3 named "kstx", which the program leaves
# out; the one series must count exactly 7 under a label that is the stack's frames,
# innermost first, joined by newlines (ebpf_exporter's text, each newline a '_' in a collectd
# name): __set_task_comm, which fires the tracepoint, then prctl's syscall function.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_kstack

start_gated_workload close_n kstk:0 kstx:0 kstk:0 kstk:0 kstx:0 kstk:0 kstk:0 kstx:0 kstk:0 kstk:0

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Program "kstack">
    ExporterConfig "$OBJ/exporter_kstack.yaml"
  </Program>
</Plugin>
CONF

"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes the config with its kstack decoder"

start_collectd "$WORK/collectd.conf"
wait_for_log 'kstack: count_rename attached' 10 || fail "the program did not attach"
echo go >&7
wait "$WORKLOAD" || fail "the workload failed"

DIR="$WORK/csv/itest/ebpf-kstack"
wait_until 5 sh -c "ls '$DIR' 2>/dev/null | grep -q '^derive-kstk_renames-'" || fail "no kstk_renames series"
ls "$DIR" | sed -n 's/^\(derive-kstk_renames-.*\)-[0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}$/\1/p' | sort -u > "$WORK/series"
[ "$(wc -l < "$WORK/series")" = 1 ] || { cat "$WORK/series" >&2; fail "not one stack: $(wc -l < "$WORK/series") series"; }
SERIES=$(cat "$WORK/series")
echo "series: $SERIES"
case "$SERIES" in
"derive-kstk_renames-__set_task_comm_"*_sys_prctl*) ;;
*) fail "the label is not __set_task_comm, a newline ('_'), then prctl's function: $SERIES" ;;
esac
case "$SERIES" in
*"??"*) fail "a frame kallsyms does not name: $SERIES" ;;
esac
pass "the label is the stack's frames, __set_task_comm first, then prctl's function"
wait_until 5 csv_is kstack "$SERIES" 7 || fail "$SERIES is $(csv_last kstack "$SERIES"), expected 7"
pass "exactly 7 renames counted under that stack, the 3 to another name none"
stop_collectd
