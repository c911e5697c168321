#!/bin/sh
# run-kernel.sh KERNELDIR INITRAMFS LOG: boots KERNELDIR/vmlinux with INITRAMFS under qemu,
# the serial console going to LOG, and returns 0 only if the init printed its end marker.
#
# KVM (-cpu host) where the host's KVM is hardware virtualisation (kvm_intel or kvm_amd loaded,
# /dev/kvm writable), else TCG: /dev/kvm on the CI machines and the development VM is PVM
# (kvm_pvm), a paravirtual shim that emulates a stock kernel: Debian's 6.12 was still in early
# boot after a minute (at setup_percpu), where TCG boots it in 2 s. EBPF_VM_ACCEL=kvm or tcg
# chooses. One vCPU per VM, so that the driver can boot two kernels at once on two cores.
# -display none with the serial port in a file rather than -nographic, which puts the
# terminal make runs in into raw mode. -no-reboot and panic=-1: a panic ends qemu at once
# (with status 0, hence the marker). The timeout bounds a hung kernel or test.
set -eu
kernel=$1 initramfs=$2 log=$3
# 1200 s: the longest VM of the matrix ran 518 s (6.1, with the per-cgroup tests in every
# method, four VMs on two cores), too close to the 600 s this was before.
timeout=${EBPF_VM_TIMEOUT:-1200}
rm -f "$log"
status=0
accel=${EBPF_VM_ACCEL:-tcg}
if [ -z "${EBPF_VM_ACCEL:-}" ] && [ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; }; then
	accel=kvm
fi
case $accel in
kvm) set -- -accel kvm -cpu host ;;
tcg) set -- -accel tcg ;;
*) echo "run-kernel: EBPF_VM_ACCEL=$accel: kvm or tcg" >&2; exit 2 ;;
esac
echo "run-kernel: $(basename "$kernel") under ${accel}" >&2
# EBPF_VM_SMP, EBPF_VM_MEM, EBPF_VM_APPEND (kernel arguments): bench-scale.sh boots 2 vCPUs
# with possible_cpus=256 and the memory the per-CPU maps of the layout before take there.
timeout "$timeout" qemu-system-x86_64 "$@" -smp "${EBPF_VM_SMP:-1}" -m "${EBPF_VM_MEM:-1024}" \
	-display none -monitor none \
	-serial "file:$log" -no-reboot -kernel "$kernel/vmlinux" -initrd "$initramfs" \
	-append "console=ttyS0 panic=-1 quiet ${EBPF_VM_APPEND:-}" < /dev/null > "$log.qemu" 2>&1 || status=$?
if ! grep -q '^EBPF-VM-DONE' "$log" 2> /dev/null; then
	[ "$status" = 124 ] && echo "run-kernel: $kernel: no end marker after ${timeout}s (hung?)" >&2 ||
		echo "run-kernel: $kernel: no end marker (qemu status $status; panic?)" >&2
	cat "$log.qemu" >&2
	tail -n 30 "$log" >&2 2> /dev/null || true
	exit 1
fi
rm -f "$log.qemu"
