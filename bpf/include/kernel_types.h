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

/* Tells bpf_tracing.h that struct pt_regs below uses the kernel's register names (di, ax),
 * as a generated vmlinux.h would, so that BPF_KPROBE / BPF_KRETPROBE read the right fields. */
#define __VMLINUX_H__ 1

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/* Registers saved at syscall entry: the tp_btf/raw_tp form of sys_exit only passes them,
 * so the syscall number comes from here (the classic tracepoint carries it as `id`). */
struct pt_regs {
#if defined(__TARGET_ARCH_x86)
	unsigned long orig_ax; /* syscall number */
	unsigned long di, si, dx, cx; /* kprobe arguments 1-4 (BPF_KPROBE) */
	unsigned long ax;             /* kretprobe return value (BPF_KRETPROBE) */
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

/* ---- kernel-function modules (vfs, fs, dcache, pagecache) ---------------------------------
 * kprobe/kretprobe arguments and return values: BPF_KPROBE reads the argument registers,
 * BPF_KRETPROBE the return register (bpf_tracing.h; x86 names them in struct pt_regs, arm64
 * through struct user_pt_regs). fentry/fexit programs get the arguments typed instead. */
#if defined(__TARGET_ARCH_arm64)
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
#endif

/* Arguments of the hooked functions; only pointers are passed, no field is read. */
struct file;
struct path;
struct inode;
struct kiocb;
struct iov_iter;
struct dentry;
struct qstr;
struct page;
struct address_space;

/* struct folio (mm/mm_types.h) changed layout across kernels; bpf/include/folio.h reads
 * it through the flavours below (libbpf matches "folio___x" to the kernel's "folio"). */
struct folio___flags_word {        /* until 6.17: unsigned long flags */
	unsigned long flags;
};
struct folio___flags_memdesc {     /* 6.18+: memdesc_flags_t flags */
	struct {
		unsigned long f;
	} flags;
};
struct folio___nr_pages_old {      /* 5.16 - 6.14 (64-bit): pages in a large folio */
	unsigned int _folio_nr_pages;
};
struct folio___nr_pages_new {      /* later kernels */
	unsigned int _nr_pages;
};
struct folio___order {             /* 6.4+: low byte of _flags_1 is the order */
	unsigned long _flags_1;
};
struct folio;

#pragma clang attribute pop

/* Bit of folio flags marking a large folio (include/linux/page-flags.h); the value is
 * relocated from the kernel's BTF with bpf_core_enum_value, 0 here is a placeholder. */
enum pageflags {
	PG_head = 0,
};

#endif
