#!/bin/sh
# make stability: the exact-count kernel tests, each STABILITY_RUNS times (default 50) back to
# back, with the kernel matrix's VMs booting beside them the whole time (qemu under TCG on
# every core, the load that once made test_block lose IOs), and a disk writer on the root
# disk. A test that passes only on a lucky run shows here as a failed run: the counts are the
# evidence that the suite does not flake. Not part of make check (it takes about an hour);
# doc/contributing.md, Stability.
#
# Prints one line per test: "<test>: P of N passed", and for test_block how many IOs the kernel
# did not hand to the programs (its untraced values; doc/modules.md, Known limits), and for
# test_tcp how many retransmits its witness found untraced. Each run
# takes the test lock as make check's driver does, so nothing else attaches while it counts.
set -eu
: "${top_srcdir:?run through make stability}" "${top_builddir:?run through make stability}"
runs=${STABILITY_RUNS:-50}
tests=${STABILITY_TESTS:-"tests/block/test_block tests/tcp/test_tcp tests/syscalls/test_syscalls tests/process/test_process"}
cache=${KERNEL_CACHE:-$top_builddir/.kernels}
vmdir="$top_srcdir/tests/vm"
work=$(mktemp -d /tmp/ebpf-stability.XXXXXX)
stop="$work/stop"
beside_pids=
cleanup() {
	touch "$stop"
	for p in $beside_pids; do kill "$p" 2>/dev/null || true; done
	pkill -f "qemu-system-x86_64.*$work" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The VMs: every kernel of the matrix, each booted again as soon as its run ends.
kernels=$(sh "$vmdir/fetch-kernels.sh" "$vmdir/kernels.list" "$cache")
for k in $kernels; do
	rel=$(basename "$k")
	sh "$vmdir/build-initramfs.sh" "$top_builddir" "$top_srcdir" "$k" "$work/$rel.cpio"
	(
		boots=0
		while [ ! -e "$stop" ]; do
			sh "$vmdir/run-kernel.sh" "$k" "$work/$rel.cpio" "$work/$rel.log" >/dev/null 2>&1 || true
			boots=$((boots + 1))
			echo "$boots" > "$work/$rel.boots"
		done
	) &
	beside_pids="$beside_pids $!"
done
# The disk writer: 64 MiB written and synced, over and over, on the root disk.
(
	while [ ! -e "$stop" ]; do
		dd if=/dev/zero of="$work/disk_writer" bs=1M count=64 conv=fsync status=none 2>/dev/null || true
	done
) &
beside_pids="$beside_pids $!"
sleep 20 # the VMs past their boot, into their tests

status=0
for t in $tests; do
	name=$(basename "$t")
	pass=0 lost=0 lossy=0
	i=1
	while [ "$i" -le "$runs" ]; do
		out="$work/$name.$i.out"
		if flock -o /run/lock/collectd-ebpf-tests.lock "$top_builddir/$t" > "$out" 2>&1; then
			pass=$((pass + 1))
		else
			echo "stability: $name run $i of $runs FAILED:" >&2
			grep -E 'FAIL|SHORT' "$out" | sed 's/^/    /' >&2 || tail -n 20 "$out" | sed 's/^/    /' >&2
			cp "$out" "$top_builddir/tests/stability-$name-$i.log" 2>/dev/null || true
			status=1
		fi
		# test_block: "<what>: N of M not handed to the programs (untraced)"
		n=$(awk '/not handed to the programs/ { s += $(NF - 8) } END { print s + 0 }' "$out")
		# test_tcp: "<method> nft dropped ...: retransmits R ..., untraced U" (the witness)
		[ "$name" != test_tcp ] || n=$(awk '/nft dropped/ && /untraced/ { s += $NF } END { print s + 0 }' "$out")
		[ "$n" = 0 ] || { lost=$((lost + n)); lossy=$((lossy + 1)); }
		i=$((i + 1))
	done
	line="$name: $pass of $runs passed"
	[ "$name" != test_block ] || line="$line; $lossy runs had IOs the kernel did not hand to the programs ($lost in all, each counted in untraced)"
	[ "$name" != test_tcp ] || line="$line; $lossy runs had retransmits the kernel did not hand to the programs ($lost in all, each counted in untraced by the witness)"
	echo "stability: $line"
done
for k in $kernels; do
	rel=$(basename "$k")
	echo "stability: beside them, $rel booted $(cat "$work/$rel.boots" 2>/dev/null || echo 0) times (whole runs)"
done
exit $status
