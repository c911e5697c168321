// SPDX-License-Identifier: GPL-2.0
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Loader test object that only observes: counts sync() calls, through a subprogram. */
__u64 calls = 0;

static __noinline int count(void)
{
	__sync_fetch_and_add(&calls, 1);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_sync")
int on_sync(void *ctx)
{
	return count();
}
