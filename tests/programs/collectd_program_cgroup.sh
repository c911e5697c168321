#!/bin/sh
# doc/programs.md's hash-keyed histogram, contrib/programs/fsync_cgroup.bpf.c (fsync() latency
# per cgroup: a row too big for the BPF stack, inserted from a zeroed global row), with its
# shipped .conf in the real collectd: 30 fsync() calls from the root cgroup and 20 from a child
# cgroup are exactly 30 and 20 samples, under names made safe per label as doc/programs.md says
# (TypeInstance "%{op}-%{cgroup}": "fsync-root" for "/", "fsync-<child>" for "/<child>"; issue
# 21 found "fsync-_" and "fsync-_<child>": the rule was applied to the whole name).
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

cgroup2_root "bpf_get_current_cgroup_id() names cgroup2 cgroups"
CHILD=ebpf-it-cg-$$
CG="$CG_ROOT/$CHILD"
mkdir "$CG" || fail "cannot make the cgroup $CG"
cg_cleanup() { rmdir "$CG" 2>/dev/null || true; cleanup; }
trap cg_cleanup EXIT INT TERM

OBJ="$WORK/objects"
install_objects "$OBJ" contrib/programs/fsync_cgroup.bpf.o
cp "$top_builddir/tests/support/fsync_n" "$WORK/fsync_cg"
# The shipped block, the object where the test put it, counting the workload's command only.
shipped_program_config fsync_cgroup comm '"fsync_cg"'
start_collectd "$WORK/collectd.conf"
wait_for_csv fsync_cgroup percent-map_fill-latency 10 || fail "no first read of fsync_cgroup"

# Each workload moves itself into its cgroup, then calls fsync().
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" 30' sh "$CG_ROOT" "$WORK/fsync_cg" || fail "the root cgroup's workload failed"
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" 20' sh "$CG" "$WORK/fsync_cg" || fail "the child cgroup's workload failed"
wait_until 15 csv_is fsync_cgroup derive-fsync-root-count 30 ||
	fail "derive-fsync-root-count is '$(csv_last fsync_cgroup derive-fsync-root-count)', not 30; series: $(ls "$WORK/csv/itest/ebpf-fsync_cgroup/" | tr '\n' ' ')"
wait_until 15 csv_is fsync_cgroup "derive-fsync-$CHILD-count" 20 ||
	fail "derive-fsync-$CHILD-count is '$(csv_last fsync_cgroup "derive-fsync-$CHILD-count")', not 20; series: $(ls "$WORK/csv/itest/ebpf-fsync_cgroup/" | tr '\n' ' ')"
pass "fsync_cgroup: 30 fsync() calls in the root cgroup as fsync-root, 20 in /$CHILD as fsync-$CHILD"
for s in latency-fsync-root-50 latency-fsync-root-99 latency-fsync-root-average "latency-fsync-$CHILD-average"; do
	v=$(csv_last fsync_cgroup "$s")
	awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 10) }' || fail "$s is '$v', not a plausible fsync time in seconds"
done
pass "percentiles and means per cgroup: root p50 $(csv_last fsync_cgroup latency-fsync-root-50) s, $CHILD mean $(csv_last fsync_cgroup "latency-fsync-$CHILD-average") s"
other=$(ls "$WORK/csv/itest/ebpf-fsync_cgroup/" | grep -v -e '-root-' -e "-$CHILD-" $SELF_METRICS || true)
[ -z "$other" ] || fail "series of neither cgroup: $other"
stop_collectd
