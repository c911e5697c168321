#!/bin/sh
# KernelMemoryLimit with the real collectd -T (doc/modules.md, Memory): the plan is printed
# per module (maps, bytes, precision) before anything loads; a limit that `Latency "all"`
# does not fit at its default precision makes it record more coarsely, and then what the
# kernel charges for its maps (bytes-kernel_memory, from collectd -f) is within the limit; a limit that nothing fits refuses the module with an error naming the module,
# its largest map and the bytes, and collectd -T fails.
. "$top_srcdir/tests/support/lib.sh"

config() { # $1: KernelMemoryLimit
	write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile ""
  KernelMemoryLimit "$1"
  <Module "syscalls">
    Latency "all"
  </Module>
</Plugin>
CONF
}

# The default limit: the plan is printed, precision 3 (the 1 MiB rule for 360 rows).
config 64M
"$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t1.out" 2>&1 || { cat "$WORK/collectd.log" >&2; fail "collectd -T refused the default limit"; }
grep -q 'kernel memory plan at [0-9]* possible CPUs: .* of KernelMemoryLimit 64.0 MiB' "$WORK/collectd.log" ||
	fail "collectd -T printed no plan"
plan=$(grep -o 'kernel memory plan: syscalls: .*' "$WORK/collectd.log")
echo "$plan" | grep -q 'latency [0-9.]* KiB.*precision 3$' || fail "plan at 64M: $plan"
pass "collectd -T prints the plan: $plan"

# 300 KiB: Latency "all" needs 816 KiB of rows at precision 3; the plan lowers it until the
# module fits, and the module runs.
: > "$WORK/collectd.log"
config 300K
start_collectd "$WORK/collectd.conf"
wait_for_csv syscalls bytes-kernel_memory 10 || fail "collectd wrote no bytes-kernel_memory"
plan=$(grep -o 'kernel memory plan: syscalls: .*' "$WORK/collectd.log" | tail -n 1)
p=$(echo "$plan" | sed -n 's/.*precision \([0-9]\)$/\1/p')
[ -n "$p" ] && [ "$p" -lt 3 ] || fail "plan at 300K kept precision ${p:-?}: $plan"
grep -q 'syscalls: counting every syscall, latency for [0-9]* syscalls' "$WORK/collectd.log" ||
	fail "syscalls did not start with Latency \"all\" under 300K"
km=$(csv_last syscalls bytes-kernel_memory)
stop_collectd
awk -v k="$km" 'BEGIN { exit !(k > 0 && k <= 300 * 1024) }' || fail "bytes-kernel_memory $km is over KernelMemoryLimit 300K"
pass "300K: precision $p, the kernel charges $km bytes for the module's maps: within the limit"

# 8K: nothing fits, even at precision 0: refused, and with no module left collectd -T fails.
: > "$WORK/collectd.log"
config 8K
if "$COLLECTD" -T -C "$WORK/collectd.conf" > "$WORK/t3.out" 2>&1; then
	cat "$WORK/collectd.log" >&2
	fail "collectd -T accepted a limit no module fits"
fi
msg=$(grep -o 'module "syscalls" is off: its BPF maps need .*' "$WORK/collectd.log")
echo "$msg" | grep -q 'at [0-9]* possible CPUs (the largest, map "[a-z_.]*": [0-9.]* [KM]iB), but KernelMemoryLimit 8.0 KiB leaves 8.0 KiB for it; raise KernelMemoryLimit' ||
	fail "the refusal does not name the map, the bytes and the limit: ${msg:-nothing logged}"
pass "8K: $msg"
