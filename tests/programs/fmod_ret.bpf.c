// SPDX-License-Identifier: GPL-2.0
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Loader test object that would change a kernel function's return value. */
SEC("fmod_ret/__x64_sys_sync")
int BPF_PROG(fail_sync)
{
	return 0;
}
