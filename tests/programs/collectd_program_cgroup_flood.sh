#!/bin/sh
# contrib/programs/fsync_cgroup with its shipped .conf in the real collectd, through a flood of
# cgroups (issue 40: its 1,024-row hash, filled by 1,100 cgroups of one fsync() each, took no
# later cgroup for good, not even into `other`, also once they were gone).
#
# Under a private parent: cgroup `a` calls fsync() 5 times, then 1,100 cgroups (cgroup_churn,
# left in place) once each. Each later workload is counted exactly in sum: what its own series
# gained and what `other` gained while it ran (only the test's command is counted, and each
# step waits for a whole read after the one before, so nothing else moves them). A cgroup
# made after the flood calls 20 times: 20. Once floods evicted a's row (bpftool looks it up),
# `a` calls 3 more times: 3 (its series, or `other` once its place went to a newcomer). The
# floods removed, a new cgroup's 7 calls: 7. As a row of 200 calls leaves the map, another
# cgroup's 20: 20. No count of the program ever goes back (a negative rate), and
# derive-missed is sent. The plugin reads once a second at most (rrdtool keeps whole
# seconds), so each step waits for reads, not for a time: about 25 s.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

cgroup2_root "bpf_get_current_cgroup_id() names cgroup2 cgroups"
PARENT=ebpf-it-flood-$$
P="$CG_ROOT/$PARENT"
FLOOD=1100
INTERVAL=0.2
mkdir "$P" || skip "cannot make a cgroup under $CG_ROOT"
flood_cleanup() {
	for d in "$P"/c[0-9]* "$P"/a "$P"/late "$P"/after "$P"/big "$P"/b; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
	rmdir "$P" 2>/dev/null || true
	cleanup
}
trap flood_cleanup EXIT INT TERM
for c in a late after big b; do mkdir "$P/$c" || fail "cannot make the cgroup $PARENT/$c"; done

OBJ="$WORK/objects"
install_objects "$OBJ" contrib/programs/fsync_cgroup.bpf.o
# One command name for the workload and the flood's children (the program's comm Param).
mkdir "$WORK/flood"
cp "$top_builddir/tests/support/fsync_n" "$WORK/fsync_cg"
cp "$top_builddir/tests/engine/cgroup_churn" "$WORK/flood/fsync_cg"
shipped_program_config fsync_cgroup comm '"fsync_cg"'
start_collectd "$WORK/collectd.conf"
wait_for_csv fsync_cgroup percent-map_fill-latency 10 || fail "no first read of fsync_cgroup"

# run CGROUP COUNT: COUNT fsync() calls from inside $PARENT/CGROUP.
run() { sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$P/$1" "$WORK/fsync_cg" "$2" || fail "the workload in $1 failed"; }
count_of() { echo "derive-fsync-${PARENT}_$1-count"; }
# newest CGROUP: the newest count of CGROUP's series, or of `other`; 0 before any.
newest() {
	if [ "$1" = other ]; then v=$(csv_last fsync_cgroup derive-other-count); else v=$(csv_last fsync_cgroup "$(count_of "$1")"); fi
	echo "${v:-0}"
}
# a_whole_read: returns once a read began and ended after the call, and the next one's
# values are written: three new lines (the first read may have begun before; a series born
# in the second sends its first value in the third, the plugin's zero before it), then
# `other`'s value of that third read (collectd's write threads may write it after missed's).
a_whole_read() {
	for _r in 1 2 3; do wait_for_new_line fsync_cgroup derive-missed; done
	t=$(csv_file fsync_cgroup derive-missed | xargs tail -n 1 | cut -d, -f1)
	[ -z "$(csv_file fsync_cgroup derive-other-count)" ] || wait_until 5 other_written_since "$t" || true
}
other_written_since() { awk -F, -v t="$1" 'END { exit !($1 >= t) }' "$(csv_file fsync_cgroup derive-other-count)"; }
# in_sum CGROUP COUNT: CGROUP's series and `other` gained COUNT since own0 and other0.
in_sum() { [ $(($(newest "$1") - own0 + $(newest other) - other0)) = "$2" ]; }
# counted CGROUP COUNT: runs COUNT calls in CGROUP after a whole read, then waits until its
# series and `other` gained COUNT between them; WHERE says how many went where.
counted() {
	a_whole_read
	own0=$(newest "$1") other0=$(newest other)
	run "$1" "$2"
	wait_until 20 in_sum "$1" "$2" ||
		fail "$1's $2 calls: its series went from $own0 to '$(newest "$1")', other from $other0 to '$(newest other)' (other: $(csv_values fsync_cgroup derive-other-count | tr ' ' '\n' | uniq | tr '\n' ' '))"
	WHERE="$(($(newest "$1") - own0)) in its series, $(($(newest other) - other0)) in other"
}

# flood FIRST [keep]: FLOOD cgroups $PARENT/c<FIRST>... of one fsync() each, each removed
# after its call, or left in place with keep.
flood() { "$WORK/flood/fsync_cg" "$P" "$1" $FLOOD 1 100000 ${2:-} || fail "the flood of $FLOOD cgroups failed"; }
# The program's row map among the maps collectd holds, and whether a's fsync row is in it
# (its key: the cgroup id, the inode number of its directory, then op 0 and the pad).
LATENCY=$(for id in $(grep -h '^map_id:' /proc/$COLLECTD_PID/fdinfo/* | awk '{ print $2 }' | sort -un); do
	bpftool map show id "$id"; done | sed -n 's/^\([0-9]*\): [a-z_]*  name latency .*/\1/p')
[ -n "$LATENCY" ] || fail "collectd holds no map named latency"
# key_of CGROUP: the hex bytes of its fsync row's key.
key_of() {
	printf '%016x' "$(stat -c %i "$P/$1")" | sed 's/../& /g' | awk '{ for (i = 8; i >= 1; i--) printf "%s ", $i }'
	echo 00 00 00 00 00 00 00 00
}
a_has_row() { bpftool map lookup id "$LATENCY" key hex $(key_of a) >/dev/null 2>&1; }

run a 5
wait_until 20 csv_is fsync_cgroup "$(count_of a)" 5 || fail "$(count_of a) is '$(newest a)', not 5"
a_has_row || fail "no row of a's calls in map $LATENCY"
flood 0 keep
pass "$FLOOD cgroups of one fsync() each made"
counted late 20
pass "a cgroup made after the flood: its 20 calls counted ($WHERE)"
# More floods (their cgroups removed as they go), each read whole, so that their rows take
# every place and fill `other` (gauge-folded-latency), whose rows the next workloads' rows
# then evict from the map in the read that counts them; at least two, and until the
# kernel's LRU evicted a's row (it is approximate: a row looked up since its last pass is
# passed over once).
floods=1
while [ $floods -lt 3 ] || { a_has_row && [ $floods -lt 8 ]; }; do
	flood $((floods * FLOOD))
	a_whole_read
	floods=$((floods + 1))
done
a_has_row && fail "a's row is still in the map after $((floods * FLOOD)) cgroups"
folded=$(csv_last fsync_cgroup gauge-folded-latency); folded=${folded%.*}
counted a 3
pass "a's row evicted by $((floods * FLOOD)) cgroups, $folded rows folded into other; its 3 later calls counted ($WHERE)"

rmdir "$P"/c[0-9]* || fail "cannot remove the flood's cgroups"
counted after 7
pass "with the flood's cgroups removed, a new cgroup's 7 calls counted ($WHERE)"

# A row leaves the map (deleted here, as the LRU evicts one) in the read in which a cgroup
# calls: its calls are counted all the same. `big`'s 200 calls cover the slots of b's 20
# (the reader that compared the series' summed slots took b's calls for big's loss when both
# were in `other`, as every cgroup that came after the floods was).
counted big 200
a_whole_read
own0=$(newest b) other0=$(newest other)
bpftool map delete id "$LATENCY" key hex $(key_of big) || fail "cannot delete big's row from map $LATENCY"
run b 20
wait_until 20 in_sum b 20 ||
	fail "b's 20 calls as big's row left: its series went from $own0 to '$(newest b)', other from $other0 to '$(newest other)'"
pass "as big's row of 200 calls left the map, b's 20 calls counted ($(($(newest b) - own0)) in its series, $(($(newest other) - other0)) in other)"

wait_until 5 csv_has_value fsync_cgroup derive-missed || fail "no derive-missed sent"
# No count of the program goes back: a negative rate in every writer that makes rates.
# One awk over the thousands of files (one process each took 15 s).
back=$(awk -F, 'FNR == 2 { last = $2 } FNR > 2 && $2 + 0 < last + 0 && !told[FILENAME]++ { print FILENAME ": " last " then " $2 }
	FNR > 2 { last = $2 }' "$WORK/csv/itest/ebpf-fsync_cgroup"/derive-*)
[ -z "$back" ] || fail "counts that went back: $back"
pass "no count went back ($(ls "$WORK/csv/itest/ebpf-fsync_cgroup" | grep -c -- '-count-') counts); derive-missed $(csv_last fsync_cgroup derive-missed)"
stop_collectd
