#!/bin/sh
# A kprobe and an fentry program through an ebpf_exporter config in the real collectd:
# <Program> ExporterConfig reads tests/exporter/exporter_sync.yaml (this project's own config
# and program in that format), whose programs are SEC("kprobe/ksys_sync") and
# SEC("fentry/ksys_sync"), each counting into its own counter. The workload's 73 sync() calls
# must read as exactly 73 in both.
#
# It runs where the kernel has kprobes and fentry: the kernel matrix (tests/vm/tests.list;
# tests/vm/init.sh sets EBPF_EXPECT_KFUNCS=1). Elsewhere (this project's CI machine: no
# kprobes, fentry refused) the program is off, with one error naming the program that could
# not attach and why, and the plugin, which has nothing else to run, unloads; with EBPF_EXPECT_KFUNCS=1 that fails.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

N=73
OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_sync
start_sync_workload $N
write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Program "ksync">
    ExporterConfig "$OBJ/exporter_sync.yaml"
    Param "filter_tgid" $WORKLOAD
  </Program>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
wait_for_log 'ebpf plugin: .*modules* running\|ebpf plugin: none of the' 10 || fail "the plugin did not say whether the program runs"

if grep -q 'ebpf plugin: module "ksync" is off' "$WORK/collectd.log"; then
	off=$(grep -m1 -o 'module "ksync" is off: .*' "$WORK/collectd.log")
	[ "${EBPF_EXPECT_KFUNCS:-0}" != 1 ] || fail "the program is off on a kernel expected to have kprobes and fentry: $off"
	case "$off" in
	*"no attach method works for sync_kprobe: kprobe"*|*"no attach method works for sync_fentry: fentry"*) ;;
	*) fail "the program is off without naming the program that could not attach: $off" ;;
	esac
	[ "$(grep -c 'ebpf plugin: module "ksync" is off' "$WORK/collectd.log")" = 1 ] || fail "the program's being off was said more than once"
	sleep 2
	[ ! -d "$WORK/csv/itest/ebpf-ksync" ] || fail "the program is off but sent values"
	pass "not available here, said once: $off"
	exit 0
fi

for p in sync_kprobe:kprobe sync_fentry:fentry; do
	wait_for_log "ksync: ${p%:*} attached via ${p#*:}\$" 10 || fail "${p%:*} did not attach as a ${p#*:} program"
done
pass "sync_kprobe attached as a kprobe, sync_fentry as fentry"
wait_for_csv ksync derive-sync_kprobe_calls 10 || fail "no first read of the program"
sync_workload_go
for c in sync_kprobe_calls sync_fentry_calls; do
	wait_until 10 csv_is ksync "derive-$c" $N ||
		fail "derive-$c is '$(csv_last ksync "derive-$c")', not the workload's $N sync() calls; series: $(ls "$WORK/csv/itest/ebpf-ksync/" | tr '\n' ' ')"
done
pass "the kprobe and the fentry program each counted exactly the workload's $N ksys_sync calls"
stop_collectd
