#!/bin/sh
# collectd-ebpf-hist on what is not a snapshot, as the SNMP subagent would meet it: /dev/zero
# (it once read until out of memory), a FIFO nobody writes (it once hung), a file over 16 MiB,
# 16 MiB of module lines (it once took 2.3 GB). Each is one clear error and exit status 1,
# at once: `timeout` only guards the suite against a hang, it measures nothing.
set -eu
: "${top_builddir:?run through make check}"
VIEW="$top_builddir/collectd-ebpf-hist"
WORK=$(mktemp -d /tmp/ebpf-view-inputs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }

# refused PATH TEXT: the view exits 1 saying TEXT.
refused() {
	rc=0
	timeout 60 "$VIEW" --snapshot "$1" --once --interval 0.1 > "$WORK/out" 2>&1 || rc=$?
	[ "$rc" != 124 ] || fail "$1: the view hung"
	[ "$rc" = 1 ] || { cat "$WORK/out" >&2; fail "$1: exit status $rc, expected 1"; }
	grep -qF -- "$2" "$WORK/out" || { cat "$WORK/out" >&2; fail "$1: the error does not say: $2"; }
	echo "ok: $1: $(cat "$WORK/out")" | cut -c1-200
}

refused /dev/zero "collectd-ebpf-hist: /dev/zero is not a regular file: SnapshotFile names the file the plugin writes"
mkfifo "$WORK/fifo"
refused "$WORK/fifo" "$WORK/fifo is not a regular file"
truncate -s 17M "$WORK/huge"
refused "$WORK/huge" "$WORK/huge is larger than 16 MiB: not a snapshot of the plugin"
awk 'BEGIN { print "collectd-ebpf-snapshot\t2"; print "written\t1";
	for (i = 0; i < 590000; i++) printf "module\tm%07d\trunning\t0\t\t\n", i; print "end" }' > "$WORK/modules"
[ "$(stat -c %s "$WORK/modules")" -gt 16000000 ] || fail "the module lines are not 16 MiB"
refused "$WORK/modules" "is not a collectd-ebpf snapshot this version can read: line 259: more than 256 modules"
