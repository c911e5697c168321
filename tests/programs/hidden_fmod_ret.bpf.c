// SPDX-License-Identifier: GPL-2.0
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Loader test object: fmod_ret behind a "?" (which only turns autoload off: the loader
 * turns it on again to attach it), a plain fmod_ret, and an observing program counting
 * sync() calls: Skip of both fmod_ret programs leaves an object that loads. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sync_calls SEC(".maps");

SEC("?fmod_ret/security_task_getsid")
int BPF_PROG(hidden_getsid)
{
	return 0;
}

SEC("fmod_ret/__x64_sys_sync")
int BPF_PROG(fail_sync)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_sync")
int count_sync(void *ctx)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&sync_calls, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}
