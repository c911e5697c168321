// SPDX-License-Identifier: GPL-2.0
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Loader test object calling a kfunc. */
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

SEC("tp_btf/sys_enter")
int BPF_PROG(on_enter)
{
	bpf_rcu_read_lock();
	bpf_rcu_read_unlock();
	return 0;
}
