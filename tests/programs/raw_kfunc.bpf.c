// SPDX-License-Identifier: GPL-2.0
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Loader test object, made hostile by tests/programs/make_hostile: the call of helper
 * 0x1234567 (no kernel has it) is rewritten into a raw kfunc call (src_reg 2) of
 * bpf_send_signal_task by its BTF id, with no relocation naming it. Would signal only
 * the process target_tgid names (none by default), on getppid(). */
const volatile __u32 target_tgid = 0;

static long (*marker)(struct task_struct *task, int sig, int type, __u64 value) = (void *)0x1234567;

SEC("tp_btf/sys_enter")
int BPF_PROG(on_enter, struct pt_regs *regs, long id)
{
	if (id != 110 || bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	return marker(bpf_get_current_task_btf(), 10, 0, 0);
}
