#!/bin/sh
# contrib/ebpf.conf as a user edits it: every commented block and option uncommented must
# still be a valid configuration that collectd -T accepts with every module configured.
# Commented settings are written "#Key", "#<Module" or "#  Key" (prose is "# Text").
. "$top_srcdir/tests/support/lib.sh"

# Every setting uncommented; the snapshot goes to the work directory, and its group is one
# this host has (doc/snmp.md's walk creates ebpf-snmp).
sed -E 's/^([[:space:]]*)#([^[:space:]#]|  )/\1\2/' "$top_srcdir/contrib/ebpf.conf" |
	sed "s|\"/run/collectd-ebpf/snapshot\"|\"$WORK/snapshot\"|; s|SnapshotGroup \"ebpf-snmp\"|SnapshotGroup \"root\"|" \
	> "$WORK/ebpf.conf"
grep -q '^  <Module "runqueue">' "$WORK/ebpf.conf" || fail "the uncommenting missed the runqueue block"
grep -q '^  SnapshotGroup' "$WORK/ebpf.conf" || fail "the uncommenting missed SnapshotGroup"
write_config "$WORK/all.conf" <<CONF
Include "$WORK/ebpf.conf"
CONF
collectd_t "$WORK/all.conf" "collectd -T refused contrib/ebpf.conf with every block uncommented"
modules=$(grep -c '^  <Module ' "$WORK/ebpf.conf")
grep -q "ebpf plugin: [0-9]* of $modules modules running" "$WORK/collectd.log" ||
	fail "not every one of the $modules uncommented modules was configured"
pass "contrib/ebpf.conf with every block uncommented: $(grep -o "[0-9]* of $modules modules running" "$WORK/collectd.log")"
