#!/bin/sh
# bench-scale.sh BUILDDIR SRCDIR CACHE: `make bench-scale`. Boots the newest Debian 6.1
# kernel of kernels.list under qemu with 256 possible CPUs, 2 online (the kernel allocates
# every per-CPU map for all 256), and runs bench/scale_cost -d 200 there: kernel memory and
# CPU per read, before and after the layout of map_layout.h, with 200 disks' worth of block
# rows. Prints its output. Numbers only; fails only if the VM or the bench failed.
#
# How: -smp 2 and the kernel's possible_cpus=256, which sets the possible CPUs on kernels
# before 6.9 (since 6.9 it only lowers them). qemu's own `-smp 2,maxcpus=256` needs KVM
# above 255 CPUs, and with TCG the 6.12 kernel counted none of qemu's absent CPUs as
# hotpluggable ("Allowing 2 present CPUs plus 0 hotplug CPUs"). 6.1 charges a map's
# memlock as its own page-rounded estimate (6.4 and later: the exact sizes).
set -eu
builddir=$1 srcdir=$2 cache=$3
here="$srcdir/tests/vm"
out="$builddir/tests/vm"
mkdir -p "$out"
for tool in qemu-system-x86_64 busybox apt-get apt-cache dpkg-deb xz zstd timeout; do
	command -v "$tool" > /dev/null || {
		echo "bench-scale: $tool is missing: apt-get install qemu-system-x86 busybox-static xz-utils zstd" >&2
		exit 1
	}
done
grep '6\\.1\\.' "$here/kernels.list" > "$out/scale-kernels.list"
kernel=$(sh "$here/fetch-kernels.sh" "$out/scale-kernels.list" "$cache" | tail -n 1)
rel=$(basename "$kernel")
printf '%s\n' 'tests/vm/scale.sh default' > "$out/scale-tests.list"
EBPF_VM_TESTS="$out/scale-tests.list" sh "$here/build-initramfs.sh" "$builddir" "$srcdir" "$kernel" "$out/scale.cpio"
echo "bench-scale: booting $rel with 256 possible CPUs (2 online) under TCG" >&2
start=$(date +%s)
EBPF_VM_SMP=2 EBPF_VM_APPEND=possible_cpus=256 EBPF_VM_MEM=3072 EBPF_VM_TIMEOUT=${EBPF_VM_TIMEOUT:-1200} \
	sh "$here/run-kernel.sh" "$kernel" "$out/scale.cpio" "$out/scale.log"
tr -d '\r' < "$out/scale.log" | awk '/^==== BEGIN/ { p = 1 } p && !/^ebpf: / { print } /^==== END/ { p = 0 }'
echo "bench-scale: done in $(($(date +%s) - start)) s (console: $out/scale.log)"
tr -d '\r' < "$out/scale.log" | grep '^RESULT ' | awk '$5 != "PASS" { bad = 1 } END { exit bad }'
