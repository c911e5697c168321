#!/bin/sh
# The real collectd with syscalls (Latency "fsync") and block both By "cgroup", in one daemon:
# two cgroups made by the test under a private parent in the cgroup2 mount, a doing NA fsync
# calls then RA O_DIRECT reads of 16 KiB from a loop device, b NB and RB. Each cgroup's series
# are exactly its workload: ebpf-syscalls.<cgroup>/operations-fsync and its fsync latency
# histogram (the snapshot's lifetime count), ebpf-block.<cgroup>/operations-read,
# total_bytes-read (reads x 16 KiB) and its read latency histogram; nothing else of theirs
# reaches a disk (the fsyncs are on tmpfs, the loop device's file too, and the workload's
# programs run from a tmpfs), so they have no write series. The host-wide series go on beside them: the
# loop disk's reads grow by exactly RA + RB, which are the two cgroups' reads summed.
#
# A cgroup's read series sum every disk (doc/modules.md), so a read of another disk that the
# block module attributes to a cgroup in the window is in it too. Twice in CI's Debian 13
# pass, cgroup a had 141 and 142 of its 140 reads (4 KiB each more, total_bytes-read
# 2,301,952), while the loop disk's host-wide count and the kernel's own count of its reads
# were both exactly 200: reads of another disk, by a's own tasks (a page of a program the
# page cache had dropped: they now run from a tmpfs) or issued while a's task was current
# (not ruled out). So each cgroup's reads
# are exact when no other disk completed a read in the window (/sys/block/*/stat), and are
# otherwise between its workload's and that plus the other disks' reads in the window; the
# loop disk's own count stays exact either way.
#
# On a host where the io controller is on cgroup v1 (this project's test machine) the bio's
# blkcg names nothing in cgroup2, so block attributes each read to the task that inserted or
# issued it (doc/modules.md, "Block IO"): the dd in the cgroup, exactly the same.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

command -v dd >/dev/null 2>&1 || skip "dd is missing"
# tmpfs for the loop device's file and the fsyncs: a file on a disk would make that disk's
# requests, which block counts for the same cgroups (its per-cgroup rows sum the disks).
SHM=/dev/shm
[ "$(stat -f -c %T "$SHM" 2>/dev/null)" = tmpfs ] || skip "no tmpfs at $SHM for the loop device's file"
attach_loop 16 "$SHM"
# mq-deadline inserts every request before dispatching it: the inserting task is the reader.
echo mq-deadline > "/sys/block/$DISK/queue/scheduler" || fail "cannot set mq-deadline on $DISK"
# The workload's programs run from tmpfs copies, so that their pages never need a disk read
# (their one library, libc, is in every process's use). The shell that runs them was started
# from the disk, before it joins its cgroup.
BIN="$WORK/bin" # a tmpfs of its own: /dev/shm may be mounted noexec
before_removal() { detach_loop; umount "$BIN" 2>/dev/null || true; }
CG_BEFORE_REMOVAL=before_removal # then the cgroups, then cleanup
test_cgroups ebpf-it-blkcg a b

NA=90 RA=140 NB=35 RB=60
SIZE=16384
mkdir "$BIN" && mount -t tmpfs -o size=16m,mode=0755 ebpf-it-bin "$BIN" &&
	cp "$top_builddir/tests/support/fsync_n" "$(command -v dd)" "$BIN/" || fail "cannot copy the workload to a tmpfs at $BIN"
FSYNC_N="$BIN/fsync_n" DD="$BIN/dd"
# Warm: the workload's binaries read from the page cache, not from a disk in its cgroup.
"$FSYNC_N" 1 "$SHM" || fail "fsync_n does not run"
"$DD" if="$LOOP" of=/dev/null bs=$SIZE count=1 iflag=direct status=none || fail "dd cannot read $LOOP"
mkdir -m 0755 "$WORK/snap"
write_fsync_config "$WORK/collectd.conf" "$WORK/snap/snapshot" "" 'By "cgroup"' 'CgroupDepth 2' "Cgroup \"/$PARENT/*\"" <<CONF
  <Module "block">
    Disk "$DISK"
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*"
  </Module>
CONF
start_collectd "$WORK/collectd.conf"
wait_for_log 'block: block_rq_insert+block_rq_issue+block_rq_complete attached via' 5 ||
	fail "block did not attach its insert, issue and complete programs"
# One read from here (the root cgroup, not selected) makes the host-wide series exist.
dd if="$LOOP" of=/dev/null bs=$SIZE count=1 iflag=direct status=none || fail "dd read failed"
wait_for_csv block "operations-$DISK-read" 10 || fail "no operations-$DISK-read from collectd"
wait_for_new_line block "operations-$DISK-read"
r0=$(csv_last block "operations-$DISK-read")
kernel_reads() { awk '{ print $1 }' "/sys/block/$DISK/stat"; } # reads completed, the disk's life long
# other_reads: the reads every other disk completed, their lives long.
other_reads() {
	for f in /sys/block/*/stat; do
		[ "$f" = "/sys/block/$DISK/stat" ] || awk '{ print $1 }' "$f"
	done | awk '{ n += $1 } END { print n + 0 }'
}
k0=$(kernel_reads)
o0=$(other_reads)

# run CGROUP FSYNCS READS: from inside the cgroup, fsync_n FSYNCS times on tmpfs, then READS
# O_DIRECT reads of SIZE bytes from the loop device.
run() {
	sh -c 'echo $$ > "$1/cgroup.procs" && "$2" "$3" "$4" && exec "$8" if="$5" of=/dev/null bs="$6" count="$7" iflag=direct status=none' \
		sh "$CG_ROOT/$PARENT/$1" "$FSYNC_N" "$2" "$SHM" "$LOOP" $SIZE "$3" "$DD" || fail "the workload in $1 failed"
}
run a $NA $RA
run b $NB $RB

# evidence: what tells an extra request in a cgroup (bytes grow with it, the host-wide count
# too, /sys/block/DISK/stat's reads) from a request counted twice or in the wrong cgroup.
evidence() {
	for c in a b; do
		printf 'ebpf-block.%s: operations-read %s, total_bytes-read %s; ' "${PARENT}_$c" \
			"$(csv_last "block.${PARENT}_$c" operations-read)" "$(csv_last "block.${PARENT}_$c" total_bytes-read)"
	done
	printf 'host-wide operations-%s-read %s (before the workloads %s), untraced %s, dropped-recursion %s; ' "$DISK" \
		"$(csv_last block "operations-$DISK-read")" "$r0" "$(csv_last block "derive-untraced-$DISK-read")" \
		"$(csv_last block derive-dropped-recursion)"
	printf 'the kernel completed %s reads of %s since then (/sys/block/%s/stat), %s of the other disks' \
		"$(($(kernel_reads) - k0))" "$DISK" "$DISK" "$(($(other_reads) - o0))"
}
# within_window VALUE WANT: VALUE is WANT, or, when other disks completed reads since the
# workloads began, at most that many more (the header says why).
within_window() {
	[ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le $(($2 + $(other_reads) - o0)) ]
}
# csv_within / hist_within: as csv_is / hist_is (lib.sh), within the window.
csv_within() { within_window "$(csv_last "$1" "$2")" "$3"; }
hist_within() { within_window "$(hist_count "$1" "$2")" "$3"; }
WAIT_EVIDENCE=evidence # wait_exact's (lib.sh) failures say it too
for c in a:$NA:$RA b:$NB:$RB; do
	IFS=: read -r n fsyncs reads <<EOF
$c
EOF
	cg=${PARENT}_$n
	wait_exact "syscalls.$cg" operations-fsync "$fsyncs"
	wait_until 15 csv_within "block.$cg" operations-read "$reads" ||
		fail "ebpf-block.$cg/operations-read is '$(csv_last "block.$cg" operations-read)', not $reads (nor up to $(($(other_reads) - o0)) more, the other disks' reads); plugin instances: $(series); $(evidence)"
	# What another disk's read adds: whole sectors, at most 512 KiB.
	other=$(($(other_reads) - o0))
	bytes=$(csv_last "block.$cg" total_bytes-read)
	[ -n "$bytes" ] && [ "$bytes" -ge $((reads * SIZE)) ] && [ "$bytes" -le $((reads * SIZE + other * 524288)) ] &&
		[ $(((bytes - reads * SIZE) % 512)) = 0 ] ||
		fail "ebpf-block.$cg/total_bytes-read is '$bytes', not $((reads * SIZE)) (nor up to $other more reads of another disk); $(evidence)"
	got=$(csv_last "block.$cg" operations-read)
	[ "$got" = "$reads" ] || echo "note: $cg had $((got - reads)) reads of other disks in the window ($(evidence))"
done
pass "per cgroup: a $NA fsync calls and $RA reads of $SIZE bytes, b $NB and $RB (other disks' reads in the window: $(($(other_reads) - o0)))"

# timed PLUGIN_INSTANCE TYPE-INSTANCE: the percentile was a time in seconds in an interval
# with the workload.
timed() { csv_had_seconds "$1" "$2" || fail "ebpf-$1/$2 never had a time in seconds: $(csv_values "$1" "$2")"; }
for c in a:$NA:$RA b:$NB:$RB; do
	IFS=: read -r n fsyncs reads <<EOF
$c
EOF
	cg=${PARENT}_$n
	wait_until 5 hist_is latency "$cg/fsync" "$fsyncs" ||
		fail "the snapshot's latency $cg/fsync counts '$(hist_count latency "$cg/fsync")' calls, not $fsyncs"
	wait_until 5 hist_within latency "$cg/read" "$reads" ||
		fail "the snapshot's latency $cg/read counts '$(hist_count latency "$cg/read")' reads, not $reads (nor up to $(($(other_reads) - o0)) more, the other disks' reads)"
	[ "$(hist_count latency "$cg/read")" = "$(csv_last "block.$cg" operations-read)" ] ||
		fail "the snapshot's latency $cg/read counts $(hist_count latency "$cg/read") reads, collectd's operations-read $(csv_last "block.$cg" operations-read)"
	# An fsync on tmpfs takes about a microsecond: its percentiles can print as 0.000000.
	timed "block.$cg" latency-read-50
	timed "block.$cg" latency-read-99
	# Nothing of theirs reached a disk but the reads: no write, flush or discard series.
	extra=$(ls "$WORK/csv/itest/ebpf-block.$cg/" | grep -v -e '-read-' -e '-read$' || true)
	[ -z "$extra" ] || fail "ebpf-block.$cg has series beside its reads: $extra"
done
pass "latency histograms: one sample per fsync and per read in each cgroup; no other block IO of theirs"

# Host-wide: the loop disk's reads grew by both workloads, exactly, unless the kernel skipped
# runs of the programs, which are counted (dropped-recursion, untraced-<disk>-read; see
# collectd_block.sh); then the cgroups' rows could not be exact either, and failed above.
wait_until 15 csv_is block "operations-$DISK-read" $((r0 + RA + RB)) ||
	fail "host-wide operations-$DISK-read grew by $(($(csv_last block "operations-$DISK-read") - r0)), not $RA + $RB (dropped-recursion $(csv_last block derive-dropped-recursion), untraced $(csv_last block "derive-untraced-$DISK-read"))"
[ "$(csv_last block derive-dropped-cgroup_full)" = 0 ] || fail "block dropped requests' cgroups"
[ "$(csv_last syscalls derive-dropped-cgroup_full)" = 0 ] || fail "syscalls dropped calls' cgroups"
host_fsync=$(csv_last syscalls operations-fsync)
[ "${host_fsync:-0}" -ge $((NA + NB)) ] || fail "host-wide operations-fsync is '$host_fsync', fewer than the cgroups' $((NA + NB))"
pass "host-wide: $DISK reads +$((RA + RB)) exactly, operations-fsync $host_fsync; no cgroup dropped"
stop_collectd
