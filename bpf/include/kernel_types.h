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
 * the OOM victim's name. */
struct task_struct___proc {
	int pid;
	int tgid;
	struct task_struct___proc *real_parent;
	char comm[16];
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

#pragma clang attribute pop

#endif
