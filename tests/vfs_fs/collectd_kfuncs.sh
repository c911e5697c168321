#!/bin/sh
# The real collectd daemon with the kernel-function modules (vfs, dcache, pagecache, fs)
# beside syscalls.
#
# Where kernel-function methods exist (the kernel has kprobes, or EBPF_EXPECT_KFUNCS=1 says
# it has fentry or kprobes: tests/vm/init.sh sets it in the kernel matrix), every module must
# run and report figures of known workloads, on a scratch ext4 on a loop device:
#   - vfs: N reads by dd grow operations-read by at least N, measured at vfs_read
#     (gauge-approximation-read = 0, and the log names fentry:vfs_read or kprobe:vfs_read);
#   - fs: those N reads and their N opens are exactly N ext4-read and N ext4-open operations
#     (nothing else touches that filesystem), with latency percentiles;
#   - pagecache: the N reads of a cached page are at least N page-cache accesses;
#   - dcache: N stat() calls of distinct missing names are at least N lookups and N misses.
# Elsewhere (a kernel without fentry and kprobes, as this project's CI machine): vfs runs on
# the read syscalls and says it approximates; dcache, pagecache and fs each log one error
# "is off: no attach method works" and send nothing, while the others run.
. "$top_srcdir/tests/support/lib.sh"

N=300

kfuncs=no
if [ "${EBPF_EXPECT_KFUNCS:-0}" = 1 ] || [ -d /sys/bus/event_source/devices/kprobe ]; then
	kfuncs=yes
fi
echo "kernel-function methods expected: $kfuncs"

# The scratch ext4: mounted before collectd starts, so /proc/filesystems lists ext4 (where it
# is a module) when the fs module picks its filesystems; undone before lib.sh removes $WORK.
LOOP='' MNT=''
teardown_ext4() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	MNT='' LOOP=''
}
trap 'teardown_ext4; cleanup' EXIT INT TERM
if [ $kfuncs = yes ]; then
	for tool in losetup mkfs.ext4; do
		command -v $tool >/dev/null || fail "$tool is missing: the kernel-function checks need a scratch ext4 (apt-get install mount e2fsprogs)"
	done
	dd if=/dev/zero of="$WORK/ext4.img" bs=1M count=0 seek=32 2>/dev/null
	dev=$(losetup -f) || fail "no free loop device"
	losetup "$dev" "$WORK/ext4.img" || fail "cannot attach $WORK/ext4.img to $dev"
	LOOP=$dev
	mkfs.ext4 -q -F "$LOOP" || fail "mkfs.ext4 $LOOP failed"
	mkdir "$WORK/ext4"
	mount -t ext4 "$LOOP" "$WORK/ext4" || fail "cannot mount $LOOP (ext4) on $WORK/ext4"
	MNT="$WORK/ext4"
	data="$MNT/vfs-data"
else
	data="$WORK/vfs-data"
fi

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
    Percentile 50
  </Module>
</Plugin>
CONF

start_collectd "$WORK/collectd.conf"
if [ $kfuncs = yes ]; then
	grep -q 'ebpf plugin: 5 of 5 modules running' "$WORK/collectd.log" || fail "not all 5 modules are running on a kernel with kernel-function methods"
else
	grep -q 'ebpf plugin: [2-5] of 5 modules running' "$WORK/collectd.log" || fail "syscalls and vfs are not both running"
fi
pass "$(grep -o '[0-9] of 5 modules running' "$WORK/collectd.log")"

running_mods=
for mod in dcache pagecache fs; do
	errors=$(grep -c "ebpf plugin: module \"$mod\" is off" "$WORK/collectd.log" || true)
	if [ "$errors" -gt 0 ]; then
		[ $kfuncs = no ] || fail "$mod is off although this kernel has kernel-function methods"
		[ "$errors" = 1 ] || fail "$mod reported off $errors times, not once"
		grep -q "module \"$mod\" is off: no attach method works for" "$WORK/collectd.log" ||
			fail "$mod is off without saying which probe point has no attach method"
		pass "$mod is off, said once: $(grep -o "module \"$mod\" is off: no attach method works for [a-z0-9 ]*" "$WORK/collectd.log")"
		[ ! -d "$WORK/csv/itest/ebpf-$mod" ] || fail "$mod is off but sent values"
	else
		# Without kprobes, only fentry could run it: say so rather than check it without the
		# scratch ext4 and baselines the checks below need.
		[ $kfuncs = yes ] || fail "$mod runs on a kernel without kprobes (fentry?): run with EBPF_EXPECT_KFUNCS=1"
		running_mods="$running_mods $mod"
	fi
done

# One read of a cached page per dd process: one open and one read of $data each.
dd if=/dev/zero of="$data" bs=4096 count=16 2>/dev/null
dd if="$data" of=/dev/null bs=4096 2>/dev/null
wait_for_csv vfs operations-read 10 || fail "no operations-read value from the vfs module"
if [ $kfuncs = yes ]; then
	wait_for_csv fs operations-ext4-read 10 || fail "no operations-ext4-read value from the fs module"
	wait_for_csv fs operations-ext4-open 10 || fail "no operations-ext4-open value from the fs module"
	wait_for_csv pagecache derive-accesses 10 || fail "no derive-accesses value from the pagecache module"
	wait_for_csv dcache derive-misses 10 || fail "no derive-misses value from the dcache module"
fi
wait_for_new_line vfs operations-read
before=$(csv_last vfs operations-read)
if [ $kfuncs = yes ]; then
	ext4_read0=$(csv_last fs operations-ext4-read) ext4_open0=$(csv_last fs operations-ext4-open)
	accesses0=$(csv_last pagecache derive-accesses)
	lookups0=$(csv_last dcache derive-lookups) misses0=$(csv_last dcache derive-misses)
fi
i=0
while [ $i -lt $N ]; do dd if="$data" of=/dev/null bs=4096 count=1 2>/dev/null; i=$((i + 1)); done
# stat() of N distinct names that do not exist (test(1) is a shell builtin: no exec).
i=0
while [ $i -lt $N ]; do [ ! -e "$WORK/missing-$i" ] || fail "$WORK/missing-$i exists"; i=$((i + 1)); done
wait_for_new_line vfs operations-read
wait_for_new_line vfs operations-read

# grown PLUGIN TYPE-INSTANCE BEFORE: how much the newest value exceeds BEFORE.
grown() {
	awk -v a="$(csv_last "$1" "$2")" -v b="$3" 'BEGIN { printf "%d", a - b }'
}

g=$(grown vfs operations-read "$before")
echo "vfs reads: +$g (workload $N)"
[ "$g" -ge $N ] || fail "operations-read grew by $g, expected at least $N"
pass "vfs read count grew by at least N"

for ti in latency-read-50 latency-read-average bytes-read-50; do
	v=$(csv_last vfs "$ti")
	[ -n "$v" ] || fail "no vfs $ti value"
done
pass "vfs read latency and bytes percentiles sent"

approx=$(csv_last vfs gauge-approximation-read)
case "$approx" in
1*) [ $kfuncs = no ] || fail "vfs approximates reads by the syscalls although this kernel has kernel-function methods"
    grep -q 'vfs: read is an approximation' "$WORK/collectd.log" || fail "approximation not logged"
    [ "$(grep -c 'vfs: read is an approximation' "$WORK/collectd.log")" = 1 ] || fail "approximation logged more than once"
    pass "vfs reads are approximated by the read syscalls, said in the log and in gauge-approximation-read = 1" ;;
0*) grep -q 'vfs: read attached via \(fentry\|kprobe\):vfs_read' "$WORK/collectd.log" || fail "vfs_read hook not logged"
    pass "vfs reads measured at vfs_read (gauge-approximation-read = 0)" ;;
*) fail "no gauge-approximation-read value ($approx)" ;;
esac

for mod in $running_mods; do
	case $mod in
	dcache)
		wait_for_csv dcache percent-hit_ratio 10 || fail "dcache runs but sends no hit ratio"
		gl=$(grown dcache derive-lookups "$lookups0") gm=$(grown dcache derive-misses "$misses0")
		echo "dcache: +$gl lookups, +$gm misses (workload: $N missing names)"
		if [ "$gl" -lt $N ] || [ "$gm" -lt $N ]; then
			fail "dcache: $N missing names gave $gl lookups and $gm misses, expected at least $N each"
		fi ;;
	pagecache)
		ga=$(grown pagecache derive-accesses "$accesses0")
		echo "pagecache: +$ga accesses (workload: $N reads of a cached page)"
		[ "$ga" -ge $N ] || fail "pagecache: $N reads of a cached page gave $ga accesses, expected at least $N" ;;
	fs)
		gr=$(grown fs operations-ext4-read "$ext4_read0") go=$(grown fs operations-ext4-open "$ext4_open0")
		echo "fs: +$gr ext4 reads, +$go ext4 opens (workload: $N of each)"
		if [ "$gr" != $N ] || [ "$go" != $N ]; then
			fail "fs: $N reads and opens on the scratch ext4 gave $gr ext4 reads and $go opens"
		fi
		[ -n "$(csv_last fs latency-ext4-read-50)" ] || fail "no fs latency-ext4-read-50 value" ;;
	esac
	pass "$mod runs and reports the workload"
done
stop_collectd
