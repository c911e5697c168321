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
awk 'BEGIN { print "collectd-ebpf-snapshot\t3"; print "written\t1";
	for (i = 0; i < 590000; i++) printf "module\tm%07d\trunning\t0\t\t\n", i; print "end" }' > "$WORK/modules"
[ "$(stat -c %s "$WORK/modules")" -gt 16000000 ] || fail "the module lines are not 16 MiB"
refused "$WORK/modules" "is not a collectd-ebpf snapshot this version can read: line 259: more than 256 modules"

# A snapshot whose texts carry what drives a terminal (ESC, an OSC title, an OSC 8 link, C1
# CSI as UTF-8, a bidi override, U+2028, bytes that are not UTF-8): the view shows them as
# base/text_rule.h's escapes (\xHH), never as they are; its output is valid UTF-8.
printf 'collectd-ebpf-snapshot\t3\nwritten\t1700000000000000\n' > "$WORK/hostile"
printf 'module\tbad\033[31m\tfailed\t0\t\t\033]0;pwned\007 \033]8;;http://x/\033\\\\link\033]8;;\033\\\\ \302\23331m \342\200\256gnp.exe \377\376\n' >> "$WORK/hostile"
printf 'module\tsyscalls\trunning\t1700000000000000\t\t\ncounter\tcalls\twr\033[2Jite\302\233\3775\t42\n' >> "$WORK/hostile"
printf 'histogram\tlat\tfsy\033]0;t\007nc\342\200\250\tnanoseconds\t2\t3\t3000\t3\t1000\t1000\t1000\t1000\nbucket\t40\t3\nend\n' >> "$WORK/hostile"
timeout 60 "$VIEW" --snapshot "$WORK/hostile" --once --since-start > "$WORK/out" 2>&1 || { cat "$WORK/out" >&2; fail "the view refused the hostile snapshot"; }
for shown in 'bad\x1b[31m: failed: \x1b]0;pwned\x07 \x1b]8;;http://x/\x1b\link\x1b]8;;\x1b\ \xc2\x9b31m \xe2\x80\xaegnp.exe \xff\xfe' \
	'lat-fsy\x1b]0;t\x07nc\xe2\x80\xa8: 3 events' 'operations-wr\x1b[2Jite\xc2\x9b\xff5'; do
	grep -qF -- "$shown" "$WORK/out" || { cat "$WORK/out" >&2; fail "the view does not show: $shown"; }
done
LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177\377\376]')" "$WORK/out" && fail "the view printed a control byte or a byte that is not UTF-8"
LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$WORK/out" && fail "the view printed a C1 control"
LC_ALL=C grep -q "$(printf '\342\200[\250\256]')" "$WORK/out" && fail "the view printed U+2028 or U+202E"
iconv -f UTF-8 -t UTF-8 "$WORK/out" > /dev/null || fail "the view's output is not valid UTF-8"
echo "ok: a snapshot's ESC, OSC, C1, bidi and invalid bytes are shown escaped"
