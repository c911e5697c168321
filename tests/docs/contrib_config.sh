#!/bin/sh
# contrib/ebpf.conf as a user edits it: every commented block and option uncommented must
# still be a valid configuration that collectd -T accepts with every module configured, the
# syscalls module's By "cgroup" block ("which service?") among them.
# Commented settings are written "#Key", "#<Module" or "#  Key" (prose is "# Text").
. "$top_srcdir/tests/support/lib.sh"

# Every setting uncommented; the snapshot goes to the work directory, and its group is one
# this host has (doc/snmp.md's walk creates ebpf-snmp).
sed -E 's/^([[:space:]]*)#([^[:space:]#]|  )/\1\2/' "$top_srcdir/contrib/ebpf.conf" |
	sed "s|\"/run/collectd-ebpf/snapshot\"|\"$WORK/snapshot\"|; s|SnapshotGroup \"ebpf-snmp\"|SnapshotGroup \"root\"|" \
	> "$WORK/ebpf.conf"
grep -q '^  <Module "runqueue">' "$WORK/ebpf.conf" || fail "the uncommenting missed the runqueue block"
grep -q '^  SnapshotGroup' "$WORK/ebpf.conf" || fail "the uncommenting missed SnapshotGroup"
grep -q '^    By "cgroup"$' "$WORK/ebpf.conf" || fail "contrib/ebpf.conf has no commented By \"cgroup\" block (\"which service?\")"
write_config "$WORK/all.conf" <<CONF
Include "$WORK/ebpf.conf"
CONF
collectd_t "$WORK/all.conf" "collectd -T refused contrib/ebpf.conf with every block uncommented"
modules=$(grep -c '^  <Module ' "$WORK/ebpf.conf")
grep -q "ebpf plugin: [0-9]* of $modules modules running" "$WORK/collectd.log" ||
	fail "not every one of the $modules uncommented modules was configured"
# The By "cgroup" block is taken: the syscalls module plans its per-cgroup rows.
grep -q 'ebpf plugin: syscalls: and per cgroup at depth 2, at most 50 cgroups and other' "$WORK/collectd.log" ||
	fail "collectd -T says nothing of syscalls' per-cgroup rows: $(grep 'ebpf plugin: syscalls' "$WORK/collectd.log" | head -n 5)"
pass "contrib/ebpf.conf with every block uncommented: $(grep -o "[0-9]* of $modules modules running" "$WORK/collectd.log"), syscalls $(grep -o 'per cgroup at depth 2, at most 50 cgroups and other' "$WORK/collectd.log" | head -n 1)"
