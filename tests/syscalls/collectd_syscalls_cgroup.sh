#!/bin/sh
# The real collectd with syscalls By "cgroup": three cgroups made by the test under a private
# parent in the cgroup2 mount (depth 1, so that CgroupDepth 2 is theirs), each running fsync_n
# with its own count. With MaxSeries 2 the first two have their own plugin_instance
# (ebpf-syscalls.<parent>_a, as doc/modules.md names them), exactly N and K fsync calls and
# fsync percentiles; the third is in ebpf-syscalls.other, exactly M, with gauge-folded-cgroups
# 1 in the read that met it and 0 after (its rows carried by other); the host-wide series go on beside them; the snapshot file (SNMP, the terminal view)
# carries the cgroup before a '/' in the instance, and each histogram's own precision
# (CgroupPrecision 3 for the cgroups', 5 for the host-wide row). The terminal view's
# --cgroup GLOB draws, from that snapshot, exactly the matching cgroups' rows (each count the
# snapshot's, each name a series collectd wrote for that cgroup), one section per cgroup,
# and no other's.
. "$top_srcdir/tests/support/lib.sh"

test_cgroups ebpf-it-bycg a b c

N=120 K=75 M=33
FSYNC_N="$top_builddir/tests/support/fsync_n"
mkdir -m 0755 "$WORK/snap"
write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$WORK/snap/snapshot"
  <Module "syscalls">
    Latency "fsync"
    Percentile 50
    By "cgroup"
    CgroupDepth 2
    Cgroup "/$PARENT/*"
    MaxSeries 2
    CgroupPrecision 3
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
"$FSYNC_N" 1
wait_for_csv syscalls operations-fsync 10 || fail "no host-wide operations-fsync"
host_before=$(csv_last syscalls operations-fsync)

# run CGROUP COUNT: fsync_n COUNT times from inside the cgroup.
run() { sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$CG_ROOT/$PARENT/$1" "$FSYNC_N" "$2" || fail "the workload in $1 failed"; }

run a $N
wait_until 15 csv_is "syscalls.${PARENT}_a" operations-fsync $N ||
	fail "ebpf-syscalls.${PARENT}_a/operations-fsync is '$(csv_last "syscalls.${PARENT}_a" operations-fsync)', not $N; plugin instances: $(series)"
run b $K
wait_until 15 csv_is "syscalls.${PARENT}_b" operations-fsync $K ||
	fail "ebpf-syscalls.${PARENT}_b/operations-fsync is '$(csv_last "syscalls.${PARENT}_b" operations-fsync)', not $K; plugin instances: $(series)"
pass "per cgroup: $N fsync calls in ebpf-syscalls.${PARENT}_a, $K in ebpf-syscalls.${PARENT}_b"
for c in a b; do
	v=$(csv_last "syscalls.${PARENT}_$c" latency-fsync-50)
	awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 10) }' || fail "${PARENT}_$c latency-fsync-50 is '$v', not an fsync time in seconds"
done
pass "fsync p50 per cgroup: a $(csv_last "syscalls.${PARENT}_a" latency-fsync-50) s, b $(csv_last "syscalls.${PARENT}_b" latency-fsync-50) s"

run c $M
wait_until 15 csv_is syscalls.other operations-fsync $M ||
	fail "ebpf-syscalls.other/operations-fsync is '$(csv_last syscalls.other operations-fsync)', not $M; plugin instances: $(series)"
# The gauge counts the cgroups whose calls went into other since the read before: 1 in the
# read (or two, if the run spans one) that met c, and 0 from the next on (c's rows are carried
# by other and deleted). Sent from the first read that folded anything: never above 1.
folded_seen() { csv_values syscalls gauge-folded-cgroups | grep -q '1\.000000'; }
wait_until 5 folded_seen || fail "gauge-folded-cgroups is '$(csv_values syscalls gauge-folded-cgroups)', never 1"
csv_values syscalls gauge-folded-cgroups | tr ' ' '\n' | awk '$1 > 1 { exit 1 }' ||
	fail "gauge-folded-cgroups went above 1: $(csv_values syscalls gauge-folded-cgroups)"
wait_until 5 csv_is syscalls gauge-folded-cgroups 0.000000 ||
	fail "gauge-folded-cgroups is '$(csv_last syscalls gauge-folded-cgroups)' reads after c's run, not 0"
csv_is syscalls.other operations-fsync $M || fail "other is '$(csv_last syscalls.other operations-fsync)' once c's rows were carried, not $M"
[ ! -e "$WORK/csv/itest/ebpf-syscalls.${PARENT}_c" ] || fail "the third cgroup got a series under MaxSeries 2"
pass "MaxSeries 2: the third cgroup's $M calls are in ebpf-syscalls.other, gauge-folded-cgroups 1"

host_after=$(csv_last syscalls operations-fsync)
[ $((host_after - host_before)) -ge $((N + K + M)) ] ||
	fail "host-wide operations-fsync grew by $((host_after - host_before)), less than the $((N + K + M)) calls of the cgroups"
# and its labels apart (format 3): the cgroup, the syscall
grep -q "^counter	calls	${PARENT}_a/fsync	$N	cgroup=${PARENT}_a	syscall=fsync\$" "$WORK/snap/snapshot" ||
	fail "the snapshot has no counter calls ${PARENT}_a/fsync $N cgroup=${PARENT}_a syscall=fsync: $(grep "$PARENT" "$WORK/snap/snapshot" | head -5)"
pass "host-wide operations-fsync goes on (+$((host_after - host_before))); the snapshot carries ${PARENT}_a/fsync"
# Each histogram line carries its own precision (field 5, snapshot_file.h): the cgroup's
# CgroupPrecision 3 with its N samples, the host-wide row the default 5.
[ "$(hist_field latency "${PARENT}_a/fsync" 5)" = 3 ] && [ "$(hist_count latency "${PARENT}_a/fsync")" = "$N" ] ||
	fail "the snapshot's ${PARENT}_a/fsync latency is '$(grep "latency	${PARENT}_a/fsync" "$WORK/snap/snapshot")', not precision 3 with $N samples"
[ "$(hist_field latency fsync 5)" = 5 ] || fail "the snapshot's host-wide fsync latency has precision '$(hist_field latency fsync 5)', not 5"
pass "the snapshot: ${PARENT}_a/fsync latency at precision 3 ($N samples), host-wide fsync at 5"

# --- the terminal view: collectd-ebpf-hist --cgroup --------------------------------------------
HIST="$top_builddir/collectd-ebpf-hist"
[ -x "$HIST" ] || fail "$HIST not built"
# One snapshot for both the screens and what they must show: collectd replaces the file.
cp "$WORK/snap/snapshot" "$WORK/snap.copy"
# screen GLOB OUT: every row since start of the cgroups GLOB matches.
screen() {
	"$HIST" --snapshot "$WORK/snap.copy" --once --since-start --top 0 --cgroup "$1" > "$2" ||
		fail "collectd-ebpf-hist --cgroup '$1' exited non-zero: $(cat "$2")"
}
# check_section OUT CGROUP FSYNCS: OUT's section of CGROUP holds its fsync calls (FSYNCS in
# operations-fsync and in the latency-fsync histogram), and exactly its rows of the snapshot:
# as many histograms, the same counts, each counter under the name of a series collectd
# wrote for that cgroup (ebpf-syscalls.CGROUP/<name>).
check_section() {
	awk -v cg="$2" '
		/^-- cgroup / { inside = ($3 == cg ":") ; next }
		/^== / { inside = 0 }
		inside' "$1" > "$WORK/section"
	grep -qxF -- "-- cgroup $2: collectd's ebpf-syscalls.$2/..." "$1" || fail "no section for $2: $(cat "$1")"
	grep -q "^  latency-fsync: $3 events" "$WORK/section" ||
		fail "the $2 section has no latency-fsync of $3 events: $(cat "$WORK/section")"
	grep -Eq "^ +[0-9.-]+ +$3  operations-fsync\$" "$WORK/section" ||
		fail "the $2 section has no operations-fsync $3: $(cat "$WORK/section")"
	# Fields: counter|histogram, metric, instance, value|unit, precision, count (snapshot_file.h).
	awk -F'\t' -v p="$2/" '$1 == "counter" && index($3, p) == 1 { print $4 }' "$WORK/snap.copy" | sort -n > "$WORK/want"
	sed -En 's/^ +[0-9.-]+ +([0-9]+)  [^ ]+$/\1/p' "$WORK/section" | sort -n > "$WORK/got"
	[ -s "$WORK/want" ] && cmp -s "$WORK/want" "$WORK/got" ||
		fail "the $2 section's counts ($(tr '\n' ' ' < "$WORK/got")) are not the snapshot's ($(tr '\n' ' ' < "$WORK/want"))"
	want_h=$(awk -F'\t' -v p="$2/" '$1 == "histogram" && index($3, p) == 1' "$WORK/snap.copy" | wc -l)
	[ "$(grep -c ' events' "$WORK/section")" = "$want_h" ] || fail "the $2 section does not draw its $want_h histograms"
	for n in $(sed -En 's/^ +[0-9.-]+ +[0-9]+  ([^ ]+)$/\1/p' "$WORK/section"); do
		wait_until 5 csv_exists "syscalls.$2" "$n" || fail "the $2 section names $n, a series collectd did not write for it"
	done
}
csv_exists() { [ -n "$(csv_file "$1" "$2")" ]; }
# headings OUT: the cgroups of OUT's sections, in order.
headings() { sed -n 's/^-- cgroup \([^:]*\):.*/\1/p' "$1" | tr '\n' ' '; }

screen "${PARENT}_a" "$WORK/a.out"
cat "$WORK/a.out"
check_section "$WORK/a.out" "${PARENT}_a" $N
[ "$(headings "$WORK/a.out")" = "${PARENT}_a " ] || fail "--cgroup ${PARENT}_a drew the sections $(headings "$WORK/a.out")"
# Nothing outside its section: every counter drawn is one of its own.
[ "$(grep -Ec '^ +[0-9.-]+ +[0-9]+  [^ ]+$' "$WORK/a.out")" = "$(wc -l < "$WORK/want")" ] ||
	fail "--cgroup ${PARENT}_a drew counters that are not its own: $(cat "$WORK/a.out")"
pass "--cgroup ${PARENT}_a: its $N fsync calls, its rows with the snapshot's counts under collectd's names, nothing else"

# The cgroup's path is the same glob; a glob for both draws them in order, not the third.
screen "/$PARENT/b" "$WORK/b.out"
check_section "$WORK/b.out" "${PARENT}_b" $K
[ "$(headings "$WORK/b.out")" = "${PARENT}_b " ] || fail "--cgroup /$PARENT/b drew the sections $(headings "$WORK/b.out")"
screen "/$PARENT/*" "$WORK/both.out"
[ "$(headings "$WORK/both.out")" = "${PARENT}_a ${PARENT}_b " ] ||
	fail "--cgroup '/$PARENT/*' drew the sections $(headings "$WORK/both.out"), not ${PARENT}_a ${PARENT}_b"
check_section "$WORK/both.out" "${PARENT}_a" $N
check_section "$WORK/both.out" "${PARENT}_b" $K
screen other "$WORK/other.out"
check_section "$WORK/other.out" other $M
pass "--cgroup '/$PARENT/b': $K calls; '/$PARENT/*': a then b, not the third; other: its $M calls"

if "$HIST" --snapshot "$WORK/snap.copy" --once --since-start --cgroup "/$PARENT/nosuch" > "$WORK/none.out"; then
	fail "a --cgroup that matches nothing exited 0"
fi
grep -q "cgroups (--cgroup): ${PARENT}_a ${PARENT}_b other" "$WORK/none.out" ||
	fail "an empty --cgroup did not list the cgroups: $(cat "$WORK/none.out")"
rc=0
"$HIST" --snapshot "$WORK/snap.copy" --once --cgroup "/$PARENT/[ab" 2> "$WORK/glob.err" || rc=$?
[ $rc = 2 ] && grep -q "the '\[' at character .* has no '\]'" "$WORK/glob.err" ||
	fail "a bad --cgroup glob: exit $rc, $(cat "$WORK/glob.err")"
pass "--cgroup matching nothing lists the cgroups there are; a bad glob is a usage error"
stop_collectd
