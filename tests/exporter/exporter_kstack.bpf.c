// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_kstack.yaml beside it),
 * for the ExporterConfig test of the kstack decoder; written for this project. It counts
 * the renames of a process to "kstk" (prctl PR_SET_NAME: the workload,
 * tests/support/close_n, names each child so) by the kernel stack they were made from.
 * A tracepoint, not a kprobe (kernels without CONFIG_KPROBES have tracepoints), and not a
 * syscall's (those give bpf_get_stack the user's registers: no kernel frames): task_rename
 * is fired in __set_task_comm, which the stack starts with, called from prctl's function. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */
#include "../support/test_maps.bpf.h" /* HASH_MAP */

char LICENSE[] SEC("license") = "GPL";

#define STACK_FRAMES 20 /* the YAML's label size: 20 * 8 bytes */

struct stack_key {
	__u64 frames[STACK_FRAMES]; /* innermost first, 0 after the last frame */
};

HASH_MAP(kstk_renames_total, struct stack_key, __u64, 64);

SEC("tracepoint/task/task_rename")
int count_rename(struct trace_event_raw_task_rename *ctx)
{
	struct stack_key key = {};
	char comm[16];

	/* a copy: the verifier takes no loads through a pointer moved inside the context */
	if (bpf_probe_read_kernel(comm, sizeof(comm), ctx->newcomm))
		return 0;
	if (comm[0] != 'k' || comm[1] != 's' || comm[2] != 't' || comm[3] != 'k' || comm[4])
		return 0;
	if (bpf_get_stack(ctx, key.frames, sizeof(key.frames), 0) < 0)
		return 0;
	counter_add_at(&kstk_renames_total, &key, 1);
	return 0;
}
