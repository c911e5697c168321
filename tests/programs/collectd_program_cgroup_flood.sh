#!/bin/sh
# contrib/programs/fsync_cgroup with its shipped .conf in the real collectd, through a flood of
# cgroups (issue 40: its 1,024-row hash, filled by 1,100 cgroups of one fsync() each, took no
# later cgroup for good, not even into `other`, also once they were gone).
#
# Under a private parent: cgroup `a` calls fsync() 5 times, then 1,100 cgroups (cgroup_churn,
# left in place) once each. A cgroup made after them calls it 20 times: its own series says
# 20 once an idle series gave it its place (ReclaimAfter: 60 reads). Once floods evicted a's
# row (bpftool looks it up) and a read found none, `a` calls 3 more times: 8 (the plugin
# keeps a series' count from going back). The floods removed, a new cgroup's 7 calls are 7.
# No count of the program ever goes back (a negative rate), and derive-missed is sent.
# Interval 0.2: about 15 s.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

cgroup2_root "bpf_get_current_cgroup_id() names cgroup2 cgroups"
PARENT=ebpf-it-flood-$$
P="$CG_ROOT/$PARENT"
FLOOD=1100
INTERVAL=0.2
mkdir "$P" || skip "cannot make a cgroup under $CG_ROOT"
flood_cleanup() {
	for d in "$P"/c[0-9]* "$P"/a "$P"/late "$P"/after; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
	rmdir "$P" 2>/dev/null || true
	cleanup
}
trap flood_cleanup EXIT INT TERM
for c in a late after; do mkdir "$P/$c" || fail "cannot make the cgroup $PARENT/$c"; done

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
# is_count CGROUP N: its series' newest count is N (a message with its values, else).
is_count() {
	wait_until 30 csv_is fsync_cgroup "$(count_of "$1")" "$2" && return 0
	fail "$(count_of "$1") is '$(csv_values fsync_cgroup "$(count_of "$1")")', not $2; other: '$(csv_values fsync_cgroup derive-fsync-other-count)', missed: '$(csv_last fsync_cgroup derive-missed)'"
}

# flood FIRST [keep]: FLOOD cgroups $PARENT/c<FIRST>... of one fsync() each, each removed
# after its call, or left in place with keep.
flood() { "$WORK/flood/fsync_cg" "$P" "$1" $FLOOD 1 100000 ${2:-} || fail "the flood of $FLOOD cgroups failed"; }
# The program's row map among the maps collectd holds, and whether a's fsync row is in it
# (its key: the cgroup id, the inode number of its directory, then op 0 and the pad).
LATENCY=$(for id in $(grep -h '^map_id:' /proc/$COLLECTD_PID/fdinfo/* | awk '{ print $2 }' | sort -un); do
	bpftool map show id "$id"; done | sed -n 's/^\([0-9]*\): [a-z_]*  name latency .*/\1/p')
[ -n "$LATENCY" ] || fail "collectd holds no map named latency"
a_key=$(printf '%016x' "$(stat -c %i "$P/a")" | sed 's/../& /g' | awk '{ for (i = 8; i >= 1; i--) printf "%s ", $i }')
a_has_row() { bpftool map lookup id "$LATENCY" key hex $a_key 00 00 00 00 00 00 00 00 >/dev/null 2>&1; }

run a 5
is_count a 5
a_has_row || fail "no row of a's calls in map $LATENCY"
flood 0 keep
pass "$FLOOD cgroups of one fsync() each made"
run late 20
is_count late 20
pass "a cgroup made after the flood: its 20 calls in its own series"
# The kernel's LRU is approximate (a row looked up since its last pass is passed over once):
# more floods (their cgroups removed as they go) until it evicted a's row.
floods=1
while a_has_row && [ $floods -lt 8 ]; do flood $((floods * FLOOD)); floods=$((floods + 1)); done
a_has_row && fail "a's row is still in the map after $((floods * FLOOD)) cgroups"
# A whole read without a's row (the first new line's read may have begun before the eviction).
wait_for_new_line fsync_cgroup derive-missed
wait_for_new_line fsync_cgroup derive-missed
run a 3
is_count a 8
pass "a's row evicted by $((floods * FLOOD)) cgroups; its 5 + 3 calls: 8 ($(csv_values fsync_cgroup "$(count_of a)" | tr ' ' '\n' | uniq | tr '\n' ' '))"

rmdir "$P"/c[0-9]* || fail "cannot remove the flood's cgroups"
run after 7
is_count after 7
pass "with the flood's cgroups removed, a new cgroup's 7 calls: 7"

wait_until 5 csv_has_value fsync_cgroup derive-missed || fail "no derive-missed sent"
# No count of the program goes back: a negative rate in every writer that makes rates.
back=$(for f in "$WORK/csv/itest/ebpf-fsync_cgroup"/derive-*; do
	tail -n +2 "$f" | awk -F, -v f="${f##*/}" 'NR > 1 && $2 < last { print f ": " last " then " $2; exit } { last = $2 }'
done)
[ -z "$back" ] || fail "counts that went back: $back"
pass "no count went back ($(ls "$WORK/csv/itest/ebpf-fsync_cgroup" | grep -c -- '-count-') counts); derive-missed $(csv_last fsync_cgroup derive-missed)"
stop_collectd
