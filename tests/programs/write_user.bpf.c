// SPDX-License-Identifier: GPL-2.0
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Loader test object that writes into user memory, from a subprogram libbpf does not list
 * as a program: the loader must still see the call. */
static __noinline int scribble(void *ptr)
{
	char zero = 0;

	return bpf_probe_write_user(ptr, &zero, 1);
}

SEC("tracepoint/syscalls/sys_enter_sync")
int on_sync(void *ctx)
{
	return scribble((void *)0x1000);
}
