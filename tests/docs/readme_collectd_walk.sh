#!/bin/sh
# README's collectd walk, as printed: the sh blocks between <!-- collectd-walk and
# <!-- /collectd-walk --> run verbatim, except that the system paths they name
# (/etc/collectd, /var/log/collectd.log, /var/lib/collectd, /run/collectd.pid) are moved
# into the test's directory and collectd's plugins come from the build tree. A fresh machine's state: no collectd.conf, no collectd.conf.d.
. "$top_srcdir/tests/support/lib.sh"

walk=$(doc_walk "$top_srcdir/README.md" collectd-walk)
[ -n "$walk" ] || fail "README has no collectd walk"

# The system paths, moved into $WORK (the same rewrite for the commands and the configs).
relocate() {
	sed -e "s|/etc/collectd|$WORK/etc/collectd|g" -e "s|/var/log/collectd.log|$WORK/collectd.log|g" \
		-e "s|/var/lib/collectd|$WORK/var/lib/collectd|g" -e "s|/run/collectd.pid|$WORK/collectd.pid|g" \
		-e "s|/run/collectd-ebpf|$WORK/run/collectd-ebpf|g" -e "s|/tmp/fsync.png|$WORK/fsync.png|g" -e "s|/tmp/fsync-walk.dat|$WORK/fsync-walk.dat|g"
}
mkdir -p "$WORK/src/contrib" "$WORK/var/lib" "$WORK/run" # /var/lib and /run exist on any machine
# A fresh machine's state: the directories Debian creates (/var/lib, /run) exist.
# collectd.conf as shipped, relocated; plugins from the build tree; 1 s intervals.
relocate < "$top_srcdir/contrib/collectd.conf" | walk_collectd_conf "$WORK/src/contrib/collectd.conf"
# The plugin's default SnapshotFile, /run/collectd-ebpf/snapshot, moved as the paths above.
walk_ebpf_conf "$WORK/run/collectd-ebpf/snapshot" "$WORK/src/contrib/ebpf.conf"

echo "$walk" | relocate | sed "s|^collectd |\"$COLLECTD\" |; s|&& collectd |\\&\\& \"$COLLECTD\" |" > "$WORK/walk.sh"
# Up to the daemon's start (the line that starts collectd without -T); the rest after the
# workload.
before=$(sed -n '1,/^"[^"]*" -C /p' "$WORK/walk.sh")
after=$(sed '1,/^"[^"]*" -C /d' "$WORK/walk.sh")
[ -n "$before" ] && [ -n "$after" ] || fail "could not split the walk at the daemon's start: $(cat "$WORK/walk.sh")"

# Step 2 when the check fails: a typo in ebpf.conf. collectd -T alone prints only "Parsing the
# config file failed"; the step as printed must show the plugin's own error and the status.
steps12=$(echo "$before" | sed '$d')
mkdir -p "$WORK/bad/contrib"
cp "$WORK/src/contrib/collectd.conf" "$WORK/bad/contrib/"
sed 's/^    Percentile 50$/    Percentil 50/' "$top_srcdir/contrib/ebpf.conf" > "$WORK/bad/contrib/ebpf.conf"
grep -q 'Percentil 50' "$WORK/bad/contrib/ebpf.conf" || fail "contrib/ebpf.conf has no 'Percentile 50' line to break"
( cd "$WORK/bad" && sh -c "$steps12" ) > "$WORK/walk-bad.out" 2>&1 || true
grep -q 'ebpf plugin: .*Percentil' "$WORK/walk-bad.out" || { cat "$WORK/walk-bad.out" >&2; fail "step 2 with a typo did not show the plugin's error"; }
grep -q '^collectd -T: exit status [1-9]' "$WORK/walk-bad.out" || { cat "$WORK/walk-bad.out" >&2; fail "step 2 with a typo did not show a failing exit status"; }
pass "step 2 with a typo shows: $(grep -m1 'ebpf plugin: .*Percentil' "$WORK/walk-bad.out" | sed 's/^\[[^]]*\] //')"
# The walk itself on a fresh state again: no config installed, no log.
rm -rf "$WORK/etc" "$WORK/collectd.log"

( cd "$WORK/src" && sh -e -c "$before" ) > "$WORK/walk1.out" 2>&1 || { cat "$WORK/walk1.out" >&2; fail "README's steps 1-3 failed"; }
grep -q 'ebpf plugin: 1 of 1 module running' "$WORK/walk1.out" || { cat "$WORK/walk1.out" >&2; fail "step 2 did not show the plugin running"; }
grep -q '^collectd -T: exit status 0$' "$WORK/walk1.out" || { cat "$WORK/walk1.out" >&2; fail "step 2 did not show exit status 0"; }
pass "steps 1-2: config installed on a fresh tree, collectd -T passes: $(grep -m1 'module running' "$WORK/walk1.out")"
wait_for_log "Initialization complete" 20 || fail "collectd did not start"
i=0
while [ ! -s "$WORK/collectd.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
COLLECTD_PID=$(cat "$WORK/collectd.pid") || fail "collectd wrote no $WORK/collectd.pid"
host=$(hostname)
rrd="$WORK/var/lib/collectd/rrd/$host/ebpf-syscalls/operations-fsync.rrd"
# Step 4 makes its own fsync calls: this test makes none, so the walk must produce what it reads.
( cd "$WORK/src" && sh -e -c "$after" ) > "$WORK/walk2.out" 2>&1 || { cat "$WORK/walk2.out" >&2; fail "step 4 failed"; }
grep -Eq '^[0-9]+: [0-9]+' "$WORK/walk2.out" || { cat "$WORK/walk2.out" >&2; fail "rrdtool lastupdate printed no value"; }
[ -s "$WORK/fsync.png" ] || fail "rrdtool graph wrote no image"
# A size people can read: rrdtool graph prints the image's WIDTHxHEIGHT.
size=$(grep -Em1 '^[0-9]+x[0-9]+$' "$WORK/walk2.out") || { cat "$WORK/walk2.out" >&2; fail "rrdtool graph printed no size"; }
[ "${size%x*}" -ge 800 ] && [ "${size#*x}" -ge 300 ] || fail "the graph is $size, smaller than 800x300"
# Something to see in the graph's ten minutes: a rate above 0 (not only NaN, not only 0).
rates=$("${RRDTOOL:-rrdtool}" fetch "$rrd" AVERAGE --start -10min | awk -F': ' 'NF == 2 && $2 !~ /nan/ && $2 + 0 > 0 { n++ } END { print n + 0 }')
[ "$rates" -gt 0 ] || { "${RRDTOOL:-rrdtool}" fetch "$rrd" AVERAGE --start -10min | tail -n 40 >&2; fail "the graph's ten minutes hold no fsync rate above 0"; }
pass "step 4: $(grep -E '^[0-9]+: ' "$WORK/walk2.out" | head -n 1), a $size graph with $rates rates above 0"

# README's stop command; the daemon is no child of this shell, so wait for it by its pid.
kill "$(cat "$WORK/collectd.pid")" || fail "no collectd at the pid in $WORK/collectd.pid"
i=0
while kill -0 "$COLLECTD_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$COLLECTD_PID" 2>/dev/null && fail "collectd did not stop"
COLLECTD_PID=
pass "stopped with kill \$(cat /run/collectd.pid)"

# --- README's non-root collectd, as printed: the user made by its own command -------------------
nonroot=$(awk '/^<!-- nonroot-collectd/ { on = 1; next } on && /^```sh$/ { code = 1; next }
	code && /^```$/ { exit } code' "$top_srcdir/README.md")
[ -n "$nonroot" ] || fail "README has no non-root collectd block"
echo "$nonroot" | relocate | sed "s| collectd -f | \"$COLLECTD\" -f |" > "$WORK/nonroot.sh"
grep -q "\"$COLLECTD\" -f " "$WORK/nonroot.sh" || fail "the non-root block starts no collectd -f: $(cat "$WORK/nonroot.sh")"
# A fresh machine has no collectd user: the block's adduser makes it; this test removes what it made.
made_user=
id collectd >/dev/null 2>&1 || made_user=1
nonroot_cleanup() {
	if [ -n "${NONROOT_PID:-}" ]; then kill "$NONROOT_PID" 2>/dev/null || :; fi
	if [ -n "$made_user" ]; then
		deluser --quiet --system collectd >/dev/null 2>&1 || :
		! getent group collectd >/dev/null || delgroup --quiet --system collectd >/dev/null 2>&1 || :
	fi
	cleanup
}
trap nonroot_cleanup EXIT INT TERM
running_before=$(grep -c 'ebpf plugin: 1 of 1 module running' "$WORK/collectd.log")
touch "$WORK/nonroot.start"
( cd "$WORK/src" && exec sh -e "$WORK/nonroot.sh" ) > "$WORK/nonroot.out" 2>&1 &
sh_pid=$!
wait_until 20 pgrep -P "$sh_pid" -x collectd || { cat "$WORK/nonroot.out" >&2; fail "the non-root block started no collectd"; }
NONROOT_PID=$(pgrep -P "$sh_pid" -x collectd)
more_running() { [ "$(grep -c 'ebpf plugin: 1 of 1 module running' "$WORK/collectd.log")" -gt "$running_before" ]; }
wait_until 20 more_running || { cat "$WORK/nonroot.out" >&2; fail "collectd as collectd did not start the module"; }
[ "$(ps -o user= -p "$NONROOT_PID")" = collectd ] || fail "collectd runs as $(ps -o user= -p "$NONROOT_PID"), not collectd"
snap="$WORK/run/collectd-ebpf/snapshot"
wait_until 10 test -f "$snap" || fail "collectd as collectd wrote no snapshot in $snap"
[ "$(stat -c %U "$snap")" = collectd ] || fail "the snapshot is $(stat -c %U "$snap")'s, not collectd's"
newer_rrd() { [ -n "$(find "$WORK/var/lib/collectd/rrd/$host/ebpf-syscalls" -name '*.rrd' -newer "$WORK/nonroot.start")" ]; }
wait_until 10 newer_rrd || fail "collectd as collectd updated no RRD file"
! grep -Ei 'permission denied|error' "$WORK/nonroot.out" || fail "the non-root block printed errors: $(cat "$WORK/nonroot.out")"
kill "$NONROOT_PID"
wait "$sh_pid" 2>/dev/null || :
NONROOT_PID=
pass "non-root: $(grep -c . "$WORK/nonroot.sh") commands as printed; collectd runs as collectd, the module runs, its snapshot and RRD files are written"
