#!/bin/sh
# The real collectd with syscalls, block, vfs, process and runqueue By "command" (doc/modules.md, By "command"): three
# processes of tests/support/command_n name themselves "ioa", "io b" and "io:c#" (the comm,
# PR_SET_NAME, as ps and biosnoop show it) and each makes a known number of
# sched_rr_get_interval() calls and O_DIRECT reads of 16 KiB from a loop device. Each
# command's series are exactly its calls, reads and bytes, under its name made safe for
# every consumer of collectd's names: ebpf-syscalls.io_b, ebpf-block.io_c_ (a space, ':' and
# '#' are '_'); a second instance of block, By "cgroup", counts the same reads for the
# cgroup the three ran in. The snapshot carries each row with the label command=; the terminal view's
# "top commands" section lists them, busiest first, with the snapshot's counts.
#
# Then a flood: 10,000 distinct names, one process renaming itself before each call, in
# five batches of 2,000 (one collectd read after each: the kernel table holds 2 x MaxSeries
# x 64 rows, the flood makes two per name). The syscalls module never has more than
# MaxSeries commands' series; the flood's calls are exactly 10,000 in sum, its own series'
# and other's; gauge-folded-commands says how many names a read folded; nothing dropped.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"
# SNMP where the subagent and net-snmp are here (snmp_lib.sh skips the whole test without them)
SNMP=
if [ -x "$top_builddir/ebpf-subagent" ] && command -v snmpd snmpget snmpwalk setpriv >/dev/null 2>&1; then
	. "$top_srcdir/tests/support/snmp_lib.sh"
	SNMP=1
fi

SHM=/dev/shm
[ "$(stat -f -c %T "$SHM" 2>/dev/null)" = tmpfs ] || skip "no tmpfs at $SHM for the loop device's file"
attach_loop 16 "$SHM"
echo mq-deadline > "/sys/block/$DISK/queue/scheduler" || fail "cannot set mq-deadline on $DISK"
# The workload runs from a tmpfs copy, so that its pages never need a disk read under its names.
BIN="$WORK/bin"
before_removal() { [ -z "$SNMP" ] || snmp_stop_daemons || true; detach_loop; umount "$BIN" 2>/dev/null || true; }
CG_BEFORE_REMOVAL=before_removal # then the cgroup, then cleanup
# The workloads run in a cgroup of their own, for the second instance of block (By "cgroup").
test_cgroups ebpf-it-cmd w
mkdir "$BIN" && mount -t tmpfs -o size=16m,mode=0755 ebpf-it-bin "$BIN" &&
	cp "$top_builddir/tests/support/command_n" "$BIN/" || fail "cannot copy the workload to a tmpfs at $BIN"
CMD="$BIN/command_n"
"$CMD" warm 1 "$LOOP" 1 4096 || fail "command_n does not run"

MAXSERIES=100 SIZE=16384
mkdir -m 0755 "$WORK/snap"
INTERVAL=0.5 write_syscalls_config "$WORK/collectd.conf" "$WORK/snap/snapshot" "${SNMP:+nogroup}" 'By "command"' "MaxSeries $MAXSERIES" <<CONF
  <Module "block">
    Disk "$DISK"
    By "command"
    MaxSeries $MAXSERIES
  </Module>
  <Module "process">
    By "command"
  </Module>
  <Module "vfs">
    By "command"
  </Module>
  <Module "runqueue">
    By "command"
  </Module>
  <Module "block" "cg">
    Disk "$DISK"
    By "cgroup"
  </Module>
CONF
start_collectd "$WORK/collectd.conf"
wait_for_log 'syscalls: and per command (the acting task.s name), at most 100 commands and other' 5 ||
	fail "the log does not say that syscalls counts per command"
wait_for_csv syscalls operations-close 10 || fail "no host-wide values"

# run NAME CALLS READS: command_n named NAME, in the cgroup w.
run() {
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG_ROOT/$PARENT/w" "$CMD" "$1" "$2" "$LOOP" "$3" $SIZE ||
		fail "the workload '$1' failed"
}
run "ioa" 71 40
run "io b" 45 25
run "io:c#" 29 12
# exact NAME CALLS READS: the command's series, under its safe NAME, are its workload's: its
# calls; its reads in block and in vfs (one pread64 each, on syscalls here), its one open;
# its exit (process); waits in the run queue (one per read at least: it slept in each).
exact() {
	wait_exact "syscalls.$1" operations-sched_rr_get_interval "$2"
	wait_exact "vfs.$1" operations-read "$3"
	wait_exact "vfs.$1" operations-open 1
	wait_exact "process.$1" derive-exits 1
	wait_until 5 hist_at_least latency "$1/all" "$3" ||
		fail "the snapshot's runqueue latency $1/all has '$(hist_count latency "$1/all")' waits, fewer than its $3 reads"
	wait_exact "block.$1" operations-read "$3"
	wait_exact "block.$1" total_bytes-read $(($3 * SIZE))
	extra=$(ls "$WORK/csv/itest/ebpf-block.$1/" | grep -v -e '-read-' -e '-read$' || true)
	[ -z "$extra" ] || fail "ebpf-block.$1 has series beside its reads: $extra"
}
hist_at_least() { [ "$(hist_count "$1" "$2")" -ge "$3" ] 2>/dev/null; }
exact ioa 71 40
exact io_b 45 25
exact io_c_ 29 12
pass "per command: ioa 71 calls and 40 reads of $SIZE bytes, io_b ('io b') 45 and 25, io_c_ ('io:c#') 29 and 12, in syscalls, block and vfs; one exit each (process); their run-queue waits (runqueue)"
for m in syscalls block vfs process runqueue; do
	[ "$(csv_last $m derive-dropped-command_full)" = 0 ] || fail "$m dropped-command_full is '$(csv_last $m derive-dropped-command_full)'"
	[ -z "$(csv_file $m derive-dropped-cgroup_full)" ] || fail "$m sends dropped-cgroup_full By \"command\""
done
# The other grouping in a second instance of the module: the three commands' cgroup.
wait_exact "block-cg.${PARENT}_w" operations-read 77
[ -z "$(csv_file block-cg derive-dropped-command_full)" ] || fail "block-cg (By \"cgroup\") sends dropped-command_full"
pass "nothing dropped (derive-dropped-command_full 0); a second instance By \"cgroup\" beside it: ebpf-block-cg.${PARENT}_w 77 reads, the three commands'"

# The snapshot: each row with its command and its own labels apart.
wait_until 5 grep -q "^counter	calls	io_b/sched_rr_get_interval	45	command=io_b	syscall=sched_rr_get_interval\$" "$WORK/snap/snapshot" ||
	fail "the snapshot has no calls io_b/sched_rr_get_interval 45 command=io_b: $(grep 'io_b' "$WORK/snap/snapshot" | head -5)"
grep -q "^counter	ios	io_c_/read	12	command=io_c_	op=read\$" "$WORK/snap/snapshot" ||
	fail "the snapshot has no ios io_c_/read 12 command=io_c_: $(grep 'io_c_' "$WORK/snap/snapshot" | head -5)"
pass "the snapshot: io_b/sched_rr_get_interval 45 and io_c_/read 12, each labelled command="

# --- the terminal view: "top commands" ------------------------------------------------------
HIST="$top_builddir/collectd-ebpf-hist"
cp "$WORK/snap/snapshot" "$WORK/snap.copy" # collectd replaces the file
"$HIST" --snapshot "$WORK/snap.copy" --once --since-start --top 0 > "$WORK/screen" ||
	fail "collectd-ebpf-hist exited non-zero: $(cat "$WORK/screen")"
# section MODULE: the lines of MODULE's top commands, up to the next blank line.
section() {
	awk -v m="$1" '/^== / { inside = ($2 == m ":") } inside && /^  top commands/ { on = 1; next }
		on && /^$/ { on = 0 } on' "$WORK/screen"
}
section block > "$WORK/block.top"
cat "$WORK/block.top"
head -n 1 "$WORK/block.top" | grep -q '^  COMMAND  *per second  *ios  *bytes$' ||
	fail "block's top commands have no COMMAND, ios and bytes columns: $(cat "$WORK/block.top")"
# the three in order, busiest first, with their reads and bytes
[ "$(awk '$1 ~ /^io/ { printf "%s:%s:%s ", $1, $3, $4 }' "$WORK/block.top")" = \
	"ioa:40:$((40 * SIZE)) io_b:25:$((25 * SIZE)) io_c_:12:$((12 * SIZE)) " ] ||
	fail "block's top commands are not ioa 40, io_b 25, io_c_ 12 reads: $(cat "$WORK/block.top")"
# syscalls: each command's calls, every syscall of it summed, are the snapshot's sum
section syscalls > "$WORK/syscalls.top"
for c in ioa io_b io_c_; do
	want=$(awk -F'\t' -v c="command=$c" '$1 == "module" { m = $2 } m == "syscalls" && $1 == "counter" && $2 == "calls" && $5 == c { n += $4 } END { print n + 0 }' "$WORK/snap.copy")
	got=$(awk -v c="$c" '$1 == c { print $3 }' "$WORK/syscalls.top")
	[ "$got" = "$want" ] && [ "$want" -gt 29 ] || fail "syscalls' top commands give $c '$got' calls, the snapshot $want: $(cat "$WORK/syscalls.top")"
done
# --cgroup selects cgroups: block-cg's, never a command's rows.
"$HIST" --snapshot "$WORK/snap.copy" --once --since-start --cgroup '*' > "$WORK/cgroups" ||
	fail "collectd-ebpf-hist --cgroup '*' exited non-zero: $(cat "$WORK/cgroups")"
grep -q "^-- cgroup ${PARENT}_w: collectd's ebpf-block-cg.${PARENT}_w/" "$WORK/cgroups" ||
	fail "--cgroup '*' has no section of block-cg's cgroup ${PARENT}_w: $(grep '^-- ' "$WORK/cgroups")"
! grep -q '^-- cgroup io' "$WORK/cgroups" || fail "--cgroup '*' drew commands as cgroups: $(grep '^-- ' "$WORK/cgroups")"
pass "collectd-ebpf-hist's top commands: block ioa 40, io_b 25, io_c_ 12 reads (busiest first, with bytes); syscalls each command's calls as the snapshot sums them; --cgroup draws cgroups only"

# --- SNMP: the per-command rows in the per-cgroup tables (ebpfCgroupObjects), as cgroups' ------
if [ -n "$SNMP" ]; then
	start_snmp
	wait_until $((PING + 5)) status_is 1 || sfail "snapshot status not ok(1) over SNMP"
	CALLS="$EBPF_CGROUP_COUNTER_VALUE.$(str_oid syscalls).$(str_oid calls)"
	IOS="$EBPF_CGROUP_COUNTER_VALUE.$(str_oid block).$(str_oid ios)"
	BYTES="$EBPF_CGROUP_COUNTER_VALUE.$(str_oid block).$(str_oid bytes)"
	wait_until 15 snmp_is "$CALLS.$(str_oid io_b/sched_rr_get_interval implied)" 45 ||
		sfail "ebpfCgroupCounterValue of syscalls calls io_b/sched_rr_get_interval is '$(value "$CALLS.$(str_oid io_b/sched_rr_get_interval implied)")', not 45"
	snmp_is "$IOS.$(str_oid io_c_/read implied)" 12 || sfail "ebpfCgroupCounterValue of block ios io_c_/read is not 12"
	snmp_is "$BYTES.$(str_oid ioa/read implied)" $((40 * SIZE)) || sfail "ebpfCgroupCounterValue of block bytes ioa/read is not $((40 * SIZE))"
	snmp_stop_daemons
	pass "SNMP: ebpfCgroupCounterValue syscalls calls io_b/sched_rr_get_interval 45, block ios io_c_/read 12, bytes ioa/read $((40 * SIZE))"
else
	echo "note: no SNMP subagent or net-snmp here: the SNMP rows not checked"
fi

# --- the flood: 10,000 names ------------------------------------------------------------------
FLOOD=10000 BATCH=2000
for b in 0 1 2 3 4; do
	"$CMD" --flood "fl$b-" $BATCH || fail "the flood's batch $b failed"
	# two reads: the second began after the batch ended, and folded what it left
	wait_for_new_line syscalls operations-close
	wait_for_new_line syscalls operations-close
done
WANT=$((71 + 45 + 29 + FLOOD))
# per_command_sum: the calls in every per-command series of syscalls, other's included.
per_command_sum() {
	for f in "$WORK"/csv/itest/ebpf-syscalls.*/operations-sched_rr_get_interval-*; do
		tail -n 1 "$f" | cut -d, -f2
	done | awk '{ n += $1 } END { print n + 0 }'
}
sum_is() { [ "$(per_command_sum)" = "$1" ]; }
wait_until 10 sum_is $WANT ||
	fail "the per-command sched_rr_get_interval calls sum to $(per_command_sum), not $WANT (other: $(csv_last syscalls.other operations-sched_rr_get_interval))"
csv_is syscalls operations-sched_rr_get_interval $WANT ||
	fail "host-wide operations-sched_rr_get_interval is '$(csv_last syscalls operations-sched_rr_get_interval)', not $WANT"
commands=$(ls -d "$WORK"/csv/itest/ebpf-syscalls.* | grep -vc '/ebpf-syscalls\.other$')
[ "$commands" -le $MAXSERIES ] || fail "syscalls has $commands commands' series, more than MaxSeries $MAXSERIES"
other=$(csv_last syscalls.other operations-sched_rr_get_interval)
[ "${other:-0}" -gt $((FLOOD - MAXSERIES)) ] || fail "other holds '$other' of the flood's $FLOOD calls"
max_folded=$(csv_values syscalls gauge-folded-commands | tr ' ' '\n' | awk '$1 > m { m = $1 } END { print m + 0 }')
awk -v m="$max_folded" 'BEGIN { exit !(m >= 1000) }' ||
	fail "gauge-folded-commands never reached 1000 names in a read: $(csv_values syscalls gauge-folded-commands)"
[ "$(csv_last syscalls derive-dropped-command_full)" = 0 ] ||
	fail "syscalls dropped-command_full is '$(csv_last syscalls derive-dropped-command_full)' after the flood"
pass "flood of $FLOOD names: $commands commands' series (MaxSeries $MAXSERIES), other $other, the sum exactly $WANT as host-wide; up to $max_folded names folded in a read; none dropped"
stop_collectd
