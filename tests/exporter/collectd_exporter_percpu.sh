#!/bin/sh
# Two map shapes of ebpf_exporter's examples in the real collectd, through <Program>
# ExporterConfig with tests/exporter/exporter_percpu.yaml (this project's own config and
# program in that format):
# - percpu-softirq's: a per-CPU array whose last label is `cpu` (size 2, uint), which
#   ebpf_exporter fills from each CPU's copy of the entry, not from the key. A workload pinned
#   with taskset closes the marker fd as "alpha" 3 times on the first online CPU and 2 times
#   on the second, as "beta" 5 times on the second: derive-cpu_closes-alpha-<first> 3,
#   -alpha-<second> 2, -other-<second> 5, -other-<first> 0, one series per CPU and kind; the
#   same map through a <Program> block with PerCPU "label": derive-alpha-cpu<first> 3 and so on.
# - regexp's: a map declared by key_size and value_size, without BTF types, its label read
#   by the size the YAML gives: derive-sized_closes-alpha 5, -beta 5.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

command -v taskset >/dev/null 2>&1 || skip "taskset is missing (apt-get install util-linux)"
[ "$(online_cpus | wc -l)" -ge 2 ] || skip "needs two online CPUs to pin the workload to"
CPU_A=$(online_cpus | sed -n 1p)
CPU_B=$(online_cpus | sed -n 2p)

OBJ="$WORK/objects"
install_exporter_configs "$OBJ" exporter_percpu

write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  <Program "percpu">
    ExporterConfig "$OBJ/exporter_percpu.yaml"
  </Program>
  <Program "cpulabel">
    Object "$OBJ/exporter_percpu.bpf.o"
    <Counter "cpu_closes_total">
      PerCPU "label"
      <Label "kind">
        Size 4
        Decode "static_map" "0=alpha" "1=other"
      </Label>
    </Counter>
  </Program>
</Plugin>
CONF

"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t.out" 2>&1 || { cat "$WORK/t.out" >&2; fail "collectd -T refused the config"; }
pass "collectd -T takes a per-CPU map's last label cpu and a map declared by key_size/value_size"

start_collectd "$WORK/collectd.conf"
wait_for_log 'percpu: count_close attached' 10 || fail "the program did not attach"
# Every CPU's copy of both entries is a series from the first read on, 0 before the workload.
wait_for_csv percpu "derive-cpu_closes-other-$CPU_A" 10 || fail "no series derive-cpu_closes-other-$CPU_A: $(series)"

# closes CPU COMM:COUNT: the marker closed COUNT times by a process named COMM pinned to CPU.
closes() {
	echo go | taskset -c "$1" "$top_builddir/tests/support/close_n" "$2" || fail "the workload on CPU $1 failed"
}
closes "$CPU_A" alpha:3
closes "$CPU_B" alpha:2
closes "$CPU_B" beta:5

# expect SERIES VALUE: the newest value of derive-SERIES becomes VALUE.
expect() {
	wait_until 5 csv_is percpu "derive-$1" "$2" || fail "derive-$1 is $(csv_last percpu "derive-$1"), expected $2"
}
expect "cpu_closes-alpha-$CPU_A" 3
expect "cpu_closes-alpha-$CPU_B" 2
expect "cpu_closes-other-$CPU_B" 5
expect "cpu_closes-other-$CPU_A" 0
pass "cpu label from the per-CPU copies: alpha 3 on CPU $CPU_A and 2 on CPU $CPU_B, other 5 on CPU $CPU_B and 0 on CPU $CPU_A"
for s in "alpha-cpu$CPU_A 3" "alpha-cpu$CPU_B 2" "other-cpu$CPU_B 5"; do
	set -- $s
	wait_until 5 csv_is cpulabel "derive-$1" "$2" || fail "<Program> PerCPU \"label\": derive-$1 is $(csv_last cpulabel "derive-$1"), expected $2"
done
pass "the same map through a <Program> block with PerCPU \"label\": the same counts as cpu<N> labels"
possible=$(tr ',' '\n' < /sys/devices/system/cpu/possible | awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n }')
wait_for_new_line percpu "derive-cpu_closes-alpha-$CPU_A"
n=$(ls "$WORK/csv/itest/ebpf-percpu/" | grep -c '^derive-cpu_closes-')
[ "$n" = $((2 * possible)) ] || fail "$n cpu_closes series, expected one per kind (2) and possible CPU ($possible): $(series)"
pass "one series per kind and CPU: $n"

expect sized_closes-alpha 5
expect sized_closes-beta 5
pass "a map declared by key_size and value_size: its label read by size, alpha 5 and beta 5"
stop_collectd
