/* What the running kernel's BTF says about a tracepoint's arguments.
 *
 * Tracepoints change signatures across kernels (tcp_retransmit_skb gained an `err`
 * argument, oom:mark_victim went from `int pid` to `struct task_struct *`). tp_btf and raw_tp
 * programs read their arguments by position, so the module asks BTF which signature this
 * kernel has (the btf_trace_<name> typedef) and tells the program through rodata, instead
 * of comparing kernel versions. */
#ifndef EBPF_CORE_TRACEPOINT_BTF_H
#define EBPF_CORE_TRACEPOINT_BTF_H

#include <stdbool.h>

struct tracepoint_args {
	int nargs;          /* arguments after the hidden `void *__data`; -1: not in BTF */
	bool is_pointer[8]; /* argument i is a pointer (after typedefs and modifiers) */
};

/* Fills *out for tracepoint `name` (e.g. "mark_victim"). 0, or -errno when the kernel has
 * no BTF; a tracepoint BTF does not know is nargs = -1 with return 0. */
int tracepoint_btf_args(const char *name, struct tracepoint_args *out);

#endif
