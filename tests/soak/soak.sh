#!/bin/sh
# make soak: collectd with every module, ReadThreads 5 and a users' program for SOAK_SECONDS
# (default 1800), snmpd and the subagent serving its snapshot, under a workload of known
# totals repeated every PERIOD (10) seconds: F fsync() calls, E execs of /bin/true, C connects
# to a closed port on 127.0.0.1 in a network namespace of their own, and W O_DIRECT writes +
# R reads on a loop device of its own. The workload runs in a cgroup of its own. At the end:
#   - exact: the loop device's counts (nothing else touches it), counting what the block
#     module reports as untraced (the kernel's own losses); and the witness program's
#     (tests/soak/soak_witness.bpf.c) fsyncs, execs and connects of the soak's cgroup;
#   - at least the workload's: the modules' system-wide fsync, exec and connect-failure
#     counts (the excess, from the rest of the machine, is printed);
#   - SNMP serves what collectd dispatched (loop device and witness counters), the snapshot
#     was ok(1) at every round, and whole-MIB bulk walks ran back to back all the while;
#   - every module that started is still running;
#   - collectd's and the subagent's RSS and open fds, sampled every period, are flat (after
#     the first minute, RSS within SOAK_RSS_SLACK_KB, default 2048; fds back to their count).
# Run before each release; doc/contributing.md, Soak.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/snmp_lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"
. "$top_srcdir/tests/support/every_module.sh"

SECONDS_TOTAL=${SOAK_SECONDS:-1800}
PERIOD=10 F=20 E=20 C=20 W=50 R=30
for t in unshare ip; do
	command -v $t >/dev/null || skip "$t not installed (apt-get install util-linux iproute2)"
done

# The workload's cgroup (cgroup2: where bpf_get_current_cgroup_id() looks), left on exit.
CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$CG_ROOT" ] || skip "no cgroup2 mount (the witness program counts the soak's cgroup)"
CG_NAME=ebpf-soak-$$
CG="$CG_ROOT/$CG_NAME"
soak_cleanup() {
	if [ -d "$CG" ]; then
		echo $$ > "$CG_ROOT/cgroup.procs" || true
		rmdir "$CG" || true
	fi
	snmp_stop_daemons || true
	every_module_cleanup
}
trap soak_cleanup EXIT INT TERM
mkdir "$CG" || fail "cannot make the cgroup $CG"
CG_ID=$(stat -c %i "$CG")

# The connects, in a network namespace with its own loopback up.
in_netns() { unshare --net sh -c 'ip link set lo up && exec "$@"' sh "$@"; }
CONNECT_IN=in_netns

OBJ="$WORK/objects"
install_objects "$OBJ" tests/soak/soak_witness.bpf.o
every_module_config "$WORK/collectd.conf" "  SnapshotGroup \"nogroup\"
  <Program \"soak\">
    Object \"$OBJ/soak_witness.bpf.o\"
    Param \"soak_cgroup\" $CG_ID
    <Counter \"soak_events\">
      <Label \"cgroup\">
        Size 8
        Decode \"cgroup\"
      </Label>
      <Label \"comm\">
        Size 16
        Decode \"string\"
      </Label>
      <Label \"event\">
        Size 4
        Padding 4
        Decode \"static_map\" \"0=fsync\" \"1=exec\" \"2=connect\"
      </Label>
      TypeInstance \"%{cgroup}-%{event}-%{comm}\"
    </Counter>
  </Program>" <<CONF
ReadThreads 5
CONF
start_read_threads_collectd
start_snmp
wait_until 10 status_is 1 || sfail "snapshot status not ok(1) over SNMP: $(value $BASE.1.1.2.0)"
echo "soak: $running (the witness program is one of them), read by $readers threads, for $SECONDS_TOTAL s; loop device $DISK"

# From here every process the soak starts is in its cgroup (collectd, snmpd and the subagent
# are not).
echo $$ > "$CG/cgroup.procs" || fail "cannot enter the cgroup $CG"

# The witness's series: <cgroup>-<event>-<comm>; the cgroup decoder names the soak's cgroup.
WITNESS="$CG_NAME-fsync-fsync_n $CG_NAME-exec-true $CG_NAME-connect-bash"
witness() { for s in $WITNESS; do printf '%s ' "$(csv_last soak "derive-$s")"; done; }
# snmp_counter MODULE NAME INSTANCE: ebpfCounterValue of that row.
snmp_counter() { value "$BASE.1.3.1.3.$(str_oid "$1").$(str_oid "$2").$(str_oid "$3" implied)"; }

# One of each first, so that every series exists before the baseline.
workload 1 1 1 1 1
sleep 3
base=$(counters) wbase=$(witness)
echo "soak: baseline fsync execs connect_failures $DISK-write $DISK-read untraced-$DISK-write untraced-$DISK-read: $base; witness: $wbase"
set -- $base
[ $# = 7 ] && ! echo "$base" | grep -q value || fail "a series is missing at the baseline: $base"
set -- $wbase
[ $# = 3 ] && ! echo "$wbase" | grep -q value ||
	fail "a witness series is missing at the baseline ($WITNESS): $wbase; soak's files: $(ls "$WORK/csv/itest/ebpf-soak" | tr '\n' ' ')"

# sample FILE PID: seconds since the start, RSS in kB, open fds.
sample() { echo "$(($(date +%s) - start)) $(awk '/^VmRSS/ { print $2 }' /proc/$2/status) $(ls /proc/$2/fd | wc -l)" >> "$1"; }
rounds=0 start=$(date +%s)
# An NMS polling all the while: whole-MIB bulk walks back to back, one line each (rows, or
# FAILED and the error), in the background so the workload keeps its period.
(
	while :; do
		if out=$(snmpbulkwalk -v2c -c public -On -t 5 -r 1 -Cr50 "$AGENT" "$BASE" 2>&1); then
			echo "$out" | wc -l
		else
			echo "FAILED $(echo "$out" | tail -n 1)"
		fi
		sleep 1
	done
) > "$WORK/walks" 2>&1 &
walker=$!
: > "$WORK/samples.collectd"
: > "$WORK/samples.subagent"
while [ $(($(date +%s) - start)) -lt "$SECONDS_TOTAL" ]; do
	workload $F $E $C $W $R
	rounds=$((rounds + 1))
	kill -0 "$COLLECTD_PID" || fail "collectd died during the soak"
	kill -0 "$SUBAGENT_PID" || sfail "the subagent died during the soak"
	status_is 1 || sfail "round $rounds: snapshot status $(value $BASE.1.1.1.0) over SNMP, not ok(1): $(value $BASE.1.1.2.0)"
	sample "$WORK/samples.collectd" "$COLLECTD_PID"
	sample "$WORK/samples.subagent" "$SUBAGENT_PID"
	sleep $PERIOD
done
sleep 3 # two more reads
kill "$walker" 2>/dev/null && wait "$walker" 2>/dev/null || true
end=$(counters) wend=$(witness)
walks=$(grep -c '^[0-9]' "$WORK/walks" || true)
echo "soak: $rounds rounds; end: $end; witness: $wend"
if grep -q FAILED "$WORK/walks"; then
	grep FAILED "$WORK/walks" | head -n 3
	sfail "$(grep -c FAILED "$WORK/walks") of the MIB walks failed (above)"
fi
awk '$1 < 100 { bad++ } END { exit bad > 0 }' "$WORK/walks" || sfail "a MIB walk returned under 100 rows: $(sort -n "$WORK/walks" | head -n 1)"
[ "$walks" -ge $((rounds / 2)) ] || sfail "only $walks whole MIB walks in $rounds rounds"
echo "soak: $walks whole MIB walks meanwhile, $(sort -n "$WORK/walks" | head -n 1) to $(sort -n "$WORK/walks" | tail -n 1) rows"

REPORT_PREFIX="soak: " check_totals "$base" "$end" $rounds $F $E $C $W $R
# witness_exact SERIES BEFORE AFTER WANT
witness_exact() {
	d=$(delta "$2" "$3")
	[ "$d" = "$4" ] || fail "witness $1: counted $d, expected $4"
	echo "soak: witness $1 +$d (workload $4)"
}
set -- $wbase $wend
witness_exact "fsync by fsync_n" "$1" "$4" $((F * rounds))
witness_exact "execs of true" "$2" "$5" $((E * rounds))
witness_exact "connects by bash (in a netns)" "$3" "$6" $((C * rounds))

# SNMP serves the numbers collectd dispatched (the workload has stopped: they stay put).
for pair in "block ios $DISK-write" "block ios $DISK-read" "soak soak_events $CG_NAME-exec-true"; do
	set -- $pair
	case $1 in block) csv=$(csv_last block "operations-$3") ;; *) csv=$(csv_last soak "derive-$3") ;; esac
	snmp=$(snmp_counter "$1" "$2" "$3")
	[ "$snmp" = "$(delta 0 "$csv")" ] || sfail "ebpfCounterValue $1/$2/$3 is '$snmp', collectd's $csv"
done
echo "soak: SNMP equals collectd for $DISK-write, $DISK-read and the witness's execs"

grep 'module ".*" is off' "$WORK/collectd.log" | cut -c1-200 | sed 's/^/soak: (off from the start) /' || true
[ "$(grep -o '[0-9]* of [0-9]* modules running' "$WORK/collectd.log" | tail -n 1)" = "$running" ] ||
	fail "the running modules changed during the soak"

# flat NAME SAMPLES: after the first minute (or the first sample), RSS within the slack; the fd
# count back to its fewest of the first minute in the last minute's samples (a sample taken
# during a read sees the file the read has open: one or two more), never more than 4 above it.
flat() {
	awk -v name="$1" -v slack="${SOAK_RSS_SLACK_KB:-2048}" -v total="$SECONDS_TOTAL" '
	NR == 1 || $1 <= 60 { r0 = $2; if (f0 == "" || $3 < f0) f0 = $3; next }
	{ if ($2 > rmax) rmax = $2; if ($3 > fmax) fmax = $3; rl = $2; n++
	  if ($1 >= total - 60 && (lastmin == "" || $3 < lastmin)) lastmin = $3 }
	END {
		if (!n) { rmax = r0; rl = r0; fmax = f0; lastmin = f0 }
		printf "soak: %s RSS %d kB after the first minute, at most %d kB, %d kB at the end; fds %d, at most %d, %d in the last minute\n", name, r0, rmax, rl, f0, fmax, lastmin
		if (rmax - r0 > slack) { print "FAIL: " name "'"'"'s RSS grew by " rmax - r0 " kB" > "/dev/stderr"; exit 1 }
		if (lastmin != f0 || fmax > f0 + 4) { print "FAIL: " name "'"'"'s fd count grew" > "/dev/stderr"; exit 1 }
	}' "$2" || fail "$1's RSS or fds grew (samples: seconds RSS-kB fds: $(tr '\n' ';' < "$2"))"
}
flat collectd "$WORK/samples.collectd"
flat subagent "$WORK/samples.subagent"
pass "soak of $SECONDS_TOTAL s: loop-device and witness counts exact, workload counted, SNMP equal, RSS and fds flat"
