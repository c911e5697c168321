#!/bin/sh
# bench-cost-vm.sh BUILDDIR SRCDIR CACHE: `make bench-cost-vm`. Boots Debian 12's 6.12 kernel
# (EBPF_COST_KERNELS: an extended regex over kernels.list's lines, whose dots are written
# "\.": 'deb12|6\\.1\\.' adds 6.1) under qemu with 2 vCPUs and null_blk (cost-modules.list),
# and runs bench/cost_modules there EBPF_COST_RUNS times (3) for what the development VM
# cannot measure (tests/vm/cost.sh): block on /dev/nullb0, process, and fs, dcache, pagecache
# as the modules choose (fentry) and by kprobe, with runqueue and signals beside them. Prints
# each run's output, then per kernel, module and method the medians of the runs and the
# ratio's range. Numbers only, never judged: it fails only if the VM or the bench failed. Not
# part of `make check` or CI.
#
# run-kernel.sh takes KVM only where the host's is hardware virtualisation; under TCG every
# ns is qemu's translation of the kernel's code and the runs say so (doc/modules.md, *How
# close it is*). EBPF_COST_ARGS: cost_modules' options; by default 9 rounds of 60 batches,
# each an eighth of its length on the host (under TCG an event takes 4 to 6 times as long).
set -eu
builddir=$1 srcdir=$2 cache=$3
here="$srcdir/tests/vm"
out="$builddir/tests/vm"
runs=${EBPF_COST_RUNS:-3}
args=${EBPF_COST_ARGS:--r 9 -b 60 -S 8 -s 5}
mkdir -p "$out"
for tool in qemu-system-x86_64 busybox apt-get apt-cache dpkg-deb xz zstd timeout mkfs.ext4; do
	command -v "$tool" > /dev/null || {
		echo "bench-cost-vm: $tool is missing: apt-get install qemu-system-x86 busybox-static xz-utils zstd e2fsprogs" >&2
		exit 1
	}
done
[ -x "$builddir/bench/cost_modules" ] || { echo "bench-cost-vm: $builddir/bench/cost_modules is not built (make bench-cost-vm builds it)" >&2; exit 1; }
grep -v '^#' "$here/kernels.list" | grep -E "${EBPF_COST_KERNELS:-deb12}" > "$out/cost-kernels.list" || {
	echo "bench-cost-vm: no line of kernels.list matches EBPF_COST_KERNELS (${EBPF_COST_KERNELS:-})" >&2
	exit 1
}
: > "$out/cost-tests.list"
i=0
while [ "$i" -lt "$runs" ]; do
	echo 'tests/vm/cost.sh default,kprobe' >> "$out/cost-tests.list"
	i=$((i + 1))
done
status=0
for kernel in $(sh "$here/fetch-kernels.sh" "$out/cost-kernels.list" "$cache"); do
	rel=$(basename "$kernel")
	EBPF_VM_TESTS="$out/cost-tests.list" EBPF_VM_MODULES="$here/cost-modules.list" \
		sh "$here/build-initramfs.sh" "$builddir" "$srcdir" "$kernel" "$out/cost.cpio"
	echo "bench-cost-vm: booting $rel with 2 vCPUs for $runs run(s), host load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	start=$(date +%s)
	# 30 min a run of cost.sh (init.sh's 240 s is for a test); the VM's whole time bounded too.
	# tsc=reliable: under TCG 6.1 found the vCPUs' TSCs unsynchronized and took the HPET, whose
	# every read qemu emulates (the programs' bpf_ktime_get_ns, the bench's clock); 6.12 kept the TSC.
	EBPF_VM_SMP=2 EBPF_VM_MEM=2048 EBPF_VM_TIMEOUT=${EBPF_VM_TIMEOUT:-$((runs * 2 * 1800 + 300))} \
		EBPF_VM_APPEND="tsc=reliable EBPF_TEST_TIMEOUT=1800 EBPF_COST_ARGS=\"$args\"" \
		sh "$here/run-kernel.sh" "$kernel" "$out/cost.cpio" "$out/cost-$rel.log" || status=1
	tr -d '\r' < "$out/cost-$rel.log" | awk '/^==== BEGIN/ { p = 1 } p && !/^ebpf: / { print } /^==== END/ { p = 0 }'
	echo "bench-cost-vm: $rel done in $(($(date +%s) - start)) s, host load $(cut -d' ' -f1-3 /proc/loadavg) (console: $out/cost-$rel.log)"
	# The runs' tables: the rows after each "module method bench ns/ev" header, by module and
	# method; the median (the middle one, the lower of the two middle ones of an even count) and the range.
	tr -d '\r' < "$out/cost-$rel.log" | awk -v rel="$rel" '
		/^module +method +bench/ { t = 1; next }
		/^==== END/ { t = 0 }
		t && NF >= 5 && $5 ~ /x$/ {
			k = $1 " " $2; if (!(k in n)) order[++nk] = k
			i = ++n[k]; b[k, i] = $3; s[k, i] = $4; r[k, i] = $5 + 0; p[k, i] = $6; d[k, i] = $9
		}
		function med(a, k, c,   i, j, v, m) {
			for (i = 1; i <= c; i++) v[i] = a[k, i]
			for (i = 2; i <= c; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { m = v[j]; v[j] = v[j - 1]; v[j - 1] = m }
			lo = v[1]; hi = v[c]; return v[int((c + 1) / 2)]
		}
		END {
			if (!nk) exit
			printf "\n%s: medians of the runs, column by column (the ratio'"'"'s range)\n%-12s %-8s %4s %12s %12s %7s %14s %7s %9s\n", rel, "module", "method", "runs", "bench ns/ev", "self ns/ev", "ratio", "ratio range", "period", "duty tax"
			for (o = 1; o <= nk; o++) {
				k = order[o]; split(k, f, " ")
				mb = med(b, k, n[k]); ms = med(s, k, n[k]); mr = med(r, k, n[k]); rlo = lo; rhi = hi
				printf "%-12s %-8s %4d %12.1f %12.1f %6.2fx %6.2f .. %.2f %7.0f %7.1f %%\n", f[1], f[2], n[k], mb, ms, mr, rlo, rhi, med(p, k, n[k]), med(d, k, n[k])
			}
		}'
	tr -d '\r' < "$out/cost-$rel.log" | grep '^RESULT ' | awk '$5 != "PASS" { bad = 1 } END { exit bad }' || status=1
done
exit "$status"
