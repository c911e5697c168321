#!/bin/sh
# Per-cgroup names in the real collectd (syscalls By "cgroup", CgroupDepth 3), two ways a
# cgroup's series could be merged with another's or split:
# - two cgroups whose paths are one name once made safe, <parent>/a/coll_x and
#   <parent>/a_coll/x (every '/' becomes '_'): two plugin instances, the later one's name with
#   '~' and a hash, each exactly its own fsync calls, and one warning saying so;
# - a cgroup with a name of 110 characters calling several syscalls: exactly one plugin
#   instance (the cgroup cut once, whatever the syscall's name after it), with its exact
#   fsync count.
. "$top_srcdir/tests/support/lib.sh"

LONG=$(printf 'l%.0s' $(seq 1 110))
test_cgroups ebpf-it-names a
mkdir -p "$CG_ROOT/$PARENT/a/coll_x" "$CG_ROOT/$PARENT/a_coll/x" "$CG_ROOT/$PARENT/a/$LONG" || fail "cannot make the test's cgroups"
names_cleanup() {
	for d in a/coll_x a_coll/x a_coll "a/$LONG"; do rmdir "$CG_ROOT/$PARENT/$d" 2>/dev/null || true; done
}
CG_BEFORE_REMOVAL=names_cleanup
FSYNC_N="$top_builddir/tests/support/fsync_n"
write_config "$WORK/collectd.conf" <<CONF
<Plugin ebpf>
  <Module "syscalls">
    By "cgroup"
    CgroupDepth 3
    Cgroup "/$PARENT/*"
  </Module>
</Plugin>
CONF
start_collectd "$WORK/collectd.conf"
# run DIR COUNT: fsync_n COUNT times from inside the cgroup <parent>/DIR.
run() { sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$CG_ROOT/$PARENT/$1" "$FSYNC_N" "$2" || fail "the workload in $1 failed"; }

# instances PREFIX: the plugin instances collectd wrote that start with PREFIX, without "ebpf-".
instances() { ls "$WORK/csv/itest/" | grep -F "ebpf-$1" | sed 's/^ebpf-//'; }
has_instances() { [ -n "$(instances "$1")" ]; }
I="syscalls.${PARENT}_a_coll_x"
run a/coll_x 30
wait_exact "$I" operations-fsync 30
run a_coll/x 20
wait_until 15 has_instances "$I~" || fail "no second plugin instance for a_coll/x: $(series)"
J=$(instances "$I~")
wait_exact "$J" operations-fsync 20
csv_is "$I" operations-fsync 30 || fail "ebpf-$I/operations-fsync is '$(csv_last "$I" operations-fsync)': the two cgroups were summed"
[ "$(grep -c "two cgroups are named \"${PARENT}_a_coll_x\"" "$WORK/collectd.log")" = 1 ] ||
	fail "collectd's log does not say once that the two cgroups share a name"
pass "a/coll_x and a_coll/x: ebpf-$I 30 fsync calls, ebpf-$J 20, one warning"

# The long cgroup: fsync_n makes write, fsync, exit_group... calls: one plugin instance.
run "a/$LONG" 7
wait_until 15 has_instances "syscalls.${PARENT}_a_lll" || fail "no plugin instance for the long cgroup: $(series)"
K=$(instances "syscalls.${PARENT}_a_lll")
# The instance's first files come one by one: its fsync file may not be there yet.
wait_until 15 csv_has_value "$(echo "$K" | head -n 1)" operations-fsync || fail "no operations-fsync file for the long cgroup: $(series)"
wait_for_new_line "$(echo "$K" | head -n 1)" operations-fsync
wait_for_new_line "$(echo "$K" | head -n 1)" operations-fsync
K=$(instances "syscalls.${PARENT}_a_lll")
[ "$(echo "$K" | wc -l)" = 1 ] || fail "the long cgroup is $(echo "$K" | wc -l) plugin instances: $(echo "$K" | tr '\n' ' ')"
csv_is "$K" operations-fsync 7 || fail "ebpf-$K/operations-fsync is '$(csv_last "$K" operations-fsync)', not 7"
[ "$(ls "$WORK/csv/itest/ebpf-$K" | wc -l)" -ge 3 ] || fail "ebpf-$K has fewer than 3 syscalls' files: $(ls "$WORK/csv/itest/ebpf-$K")"
pass "a cgroup of ${#LONG} characters: one plugin instance ebpf-$K, $(ls "$WORK/csv/itest/ebpf-$K" | wc -l) files, 7 fsync calls"
stop_collectd
