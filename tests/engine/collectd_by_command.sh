#!/bin/sh
# The real collectd with syscalls and block By "command" (doc/modules.md, By "command"): three
# processes of tests/support/command_n name themselves "ioa", "io b" and "io:c#" (the comm,
# PR_SET_NAME, as ps and biosnoop show it) and each makes a known number of
# sched_rr_get_interval() calls and O_DIRECT reads of 16 KiB from a loop device. Each
# command's series are exactly its calls, reads and bytes, under its name made safe for
# every consumer of collectd's names: ebpf-syscalls.io_b, ebpf-block.io_c_ (a space, ':' and
# '#' are '_'). The snapshot carries each row with the label command=; the terminal view's
# "top commands" section lists them, busiest first, with the snapshot's counts.
#
# Then a flood: 10,000 distinct names, one process renaming itself before each call, in
# five batches of 2,000 (one collectd read after each: the kernel table holds 2 x MaxSeries
# x 64 rows, the flood makes two per name). The syscalls module never has more than
# MaxSeries commands' series; the flood's calls are exactly 10,000 in sum, its own series'
# and other's; gauge-folded-commands says how many names a read folded; nothing dropped.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

SHM=/dev/shm
[ "$(stat -f -c %T "$SHM" 2>/dev/null)" = tmpfs ] || skip "no tmpfs at $SHM for the loop device's file"
attach_loop 16 "$SHM"
echo mq-deadline > "/sys/block/$DISK/queue/scheduler" || fail "cannot set mq-deadline on $DISK"
# The workload runs from a tmpfs copy, so that its pages never need a disk read under its names.
BIN="$WORK/bin"
before_exit() { detach_loop; umount "$BIN" 2>/dev/null || true; cleanup; }
trap before_exit EXIT INT TERM
mkdir "$BIN" && mount -t tmpfs -o size=16m,mode=0755 ebpf-it-bin "$BIN" &&
	cp "$top_builddir/tests/support/command_n" "$BIN/" || fail "cannot copy the workload to a tmpfs at $BIN"
CMD="$BIN/command_n"
"$CMD" warm 1 "$LOOP" 1 4096 || fail "command_n does not run"

MAXSERIES=100 SIZE=16384
mkdir -m 0755 "$WORK/snap"
INTERVAL=0.5 write_syscalls_config "$WORK/collectd.conf" "$WORK/snap/snapshot" "" 'By "command"' "MaxSeries $MAXSERIES" <<CONF
  <Module "block">
    Disk "$DISK"
    By "command"
    MaxSeries $MAXSERIES
  </Module>
CONF
start_collectd "$WORK/collectd.conf"
wait_for_log 'syscalls: and per command (the acting task.s name), at most 100 commands and other' 5 ||
	fail "the log does not say that syscalls counts per command"
wait_for_csv syscalls operations-close 10 || fail "no host-wide values"

"$CMD" "ioa" 71 "$LOOP" 40 $SIZE || fail "the workload ioa failed"
"$CMD" "io b" 45 "$LOOP" 25 $SIZE || fail "the workload 'io b' failed"
"$CMD" "io:c#" 29 "$LOOP" 12 $SIZE || fail "the workload 'io:c#' failed"
# exact NAME CALLS READS: the command's series, under its safe NAME, are its workload's.
exact() {
	wait_exact "syscalls.$1" operations-sched_rr_get_interval "$2"
	wait_exact "block.$1" operations-read "$3"
	wait_exact "block.$1" total_bytes-read $(($3 * SIZE))
	extra=$(ls "$WORK/csv/itest/ebpf-block.$1/" | grep -v -e '-read-' -e '-read$' || true)
	[ -z "$extra" ] || fail "ebpf-block.$1 has series beside its reads: $extra"
}
exact ioa 71 40
exact io_b 45 25
exact io_c_ 29 12
pass "per command: ioa 71 calls and 40 reads of $SIZE bytes, io_b ('io b') 45 and 25, io_c_ ('io:c#') 29 and 12"
for m in syscalls block; do
	[ "$(csv_last $m derive-dropped-command_full)" = 0 ] || fail "$m dropped-command_full is '$(csv_last $m derive-dropped-command_full)'"
	[ -z "$(csv_file $m derive-dropped-cgroup_full)" ] || fail "$m sends dropped-cgroup_full By \"command\""
done
pass "nothing dropped (derive-dropped-command_full 0)"

# The snapshot: each row with its command and its own labels apart.
wait_until 5 grep -q "^counter	calls	io_b/sched_rr_get_interval	45	command=io_b	syscall=sched_rr_get_interval\$" "$WORK/snap/snapshot" ||
	fail "the snapshot has no calls io_b/sched_rr_get_interval 45 command=io_b: $(grep 'io_b' "$WORK/snap/snapshot" | head -5)"
grep -q "^counter	ios	io_c_/read	12	command=io_c_	op=read\$" "$WORK/snap/snapshot" ||
	fail "the snapshot has no ios io_c_/read 12 command=io_c_: $(grep 'io_c_' "$WORK/snap/snapshot" | head -5)"
pass "the snapshot: io_b/sched_rr_get_interval 45 and io_c_/read 12, each labelled command="
stop_collectd
