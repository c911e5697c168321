#!/bin/busybox sh
# /init of the kernel-matrix VM (tests/vm/build-initramfs.sh puts it there): mounts what the
# tests need, loads the listed modules, runs every test of /etc/ebpf-tests.list once per
# attach method, prints one line per run
#   RESULT <kernel release> <test> <method> PASS|FAIL|SKIP
# then EBPF-VM-DONE, and powers off. The host judges the run by those lines only: qemu exits 0
# on a kernel panic too, and a hung test is cut short by the host's timeout.
/bin/busybox mkdir -p /proc /sys /dev /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s /bin
# /usr/local/bin first: the real tools the initramfs carries (ip, nft) before busybox's.
export PATH=/usr/local/bin:/bin:/sbin:/usr/bin:/usr/sbin
mount -t devtmpfs devtmpfs /dev
# Without a console at boot the kernel gave us no stdout; devtmpfs has one now.
exec < /dev/console > /dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tracefs nodev /sys/kernel/tracing
mount -t debugfs nodev /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
# cgroup v2 with the memory controller: the process test's OOM kill happens in a cgroup.
mount -t cgroup2 none /sys/fs/cgroup
kernel=$(uname -r)

result() { echo "RESULT $kernel $1 $2 $3"; }

echo "kernel $kernel, BTF: $(ls -l /sys/kernel/btf/vmlinux 2>&1)"
for m in $(cat /lib/modules/load.order); do
	# shellcheck disable=SC2046 # the parameters are words (build-initramfs.sh)
	if insmod "/lib/modules/$m.ko" $(cat "/lib/modules/$m.options" 2> /dev/null); then
		echo "module $m loaded"
	else
		result "module:$m" insmod FAIL
	fi
done

COLLECTD=$(command -v collectd || echo /usr/sbin/collectd)
RRDTOOL=$(command -v rrdtool || true)
export top_builddir=/build top_srcdir=/src COLLECTD RRDTOOL
# The matrix's kernels have fentry and kprobes: tests that accept a module being off on a
# kernel without them (collectd_kfuncs.sh) must see it run here.
export EBPF_EXPECT_KFUNCS=1
# 400 s a run (collectd_runqueue_behind.sh took 209 s with four VMs on two cores, 67 s alone),
# or EBPF_TEST_TIMEOUT from the kernel's command line (bench-cost-vm.sh's benches
# under TCG take longer).
test_timeout=${EBPF_TEST_TIMEOUT:-400}
grep -v '^#' /etc/ebpf-tests.list | while read -r test methods; do
	[ -n "$test" ] || continue
	for method in $(echo "$methods" | tr , ' '); do
		echo "==== BEGIN $test $method"
		case "$test" in
		*.sh) set -- sh "/src/$test" ;;
		*) set -- "/build/$test" ;;
		esac
		# This kernel cannot run this method: the test must see the module say so.
		EBPF_EXPECT_OFF=$(awk -v k="$kernel" -v t="$test" -v m="$method" '
			!/^#/ && NF >= 4 && k ~ $1 && $2 == t && $3 == m {
				$1 = $2 = $3 = ""; sub(/^ +/, ""); print; exit
			}' /etc/ebpf-unavailable.list)
		export EBPF_EXPECT_OFF
		t0=$(date +%s)
		if [ "$method" = default ]; then
			(unset EBPF_ATTACH_ORDER; cd /tmp && timeout "$test_timeout" "$@") < /dev/null
		else
			(cd /tmp && EBPF_ATTACH_ORDER=$method timeout "$test_timeout" "$@") < /dev/null
		fi
		rc=$?
		# The run's time, for .ci/slowest-tests.sh (the VM shares the host's cores with the others).
		echo "==== END $test $method rc=$rc time=$(($(date +%s) - t0))s"
		case $rc in
		0) result "$test" "$method" PASS ;;
		77) result "$test" "$method" SKIP ;;
		*) result "$test" "$method" FAIL ;;
		esac
	done
done
echo "EBPF-VM-DONE"
sync
poweroff -f
