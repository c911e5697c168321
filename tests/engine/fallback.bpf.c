// SPDX-License-Identifier: GPL-2.0
/* Test object for libcore/engine/probe.c's fallback: one probe point whose candidates fail in
 * different ways before one works. On kernels without fentry (or where it is refused,
 * EPERM) the fentry program fails to load; the tracepoint program loads but cannot attach
 * (no such tracepoint); the tp_btf program works. */
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0;
__u64 hits = 0;

static __always_inline void hit(void)
{
	if ((bpf_get_current_pid_tgid() >> 32) == filter_tgid)
		__sync_fetch_and_add(&hits, 1);
}

/* __do_sys_getppid, not the __x64_sys_getppid wrapper: Debian's 6.1 and 6.12 have no BTF for
 * the wrappers of argument-less syscalls, so fentry could not attach there even where it works. */
SEC("fentry/__do_sys_getppid")
int BPF_PROG(via_fentry)
{
	hit();
	return 0;
}

SEC("tp/ebpf_test_no_such_category/no_such_event")
int via_missing_tracepoint(void *ctx)
{
	hit();
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(via_tp_btf, struct pt_regs *regs, long id)
{
	hit();
	return 0;
}

/* Kernel-function candidates: the target is set at run time by libcore/engine/probe.c. */
SEC("fentry")
int BPF_PROG(via_fentry_target)
{
	hit();
	return 0;
}

SEC("kprobe")
int via_kprobe_target(void *ctx)
{
	hit();
	return 0;
}
