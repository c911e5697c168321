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

/* ---- tcp and process modules ----------------------------------------------------------
 * Own names with a ___flavour suffix where the base section already has the type, so that
 * modules add fields without editing each other's structs (CO-RE ignores the suffix). */

/* Ports of a socket (include/net/sock.h); skc_dport and skc_num sit in anonymous
 * unions there, which CO-RE walks into by name. */
struct sock_common {
	__be16 skc_dport; /* remote port, network order */
	__u16 skc_num;    /* local port, host order */
};

struct sock {
	struct sock_common __sk_common;
	__u16 sk_protocol; /* a bitfield before 5.6: read with BPF_CORE_READ_BITFIELD_PROBED */
};

/* tcp:tcp_send_reset may come without a socket (a segment for a port nobody listens on):
 * then the ports are in the TCP header of the segment being answered. */
struct sk_buff {
	unsigned char *head;
	__u16 transport_header;
};

struct tcphdr {
	__be16 source;
	__be16 dest;
};

/* The process module reads the parent (its test filter follows the test's children) and
 * the OOM victim's name and cgroup v2 id (task->cgroups->dfl_cgrp->kn->id, the kernfs id
 * user space resolves to a path). */
struct kernfs_node___proc {
	__u64 id;
};

struct cgroup___proc {
	struct kernfs_node___proc *kn;
};

struct css_set___proc {
	struct cgroup___proc *dfl_cgrp;
};

struct task_struct___proc {
	int pid;
	int tgid;
	struct task_struct___proc *real_parent;
	char comm[16];
	struct css_set___proc *cgroups;
};

/* Classic tracepoint records (include/trace/events/tcp.h, sock.h, oom.h). */
struct trace_event_raw_tcp_retransmit_skb {
	struct trace_entry ent;
	const void *skbaddr;
	const void *skaddr;
	int err; /* recent kernels only; checked with bpf_core_field_exists */
};

struct trace_event_raw_tcp_send_reset {
	struct trace_entry ent;
	const void *skbaddr;
	const void *skaddr;
};

/* The record tcp_retransmit_skb and tcp_send_reset shared before each got a class of its
 * own (send_reset with the no-socket resets in 6.10, retransmit_skb with `err` later):
 * Debian's 5.10, 6.1 and 6.12 have this one. Programs pick with bpf_core_type_exists. */
struct trace_event_raw_tcp_event_sk_skb {
	struct trace_entry ent;
	const void *skbaddr;
	const void *skaddr;
};

struct trace_event_raw_tcp_event_sk {
	struct trace_entry ent;
	const void *skaddr;
};

struct trace_event_raw_inet_sock_set_state {
	struct trace_entry ent;
	const void *skaddr;
	int oldstate;
	int newstate;
	__u16 protocol;
};

struct trace_event_raw_mark_victim {
	struct trace_entry ent;
	int pid;
	__u32 __data_loc_comm; /* recent kernels only: offset (low 16 bits) and length of the name in the record */
};

/* ---- block module (bpf/block.bpf.c) ---------------------------------------------------- */

/* The disk a request is for: tracepoints block_rq_issue/insert/complete pass the request. */
struct gendisk {
	int major;
	int first_minor;
};

struct request_queue {
	struct gendisk *disk;        /* 5.15+ (d152c682f03c); before, the request had rq_disk */
	unsigned long queue_flags;   /* QUEUE_FLAG_STATS: the kernel stamps io_start_time_ns */
};

struct request {
	struct request_queue *q;
	unsigned int cmd_flags;      /* blk_opf_t: the op in the low 8 bits (REQ_OP_MASK) */
	unsigned int rq_flags;       /* req_flags_t: RQF_STATS says io_start_time_ns is valid */
	unsigned int __data_len;     /* bytes not yet completed */
	__u64 io_start_time_ns;      /* set right after block_rq_issue when RQF_STATS */
	unsigned short stats_sectors; /* blk_rq_sectors() at issue, with io_start_time_ns */
};

/* Kernels before 5.17 (f3fa33acca9f) keep the disk in the request itself. */
struct request___rq_disk {
	struct gendisk *rq_disk;
};

/* Classic tracepoints block:block_rq_issue/insert (class block_rq) and block_rq_complete
 * (class block_rq_completion): no request pointer, so the fallback keys by disk and sector. */
struct trace_event_raw_block_rq {
	struct trace_entry ent;
	__u32 dev;                   /* dev_t, the kernel's major << 20 | minor */
	__u64 sector;
	unsigned int nr_sector;
	unsigned int bytes;
	char rwbs[8];                /* 10 bytes since 6.x; CO-RE finds the field either way */
};

struct trace_event_raw_block_rq_completion {
	struct trace_entry ent;
	__u32 dev;
	__u64 sector;
	unsigned int nr_sector;      /* bytes completed by this call >> 9 */
	int error;
	char rwbs[8];
};

/* The same record under its older name: block_rq_complete had an event class of its own
 * before block_rq_error joined it as `block_rq_completion` (Debian 11's 5.10 has this name,
 * 6.1 the new one). The program picks by bpf_core_type_exists. */
struct trace_event_raw_block_rq_complete {
	struct trace_entry ent;
	__u32 dev;
	__u64 sector;
	unsigned int nr_sector;
	int error;
	char rwbs[8];
};

/* ---- runqueue module (bpf/runqueue.bpf.c) ---------------------------------------------- */

/* Flavours of task_struct for its run state: `__state` (unsigned int) since 5.14
 * (2f064a59a11f), `state` (volatile long) before. 0 is TASK_RUNNING in both. */
struct task_struct___state {
	unsigned int __state;
};

struct task_struct___old_state {
	long state;
};

/* Classic tracepoints sched:sched_wakeup, sched:sched_wakeup_new and sched:sched_switch. */
struct trace_event_raw_sched_wakeup_template {
	struct trace_entry ent;
	char comm[16];
	int pid;
};

struct trace_event_raw_sched_switch {
	struct trace_entry ent;
	char prev_comm[16];
	int prev_pid;
	int prev_prio;
	long prev_state;             /* 0: runnable; TASK_REPORT_MAX bit: preempted */
	char next_comm[16];
	int next_pid;
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
