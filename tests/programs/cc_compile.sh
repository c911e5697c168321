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

# BPF_UPROBE and BPF_URETPROBE (contrib/programs/gai_latency.bpf.c uses both): libbpf before
# 1.2 lacks them and the tool includes bpf/include/uprobe_compat.bpf.h first; a bpf_tracing.h
# that has them (libbpf 1.2+: here a copy of this machine's with libbpf's two lines added, first
# on the include path) gets no such include. CLANG is wrapped to record what the tool runs.
BPF_TRACING=$(printf '#include <bpf/bpf_tracing.h>\n' | clang -M -target bpf -D__TARGET_ARCH_x86 -x c - 2>/dev/null |
	tr ' \\' '\n\n' | grep '/bpf/bpf_tracing\.h$' | head -n 1)
[ -f "$BPF_TRACING" ] || fail "cannot find libbpf's bpf_tracing.h"
cat > "$WORK/clang" <<WRAP
#!/bin/sh
case " \$* " in *" -E "*) ;; *) echo "\$*" >> "$WORK/clang.args" ;; esac
exec ${CLANG:-clang} "\$@"
WRAP
chmod +x "$WORK/clang"
gai="$srcdir/contrib/programs/gai_latency.bpf.c"
: > "$WORK/clang.args"
CLANG="$WORK/clang" sh "$CC_TOOL" -o "$WORK/gai_old.o" "$gai" || fail "gai_latency did not compile"
if grep -q '#define BPF_UPROBE(' "$BPF_TRACING"; then
	grep -q 'uprobe_compat.bpf.h' "$WORK/clang.args" && fail "uprobe_compat.bpf.h included, but $BPF_TRACING has BPF_UPROBE"
	echo "this libbpf's bpf_tracing.h has BPF_UPROBE: no compat header"
else
	grep -q -- "-include .*/uprobe_compat.bpf.h" "$WORK/clang.args" ||
		fail "$BPF_TRACING has no BPF_UPROBE, but uprobe_compat.bpf.h was not included: $(cat "$WORK/clang.args")"
	echo "this libbpf's bpf_tracing.h lacks BPF_UPROBE: uprobe_compat.bpf.h included first"
fi
mkdir -p "$WORK/newlibbpf/bpf"
cp "$(dirname "$BPF_TRACING")"/*.h "$WORK/newlibbpf/bpf/"
grep -q '#define BPF_UPROBE(' "$WORK/newlibbpf/bpf/bpf_tracing.h" || cat >> "$WORK/newlibbpf/bpf/bpf_tracing.h" <<'H'
#define BPF_UPROBE(name, args...)  BPF_KPROBE(name, ##args)
#define BPF_URETPROBE(name, args...)  BPF_KRETPROBE(name, ##args)
H
: > "$WORK/clang.args"
CLANG="$WORK/clang" sh "$CC_TOOL" -I "$WORK/newlibbpf" -o "$WORK/gai_new.o" "$gai" -- -Werror || fail "gai_latency did not compile against a bpf_tracing.h with BPF_UPROBE"
grep -q 'uprobe_compat.bpf.h' "$WORK/clang.args" && fail "uprobe_compat.bpf.h included beside a bpf_tracing.h that has BPF_UPROBE"
for o in gai_old gai_new; do
	bpftool btf dump file "$WORK/$o.o" | grep -q "FUNC 'gai_enter'" && bpftool btf dump file "$WORK/$o.o" | grep -q "FUNC 'gai_exit'" ||
		fail "$o.o has no programs gai_enter and gai_exit"
done
pass "BPF_UPROBE/BPF_URETPROBE: supplied where libbpf lacks them, left to a libbpf that has them"

# A program written against vmlinux.h that uses bpf/bpf_helpers.h without including it, as
# ebpf_exporter's biolatency and raw-tracepoints do: their bits.bpf.h (from BCC's libbpf-tools)
# writes `static __always_inline` and their maps.bpf.h calls bpf_map_lookup_elem, and neither
# they nor bpf_core_read.h include bpf_helpers.h. The tool includes vmlinux.h and
# bpf_helpers.h first for such a program: it compiles unmodified, without a warning, and its
# helper calls are helper calls (no undefined symbol left for libbpf to refuse).
mkdir -p "$WORK/exporter_style"
cat > "$WORK/exporter_style/bits_like.bpf.h" <<'H'
#ifndef BITS_LIKE_BPF_H
#define BITS_LIKE_BPF_H
static __always_inline u64 log2_like(u32 v)
{
	u32 r = 0;

	while (v >>= 1)
		r++;
	return r;
}
#endif
H
cat > "$WORK/exporter_style/maps_like.bpf.h" <<'H'
#include "bits_like.bpf.h"
#define increment_like(map, key) do { \
	u64 *count = bpf_map_lookup_elem(map, key), one = 1; \
	if (count) __sync_fetch_and_add(count, 1); \
	else bpf_map_update_elem(map, key, &one, BPF_NOEXIST); \
} while (0)
H
cat > "$WORK/exporter_style/helpers_unincluded.bpf.c" <<'C'
#include <vmlinux.h>
#include <bpf/bpf_core_read.h>
#include "maps_like.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, u64);
	__type(value, u64);
} write_sizes_total SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_write")
int count_write(struct trace_event_raw_sys_enter *ctx)
{
	u64 slot = log2_like((u32)ctx->args[2]);

	increment_like(&write_sizes_total, &slot);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
C
sh "$CC_TOOL" -o "$WORK/helpers_unincluded.o" "$WORK/exporter_style/helpers_unincluded.bpf.c" -- -Wall -Werror ||
	fail "a program using bpf_helpers.h without including it (ebpf_exporter's biolatency style) did not compile"
undefined=$(readelf -sW "$WORK/helpers_unincluded.o" | awk '$7 == "UND" && $8 != "" { print $8 }')
[ -z "$undefined" ] || fail "helpers_unincluded.o calls undefined symbols (helpers not declared): $undefined"
bpftool btf dump file "$WORK/helpers_unincluded.o" | grep -q "FUNC 'count_write'" || fail "helpers_unincluded.o has no program count_write"
pass "a program using bpf_helpers.h's __always_inline and helpers without including it compiles with -Wall -Werror"
