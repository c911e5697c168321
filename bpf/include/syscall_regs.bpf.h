/* The syscall number in the registers sys_exit hands over (its record has the number, its
 * tp_btf and raw_tp arguments only the registers). Include after <bpf/bpf_core_read.h>. */
#ifndef EBPF_SYSCALL_REGS_BPF_H
#define EBPF_SYSCALL_REGS_BPF_H

/* tp_btf hands us a BTF-typed pointer the verifier lets us dereference directly: no
 * bpf_probe_read_kernel() call, which is a good part of the counters' cost per syscall. */
static __always_inline long regs_syscall_nr_btf(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return (long)regs->orig_ax;
#else
	return (long)regs->syscallno;
#endif
}

/* raw_tp arguments are plain numbers: the registers are read through a probe read. */
static __always_inline long regs_syscall_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return (long)BPF_CORE_READ(regs, orig_ax);
#else
	return (long)BPF_CORE_READ(regs, syscallno);
#endif
}

#endif
