// SPDX-License-Identifier: GPL-2.0
/* vfs module: calls, errors, latency and bytes per call of read, write, fsync and open at
 * the VFS layer (vfs_read, vfs_write, vfs_fsync_range, vfs_open).
 *
 * Each operation is one probe point with its own flavours: fentry/fexit, kprobe/kretprobe
 * (the function name is set by user space, see libcore/probe.h), and as a last resort the
 * syscalls that lead there (sys_enter/sys_exit as tp_btf, raw_tp or classic tracepoint),
 * which user space reports as an approximation: a read() of a pipe and a read() of a file
 * both count, kernel-internal reads do not, and the time includes the syscall's own work.
 * Entry points are thin; the workers are on_entry() and on_exit().
 *
 * By "cgroup" (cgroup_key.bpf.h): each completed call also adds to the rows of the calling
 * task's cgroup and its operation, read at the return (a task that moves during a call, as
 * one writing its own pid into cgroup.procs, counts for where it arrived). The host-wide
 * maps are the same with it on or off: the per-cgroup path only adds to its own.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include "include/hist_row.bpf.h"
#include "include/start_time.bpf.h"
#include "include/cgroup_key.bpf.h"
#include "include/cgroup_hist.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "include/entry_points.bpf.h"
#include "include/syscall_regs.bpf.h"
#include "vfs.h"
#define WITNESS_POINTS VFS_OPS /* one row per operation's point */
#include "include/witness.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u32 filter_tgid = 0;                 /* 0: every process */
const volatile __u8 syscall_op[VFS_SYSCALL_ROWS];     /* fallback: 0 not ours, else op + 1 */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VFS_OPS);
	__type(key, __u32);
	__type(value, struct vfs_op_stats);
} ops SEC(".maps");

COUNTER_ROWS_MAP(stats, VFS_STAT_COUNT);

/* Start times by thread and operation: operations nest (an O_SYNC write calls
 * vfs_fsync_range inside vfs_write), so the op is part of the key. */
START_HASH_MAP(start, struct start_thread_key, 16384);

/* By "cgroup": calls and errors, latency and bytes keyed by (cgroup, operation), sized by
 * user space and created only with By "cgroup", as cgroup_zero (one zeroed row, what new
 * rows are inserted from) and cgroup_full (events a full table had no room for). */
CGROUP_COUNTS_MAP(cgroup_counts, struct cgroup_call_counts);
CGROUP_HIST_MAP(cgroup_latency);
CGROUP_HIST_MAP(cgroup_bytes);
CGROUP_AUX_MAPS(struct hist_row);

/* ---- workers ------------------------------------------------------------------------ */

static __always_inline void on_entry(__u32 op)
{
	if (tgid_filter_passes(filter_tgid))
		start_thread_put(&start, op, &stats, VFS_STAT_START_LOST);
}

/* One completed call for the current task's cgroup; start_ns 0: no latency (as host-wide).
 * The host-wide rows' slots of ret and delta were computed: theirs here, once, at the
 * per-cgroup precision. */
static __always_inline void count_by_cgroup(__u32 op, long ret, __u64 start_ns, __u64 delta)
{
	struct cgroup_row_key key;
	void *zero = cgroup_zero_row();
	struct hist_row *h;

	if (!zero)
		return;
	row_key_current(&key, op);
	cgroup_count_call(&cgroup_counts, &key, zero, &cgroup_full, ret);
	if (ret >= 0 && (op == VFS_OP_READ || op == VFS_OP_WRITE)) {
		h = cgroup_row(&cgroup_bytes, &key, zero, &cgroup_full);
		if (h)
			hist_record_at(h, cgroup_hist_slot_again(ret, zero), ret);
	}
	if (!start_ns)
		return;
	h = cgroup_row(&cgroup_latency, &key, zero, &cgroup_full);
	if (h)
		hist_record_at(h, cgroup_hist_slot_again(delta, zero), delta);
}

static __always_inline void on_exit(__u32 op, long ret)
{
	struct vfs_op_stats *s;
	__u64 start_ns, delta;

	if (!tgid_filter_passes(filter_tgid))
		return;
	s = bpf_map_lookup_elem(&ops, &op);
	if (!s)
		return;
	counter_add(&s->calls, 1);
	if (ret < 0)
		counter_add(&s->errors, 1);
	else if (op == VFS_OP_READ || op == VFS_OP_WRITE)
		hist_record(&s->bytes, ret);
	/* 0: the call began before we attached, or its start found no room */
	start_ns = start_thread_take(&start, op);
	delta = start_ns ? bpf_ktime_get_ns() - start_ns : 0;
	if (start_ns)
		hist_record(&s->latency, delta);
	if (by_cgroup)
		count_by_cgroup(op, ret, start_ns, delta);
}

/* Fallback: the operation a syscall number stands for, or -1. */
static __always_inline int op_of_syscall(long id)
{
	if ((unsigned long)id >= VFS_SYSCALL_ROWS)
		return -1;
	return (int)syscall_op[id] - 1;
}

static __always_inline void on_sys_enter(__u32 op, long id)
{
	if (op_of_syscall(id) == (int)op)
		on_entry(op);
}

static __always_inline void on_sys_exit(__u32 op, long id, long ret)
{
	if (op_of_syscall(id) == (int)op)
		on_exit(op, ret);
}

/* ---- entry points: VFS functions ------------------------------------------------------ */

FENTRY_KPROBE(read_entry, on_entry(VFS_OP_READ))
FEXIT_KRETPROBE(read_exit, on_exit(VFS_OP_READ, ret), long, struct file *file, char *buf, unsigned long count,
		long long *pos)
FENTRY_KPROBE(write_entry, on_entry(VFS_OP_WRITE))
FEXIT_KRETPROBE(write_exit, on_exit(VFS_OP_WRITE, ret), long, struct file *file, const char *buf,
		unsigned long count, long long *pos)
FENTRY_KPROBE(fsync_entry, on_entry(VFS_OP_FSYNC))
FEXIT_KRETPROBE(fsync_exit, on_exit(VFS_OP_FSYNC, ret), int, struct file *file, long long start, long long end,
		int datasync)
FENTRY_KPROBE(open_entry, on_entry(VFS_OP_OPEN))
FEXIT_KRETPROBE(open_exit, on_exit(VFS_OP_OPEN, ret), int, const struct path *path, struct file *file)

/* ---- entry points: syscall fallback, one pair per operation and flavour ---------------
 * Each operation's probe point falls back on its own, so each has its own programs; they
 * differ only in the op they pass. The tp_btf and raw_tp pairs count their runs, and the
 * point's witnesses on sys_enter and sys_exit (with `Witness true`) its firings. */

#define SYSCALL_FALLBACK(name, OP)                                                   \
	SEC("tp_btf/sys_enter")                                                      \
	int BPF_PROG(name##_enter_btf, struct pt_regs *regs, long id)                \
	{                                                                            \
		witness_count_ran(OP);                                               \
		on_sys_enter(OP, id);                                                \
		return 0;                                                            \
	}                                                                            \
	SEC("tp_btf/sys_exit")                                                       \
	int BPF_PROG(name##_exit_btf, struct pt_regs *regs, long ret)                \
	{                                                                            \
		witness_count_ran(OP);                                               \
		on_sys_exit(OP, regs_syscall_nr(regs), ret);                         \
		return 0;                                                            \
	}                                                                            \
	SEC("raw_tp/sys_enter")                                                      \
	int BPF_PROG(name##_enter_raw, struct pt_regs *regs, long id)                \
	{                                                                            \
		witness_count_ran(OP);                                               \
		on_sys_enter(OP, id);                                                \
		return 0;                                                            \
	}                                                                            \
	SEC("raw_tp/sys_exit")                                                       \
	int BPF_PROG(name##_exit_raw, struct pt_regs *regs, long ret)                \
	{                                                                            \
		witness_count_ran(OP);                                               \
		on_sys_exit(OP, regs_syscall_nr(regs), ret);                         \
		return 0;                                                            \
	}                                                                            \
	SEC("tp/raw_syscalls/sys_enter")                                             \
	int name##_enter_tp(struct trace_event_raw_sys_enter *ctx)                   \
	{                                                                            \
		on_sys_enter(OP, ctx->id);                                           \
		return 0;                                                            \
	}                                                                            \
	SEC("tp/raw_syscalls/sys_exit")                                              \
	int name##_exit_tp(struct trace_event_raw_sys_exit *ctx)                     \
	{                                                                            \
		on_sys_exit(OP, ctx->id, ctx->ret);                                  \
		return 0;                                                            \
	}                                                                            \
	WITNESS_PROGRAMS(name##_enter, "sys_enter", OP)                              \
	WITNESS_PROGRAMS(name##_exit, "sys_exit", OP)

SYSCALL_FALLBACK(sys_read, VFS_OP_READ)
SYSCALL_FALLBACK(sys_write, VFS_OP_WRITE)
SYSCALL_FALLBACK(sys_fsync, VFS_OP_FSYNC)
SYSCALL_FALLBACK(sys_open, VFS_OP_OPEN)
