// SPDX-License-Identifier: GPL-2.0
/* The article's hello world, made a metric: how often sync() is called.
 *
 * Two ways in, for <Probe "sync"> to choose from: the syscall's kprobe (ksyscall: libbpf finds
 * the kernel's wrapper name) where the kernel has kprobes, else the syscall tracepoint.
 * Compile: collectd-ebpf-cc sync_count.bpf.c; config: sync_count.conf. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* 0: every process; else only this one (tests count their own calls). */
const volatile __u32 filter_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sync_calls SEC(".maps");

static __always_inline int count_call(void)
{
	__u32 zero = 0;
	__u64 *calls;

	if (filter_tgid && (bpf_get_current_pid_tgid() >> 32) != filter_tgid)
		return 0;
	calls = bpf_map_lookup_elem(&sync_calls, &zero);
	if (calls)
		*calls += 1; /* per-CPU slot: no other CPU writes it */
	return 0;
}

SEC("ksyscall/sync")
int BPF_KSYSCALL(sync_kprobe)
{
	return count_call();
}

SEC("tracepoint/syscalls/sys_enter_sync")
int sync_tp(void *ctx)
{
	return count_call();
}
