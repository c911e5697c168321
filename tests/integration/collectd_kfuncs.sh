#!/bin/sh
# The real collectd daemon with the kernel-function modules (vfs, dcache, pagecache, fs)
# beside syscalls. Wherever this runs:
#   - vfs runs; N reads by dd grow operations-read by at least N, with latency and bytes
#     percentiles; gauge-approximation-read says whether it measures vfs_read (0) or the
#     read syscalls (1), and the log says the same;
#   - dcache, pagecache and fs each either run and send their values, or (a kernel without
#     fentry and kprobes, as this project's CI machine) log one error "is off: no attach
#     method works" and send nothing, while the others run.
. "$top_srcdir/tests/integration/lib.sh"

N=300
running_mods=

write_config "$WORK/collectd.conf" <<'CONF'
<Plugin ebpf>
  <Module "syscalls">
  </Module>
  <Module "vfs">
    Percentile 50
  </Module>
  <Module "dcache">
  </Module>
  <Module "pagecache">
  </Module>
  <Module "fs">
  </Module>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
grep -q 'ebpf plugin: [2-5] of 5 modules running' "$WORK/collectd.log" || fail "syscalls and vfs are not both running"
pass "$(grep -o '[0-9] of 5 modules running' "$WORK/collectd.log")"

for mod in dcache pagecache fs; do
	errors=$(grep -c "module \"$mod\" is off" "$WORK/collectd.log" || true)
	if [ "$errors" -gt 0 ]; then
		[ "$errors" = 1 ] || fail "$mod reported off $errors times, not once"
		grep -q "module \"$mod\" is off: no attach method works for" "$WORK/collectd.log" ||
			fail "$mod is off without saying which probe point has no attach method"
		pass "$mod is off, said once: $(grep -o "module \"$mod\" is off: no attach method works for [a-z0-9 ]*" "$WORK/collectd.log")"
		[ ! -d "$WORK/csv/itest/ebpf-$mod" ] || fail "$mod is off but sent values"
	else
		running_mods="$running_mods $mod"
	fi
done

# vfs: reads of a cached file, by a process of our own.
data="$WORK/vfs-data"
dd if=/dev/zero of="$data" bs=4096 count=16 2>/dev/null
dd if="$data" of=/dev/null bs=4096 2>/dev/null
wait_for_csv vfs operations-read 10 || fail "no operations-read value from the vfs module"
wait_for_new_line vfs operations-read
before=$(csv_last vfs operations-read)
i=0
while [ $i -lt $N ]; do dd if="$data" of=/dev/null bs=4096 count=1 2>/dev/null; i=$((i + 1)); done
wait_for_new_line vfs operations-read
wait_for_new_line vfs operations-read
after=$(csv_last vfs operations-read)
grown=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%d", a - b }')
echo "vfs reads: $before -> $after (+$grown, workload $N)"
[ "$grown" -ge $N ] || fail "operations-read grew by $grown, expected at least $N"
pass "vfs read count grew by at least N"

for ti in latency-read-50 latency-read-average bytes-read-50; do
	v=$(csv_last vfs "$ti")
	[ -n "$v" ] || fail "no vfs $ti value"
done
pass "vfs read latency and bytes percentiles sent"

approx=$(csv_last vfs gauge-approximation-read)
case "$approx" in
1*) grep -q 'vfs: read is an approximation' "$WORK/collectd.log" || fail "approximation not logged"
    [ "$(grep -c 'vfs: read is an approximation' "$WORK/collectd.log")" = 1 ] || fail "approximation logged more than once"
    pass "vfs reads are approximated by the read syscalls, said in the log and in gauge-approximation-read = 1" ;;
0*) grep -q 'vfs: read attached via \(fentry\|kprobe\):vfs_read' "$WORK/collectd.log" || fail "vfs_read hook not logged"
    pass "vfs reads measured at vfs_read (gauge-approximation-read = 0)" ;;
*) fail "no gauge-approximation-read value ($approx)" ;;
esac

for mod in $running_mods; do
	case $mod in
	dcache) wait_for_csv dcache derive-lookups 10 || fail "dcache runs but sends no lookups"
		wait_for_csv dcache percent-hit_ratio 10 || fail "dcache runs but sends no hit ratio" ;;
	pagecache) wait_for_csv pagecache derive-accesses 10 || fail "pagecache runs but sends no accesses" ;;
	fs) ls "$WORK/csv/itest/ebpf-fs/" >/dev/null 2>&1 || fail "fs runs but sends nothing" ;;
	esac
	pass "$mod runs and sends values"
done
stop_collectd
