#!/bin/sh
# Several <Plugin ebpf> blocks: collectd hands each to the plugin, which adds up their modules
# and programs. That is how a program's own .conf works (contrib/programs/*.conf, dropped into
# collectd.conf.d beside contrib/ebpf.conf): here both as shipped, with collectd -T, and the
# modules of both blocks run; so do they when other files sort before ebpf.conf (each has its
# own LoadPlugin ebpf: collectd drops a <Plugin> block read before its plugin is loaded). An
# option of the whole plugin given in two blocks (a second SnapshotFile) is an error naming
# it, not a silent override of the first.
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

# Files that collectd reads before ebpf.conf (byte order of names): doc/modules.md's block.conf
# and the program's .conf as biowho.conf, under contrib/collectd.conf, which loads no ebpf
# itself. Each loads the plugin, so none is dropped ("There is configuration for the `ebpf'
# plugin, but the plugin isn't loaded"), and the later LoadPlugin ebpf lines do nothing.
: > "$WORK/collectd.log"
mv "$WORK/conf.d/sync_count.conf" "$WORK/conf.d/biowho.conf"
awk '/^<!-- block-conf:/ { s = 1; next } s && /^```$/ { if (in_block) exit; in_block = 1; next } in_block' \
	"$top_srcdir/doc/modules.md" > "$WORK/conf.d/block.conf"
grep -q '^  <Module "block">' "$WORK/conf.d/block.conf" || fail "doc/modules.md has no block.conf to run: $(cat "$WORK/conf.d/block.conf")"
sed -e "s|/etc/collectd/collectd.conf.d|$WORK/conf.d|; s|/var/lib/collectd|$WORK|; s|/var/log/collectd.log|$WORK/collectd.log|" \
	-e "s|/run/collectd.pid|$WORK/collectd.pid|; s|/usr/share/collectd/types.db|$TYPESDB|" \
	"$top_srcdir/contrib/collectd.conf" | walk_collectd_conf "$WORK/main.conf"
! grep -q '^LoadPlugin ebpf' "$WORK/main.conf" || fail "contrib/collectd.conf loads ebpf itself"
[ "$(ls "$WORK/conf.d" | tr '\n' ' ')" = "biowho.conf block.conf ebpf.conf " ] || fail "conf.d has $(ls "$WORK/conf.d")"
collectd_t "$WORK/main.conf" "collectd -T refused biowho.conf, block.conf and ebpf.conf"
if grep -F "plugin isn't loaded" "$WORK/collectd.log" >&2; then fail "collectd dropped a <Plugin ebpf> block read before ebpf.conf"; fi
grep -q "ebpf plugin: $((modules + 2)) of $((modules + 2)) modules running" "$WORK/collectd.log" ||
	fail "not every module of biowho.conf, block.conf and ebpf.conf ran: $(grep -o 'ebpf plugin: [0-9]* of [0-9]* modules running' "$WORK/collectd.log")"
grep -q 'ebpf plugin: sync_count: sync attached via' "$WORK/collectd.log" || fail "biowho.conf's sync_count did not attach"
grep -q 'ebpf plugin: block: .* attached via' "$WORK/collectd.log" || fail "block.conf's block module did not attach"
pass "biowho.conf, block.conf before ebpf.conf, each with its LoadPlugin ebpf: $((modules + 2)) of $((modules + 2)) running"

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
