#!/bin/sh
# Several <Plugin ebpf> blocks: collectd hands each to the plugin, which adds up their modules
# and programs. That is how a program's own .conf works (contrib/programs/*.conf, dropped into
# collectd.conf.d beside contrib/ebpf.conf): here both as shipped, with collectd -T, and the
# modules of both blocks run. An option of the whole plugin given in two blocks (a second
# SnapshotFile) is an error naming it, not a silent override of the first.
. "$top_srcdir/tests/support/lib.sh"
. "$top_srcdir/tests/support/program_lib.sh"

OBJ="$WORK/objects"
install_objects "$OBJ" contrib/programs/sync_count.bpf.o
mkdir "$WORK/conf.d"
cp "$top_srcdir/contrib/ebpf.conf" "$WORK/conf.d/ebpf.conf"
sed "s|/etc/collectd/ebpf.d|$OBJ|" "$top_srcdir/contrib/programs/sync_count.conf" > "$WORK/conf.d/sync_count.conf"
write_config "$WORK/collectd.conf" <<CONF
<Include "$WORK/conf.d">
  Filter "*.conf"
</Include>
CONF
collectd_t "$WORK/collectd.conf" "collectd -T refused contrib/ebpf.conf beside contrib/programs/sync_count.conf"
modules=$(grep -c '^  <Module ' "$WORK/conf.d/ebpf.conf")
grep -q "ebpf plugin: $((modules + 1)) of $((modules + 1)) modules running" "$WORK/collectd.log" ||
	fail "not every module of ebpf.conf and the program of sync_count.conf ran"
grep -q 'ebpf plugin: sync_count: sync attached via' "$WORK/collectd.log" || fail "sync_count did not attach"
pass "contrib/ebpf.conf and contrib/programs/sync_count.conf, two <Plugin ebpf> blocks: $((modules + 1)) of $((modules + 1)) running"

: > "$WORK/collectd.log"
write_config "$WORK/twice.conf" <<CONF
<Plugin ebpf>
  SnapshotFile "$WORK/one"
  <Module "signals">
  </Module>
</Plugin>
<Plugin ebpf>
  SnapshotFile "$WORK/two"
</Plugin>
CONF
if "$COLLECTD" -T -C "$WORK/twice.conf" > "$WORK/twice.out" 2>&1; then
	cat "$WORK/twice.out" >&2; fail "collectd -T accepted SnapshotFile in two <Plugin ebpf> blocks"
fi
expected='ebpf plugin: option "SnapshotFile" is given twice; the <Plugin ebpf> blocks are one configuration (their modules and programs add up): give it once'
grep -qF -- "$expected" "$WORK/collectd.log" "$WORK/twice.out" || { cat "$WORK/twice.out" >&2; fail "the error is not: $expected"; }
pass "SnapshotFile in two blocks: $expected"
