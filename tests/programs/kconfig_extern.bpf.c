// SPDX-License-Identifier: GPL-2.0
/* sync() calls, each with the kernel release it was counted under, read from libbpf's own
 * .kconfig extern LINUX_KERNEL_VERSION: libbpf sets such externs from the running kernel at
 * load (libbpf 1.5's BPF_KSYSCALL adds one, LINUX_HAS_SYSCALL_WRAPPER), so they are not
 * globals a Param may set nor ones the errors list (collectd_program_errors.sh). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

extern unsigned int LINUX_KERNEL_VERSION __kconfig;

const volatile __u32 filter_tgid = 0;

struct sync_seen {
	__u64 calls;
	__u64 kernel_version; /* KERNEL_VERSION(a, b, c) of the last call's kernel */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sync_seen);
} sync_seen SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_sync")
int sync_tp(void *ctx)
{
	__u32 zero = 0;
	struct sync_seen *seen;

	if (filter_tgid && (bpf_get_current_pid_tgid() >> 32) != filter_tgid)
		return 0;
	seen = bpf_map_lookup_elem(&sync_seen, &zero);
	if (!seen)
		return 0;
	__sync_fetch_and_add(&seen->calls, 1);
	seen->kernel_version = LINUX_KERNEL_VERSION;
	return 0;
}
