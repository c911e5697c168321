/* The few kernel types the BPF programs touch, written by hand instead of a generated
 * vmlinux.h.
 *
 * Why hand-written: a generated vmlinux.h comes from the build host's /sys/kernel/btf/vmlinux,
 * which a package build chroot does not have, and checking in a 100k-line header per
 * architecture buries the handful of fields we read. Every struct here carries
 * preserve_access_index, so libbpf relocates each field access against the running kernel's
 * BTF at load time (CO-RE): only the field names must match, not the layout.
 *
 * Rule: add a field only when a program reads it, and say which tracepoint or function
 * provides it.
 */
#ifndef EBPF_KERNEL_TYPES_H
#define EBPF_KERNEL_TYPES_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/* Registers saved at syscall entry: the tp_btf/raw_tp form of sys_exit only passes them,
 * so the syscall number comes from here (the classic tracepoint carries it as `id`). */
struct pt_regs {
#if defined(__TARGET_ARCH_x86)
	unsigned long orig_ax; /* syscall number */
#elif defined(__TARGET_ARCH_arm64)
	int syscallno; /* s32 in arch/arm64/include/asm/ptrace.h */
#else
#error "define __TARGET_ARCH_x86 or __TARGET_ARCH_arm64"
#endif
};

struct task_struct {
	int pid;
	int tgid;
};

/* Records of the classic tracepoints raw_syscalls:sys_enter and raw_syscalls:sys_exit
 * (include/trace/events/syscalls.h). */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

struct trace_event_raw_sys_enter {
	struct trace_entry ent;
	long id;
	unsigned long args[6];
};

struct trace_event_raw_sys_exit {
	struct trace_entry ent;
	long id;
	long ret;
};

#pragma clang attribute pop

#endif
