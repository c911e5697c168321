#!/bin/sh
# collectd-ebpf-cc (tools/collectd-ebpf-cc.sh) on a machine that never ran it: an empty cache,
# vmlinux.h generated from this kernel's BTF, every program in contrib/programs/ compiled with
# the plugin's headers, BTF names kept (the plugin finds maps and params by them), the cache
# reused the second time, and clear errors for a missing file and a kernel without BTF.
set -eu
srcdir=${top_srcdir:-.}
CC_TOOL="$srcdir/tools/collectd-ebpf-cc.sh"
WORK=$(mktemp -d /tmp/ebpf-cc.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export COLLECTD_EBPF_CACHE="$WORK/cache"
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok: $*"; }

n=0
for src in "$srcdir"/contrib/programs/*.bpf.c; do
	name=$(basename "$src" .c)
	sh "$CC_TOOL" -o "$WORK/$name.o" "$src" || fail "$name did not compile"
	[ "$(od -An -tx1 -j18 -N2 "$WORK/$name.o" | tr -d ' ')" = "f700" ] || fail "$name.o is not a BPF ELF object (e_machine 247)"
	bpftool btf dump file "$WORK/$name.o" > "$WORK/$name.btf" || fail "$name.o has no BTF"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no programs in contrib/programs"
pass "$n programs compiled to BPF objects with BTF"
grep -q "VAR 'sync_calls'" "$WORK/sync_count.bpf.btf" || fail "sync_count.bpf.o lost the map name in BTF"
grep -q "VAR 'filter_tgid'" "$WORK/sync_count.bpf.btf" || fail "sync_count.bpf.o lost its param in BTF"
pass "map and param names are in the objects' BTF"

vm=$(ls "$COLLECTD_EBPF_CACHE"/vmlinux-*/vmlinux.h)
[ "$(echo "$vm" | wc -l)" = 1 ] || fail "expected one cached vmlinux.h, got: $vm"
before=$(stat -c %Y.%i "$vm")
sleep 1
sh "$CC_TOOL" -o "$WORK/again.o" "$srcdir/contrib/programs/sync_count.bpf.c" || fail "second compile failed"
[ "$(stat -c %Y.%i "$vm")" = "$before" ] || fail "vmlinux.h was regenerated instead of reused"
pass "vmlinux.h generated once and reused"

if out=$(sh "$CC_TOOL" "$WORK/missing.bpf.c" 2>&1); then fail "a missing source compiled"; fi
echo "$out" | grep -q "no such file: $WORK/missing.bpf.c" || fail "missing source: $out"
if out=$(COLLECTD_EBPF_BTF="$WORK/nobtf" sh "$CC_TOOL" "$srcdir/contrib/programs/sync_count.bpf.c" 2>&1); then
	fail "compiled without BTF"
fi
echo "$out" | grep -q "this kernel has no BTF" || fail "no BTF: $out"
pass "missing source and missing BTF explained"
