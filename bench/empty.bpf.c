// SPDX-License-Identifier: GPL-2.0
/* Empty programs on the syscall tracepoints: the floor the syscalls module is measured
 * against. Attaching any program to sys_enter/sys_exit already costs every syscall the
 * tracepoint slow path and the BPF trampoline; what the module adds on top of these is
 * its own work.
 *
 * bench/syscall_cost.c attaches `empty_exit` alone (baseline for counters only, which is
 * one sys_exit program) or `empty_enter` with `empty_exit` (baseline for latency, which
 * is a sys_enter + sys_exit pair). Same attach method as the module's first choice:
 * tp_btf.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int empty_enter(void *ctx)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int empty_exit(void *ctx)
{
	return 0;
}
