#!/bin/sh
# collectd-ebpf-cc: compile a BPF program for the ebpf plugin's <Program> blocks.
#
#   collectd-ebpf-cc [-o OUT.bpf.o] [-I DIR]... PROG.bpf.c [-- CLANG-ARGS...]
#
# Environment: COLLECTD_EBPF_BTF (default /sys/kernel/btf/vmlinux), COLLECTD_EBPF_CACHE (where
# vmlinux.h is kept; default /var/cache/collectd-ebpf for root, ~/.cache/collectd-ebpf for
# others), COLLECTD_EBPF_HEADERS, CLANG, BPFTOOL.
#
# Generates vmlinux.h from this kernel's BTF once (cached by the BTF's checksum, so a kernel
# upgrade regenerates it), adds the plugin's BPF headers (the histogram row and record function,
# the start-time store: see README "Writing a program"), and runs clang for the BPF target with
# debug info (BTF: the plugin finds map fields and globals by name through it). CO-RE makes the
# object run on other kernels with BTF too; it needs no compiler where it runs.
set -eu

# Set at install time; in a source tree, the tree's bpf/include.
HEADERS=${COLLECTD_EBPF_HEADERS:-@pkgincludedir@}
case $HEADERS in @*) HEADERS=$(cd "$(dirname "$0")/../bpf/include" && pwd) ;; esac
BTF=${COLLECTD_EBPF_BTF:-/sys/kernel/btf/vmlinux}
CLANG=${CLANG:-clang}
BPFTOOL=${BPFTOOL:-bpftool}

usage() {
	echo "usage: collectd-ebpf-cc [-o OUT.bpf.o] [-I DIR]... PROG.bpf.c [-- CLANG-ARGS...]" >&2
	exit 2
}
die() { echo "collectd-ebpf-cc: $*" >&2; exit 1; }

out= src= incs=
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	-I) [ $# -ge 2 ] || usage; incs="$incs -I$2"; shift 2 ;;
	-I*) incs="$incs $1"; shift ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) die "unknown option $1 (clang options go after --)" ;;
	*) [ -z "$src" ] || usage; src=$1; shift ;;
	esac
done
[ -n "$src" ] || usage
[ -f "$src" ] || die "no such file: $src"
[ -n "$out" ] || out=$(dirname "$src")/$(basename "$src" .c).o
case $out in *.c) die "output $out would overwrite a source file" ;; esac

command -v "$CLANG" >/dev/null 2>&1 || die "$CLANG not found: apt-get install clang"
command -v "$BPFTOOL" >/dev/null 2>&1 || die "$BPFTOOL not found: apt-get install bpftool"
[ -r "$BTF" ] || die "$BTF is missing: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF=y); set COLLECTD_EBPF_BTF to a vmlinux with BTF"
[ -f "$HEADERS/hist_row.bpf.h" ] || die "the plugin's BPF headers are not in $HEADERS (set COLLECTD_EBPF_HEADERS)"

case $(uname -m) in
x86_64) arch=x86 ;;
aarch64) arch=arm64 ;;
armv7*|armv6*) arch=arm ;;
ppc64le) arch=powerpc ;;
s390x) arch=s390 ;;
riscv64) arch=riscv ;;
loongarch64) arch=loongarch ;;
*) die "unknown machine $(uname -m): pass -- -D__TARGET_ARCH_<arch>" ;;
esac

# Root caches for everyone, others in their own cache: vmlinux.h is ~3 MB and takes a second.
if [ -n "${COLLECTD_EBPF_CACHE:-}" ]; then cache=$COLLECTD_EBPF_CACHE
elif [ "$(id -u)" = 0 ]; then cache=/var/cache/collectd-ebpf
else cache=${XDG_CACHE_HOME:-$HOME/.cache}/collectd-ebpf; fi
sum=$(sha256sum "$BTF" | cut -c1-16)
vmdir=$cache/vmlinux-$sum
if [ ! -f "$vmdir/vmlinux.h" ]; then
	mkdir -p "$vmdir" || die "cannot create $vmdir"
	tmp=$vmdir/vmlinux.h.$$
	"$BPFTOOL" btf dump file "$BTF" format c > "$tmp" || { rm -f "$tmp"; die "bpftool could not dump $BTF"; }
	mv "$tmp" "$vmdir/vmlinux.h"
fi

# The multiarch include dir holds asm/ headers some programs pull in through bpf_helpers.h.
multiarch=$(gcc -print-multiarch 2>/dev/null || true)
[ -n "$multiarch" ] && [ -d "/usr/include/$multiarch" ] && incs="$incs -I/usr/include/$multiarch"

# BPF_UPROBE and BPF_URETPROBE, as the kernel's and libbpf's docs write uprobes, came with
# libbpf 1.2: against an older bpf_tracing.h (Debian 12's libbpf 1.1) the plugin's
# uprobe_compat.bpf.h supplies them, included first; where bpf_tracing.h has them (libbpf 1.5
# on Debian 13) it is left out. Asked of the same include path the program compiles with.
compat=
# shellcheck disable=SC2086 # $incs is a list of -I options
if ! printf '#include <bpf/bpf_tracing.h>\n' |
	"$CLANG" -E -dM -target bpf -D__TARGET_ARCH_$arch -I"$vmdir" -I"$HEADERS" $incs "$@" -x c - 2>/dev/null |
	grep -q '^#define BPF_UPROBE('; then
	[ -f "$HEADERS/uprobe_compat.bpf.h" ] || die "the plugin's BPF headers in $HEADERS lack uprobe_compat.bpf.h (set COLLECTD_EBPF_HEADERS)"
	compat=$HEADERS/uprobe_compat.bpf.h
fi

# A program written against vmlinux.h that never includes bpf/bpf_helpers.h (neither itself nor
# through bpf_tracing.h or another header) still uses what it defines: ebpf_exporter's
# biolatency and raw-tracepoints include vmlinux.h, bpf_core_read.h and their maps.bpf.h, whose
# bits.bpf.h writes `static __always_inline` and whose macros call bpf_map_lookup_elem. Such a
# program gets that vmlinux.h and bpf/bpf_helpers.h included first, as libbpf's programs
# include them; every other program compiles exactly as it is. Decided from the headers the
# preprocessor finds (-M; -MG: a missing one is the compile's error to report, not this one's).
helpers=
# shellcheck disable=SC2086 # $incs is a list of -I options
deps=$("$CLANG" -M -MG -target bpf -D__TARGET_ARCH_$arch -I"$vmdir" -I"$HEADERS" $incs "$@" "$src" 2>/dev/null |
	tr ' \\' '\n\n' | grep -v '^$' || true)
vmlinux=$(printf '%s\n' "$deps" | grep -E '(^|/)vmlinux\.h$' | head -n 1)
if [ -n "$vmlinux" ] && ! printf '%s\n' "$deps" | grep -q '/bpf/bpf_helpers\.h$'; then
	helpers=$vmlinux
fi

# shellcheck disable=SC2086 # $incs is a list of -I options
exec "$CLANG" -g -O2 -target bpf -D__TARGET_ARCH_$arch -I"$vmdir" -I"$HEADERS" $incs ${compat:+-include "$compat"} \
	${helpers:+-include "$helpers" -include bpf/bpf_helpers.h} "$@" -c "$src" -o "$out"
