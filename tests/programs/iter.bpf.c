// SPDX-License-Identifier: GPL-2.0
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Loader test object: a BPF iterator, run by reads of a bpffs file, not by events. */
SEC("iter/task")
int walk_tasks(void *ctx)
{
	return 0;
}
