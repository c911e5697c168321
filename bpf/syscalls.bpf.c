// SPDX-License-Identifier: GPL-2.0
/* syscalls module: per-syscall call and error counts, and opt-in latency histograms.
 *
 * Each probe point comes in several attach flavours (tp_btf, raw_tp, classic tracepoint;
 * start times in task storage or in a tid-keyed hash). User space loads exactly one flavour
 * per point (libcore/probe.c picks the first that loads and attaches); the others stay
 * unloaded. Entry points are thin and call one always-inline worker.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include "include/hist_row.bpf.h"
#include "include/start_time.bpf.h"
#include "include/cgroup_key.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "syscalls.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u32 filter_tgid = 0;           /* 0: every process; tests set their own */
const volatile __u16 latency_row[MAX_SYSCALLS]; /* 0: no latency; else row + 1 in `latency` */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct syscall_counts);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* resized by user space to the number of latency syscalls */
	__uint(key_size, sizeof(__u32));
	/* Sized by user space for its precision (hist_row.h): no BTF types to disagree. */
	__uint(value_size, sizeof(struct hist_row));
} latency SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SYSCALL_STAT_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Start timestamps, preferred: task storage; fallback for kernels without task storage
 * in these program types: a tid hash. */
START_TASK_MAP(start_task);
START_HASH_MAP(start_tid, __u32, 16384);

static __always_inline void count_stat(__u32 which)
{
	add_to_row(&stats, which, 1);
}

static __always_inline bool wanted(void)
{
	return tgid_filter_passes(filter_tgid);
}

static __always_inline __u32 row_of(long id)
{
	return (unsigned long)id < MAX_SYSCALLS ? latency_row[id] : 0;
}

/* ---- workers ------------------------------------------------------------------------ */

static __always_inline void on_enter(long id, bool task_storage)
{
	__u64 ts;
	__u32 tid;

	if (!row_of(id) || !wanted())
		return;
	ts = bpf_ktime_get_ns();
	if (task_storage) {
		start_task_put(&start_task, bpf_get_current_task_btf(), ts, &stats, SYSCALL_STAT_START_LOST);
		return;
	}
	tid = (__u32)bpf_get_current_pid_tgid();
	start_hash_put(&start_tid, &tid, ts, &stats, SYSCALL_STAT_START_LOST);
}

/* Returns the start time of the current task's syscall and forgets it, 0 if none. */
static __always_inline __u64 take_start(bool task_storage)
{
	__u32 tid;

	if (task_storage)
		return start_task_take(&start_task, bpf_get_current_task_btf());
	tid = (__u32)bpf_get_current_pid_tgid();
	return start_hash_take(&start_tid, &tid);
}

static __always_inline void record_latency(__u32 row, __u64 delta)
{
	struct hist_row *h;

	row -= 1;
	h = bpf_map_lookup_elem(&latency, &row);
	if (h)
		hist_record(h, delta);
}

/* ---- By "cgroup": the same counts and latency per cgroup (cgroup_key.bpf.h) ----------- */

/* Keyed by (cgroup, syscall number) and (cgroup, latency row); sized by user space and
 * created only with By "cgroup", as cgroup_zero (one zeroed row, what new rows are
 * inserted from) and cgroup_full (events no row could take). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct cgroup_row_key);
	__type(value, struct syscall_counts);
} cgroup_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct cgroup_row_key));
	__uint(value_size, sizeof(struct hist_row)); /* sized for the precision by user space */
} cgroup_latency SEC(".maps");

CGROUP_AUX_MAPS(struct hist_row);

/* lrow: the latency row + 1 of a call whose start was known (delta its time), else 0. */
static __always_inline void count_by_cgroup(__u32 nr, long ret, __u32 lrow, __u64 delta)
{
	struct cgroup_row_key key = { .cgroup = current_cgroup_at_depth(), .row = nr };
	struct syscall_counts *c;
	struct hist_row *h;
	__u32 zero_key = 0;
	void *zero = bpf_map_lookup_elem(&cgroup_zero, &zero_key);

	if (!zero)
		return;
	c = cgroup_row(&cgroup_counts, &key, zero, &cgroup_full);
	if (c) {
		counter_add(&c->calls, 1);
		if (ret < 0)
			counter_add(&c->errors, 1);
	}
	if (!lrow)
		return;
	key.row = lrow - 1;
	h = cgroup_row(&cgroup_latency, &key, zero, &cgroup_full);
	if (h)
		hist_record(h, delta);
}

/* ---- exit --------------------------------------------------------------------------------- */

static __always_inline void on_exit(long id, long ret, bool with_latency, bool task_storage)
{
	struct syscall_counts *c;
	__u32 key = id, row;
	__u64 start, delta;

	if (!wanted())
		return;
	/* -1 is "no syscall": rt_sigreturn clears the number so that the restored registers
	 * cannot restart a syscall, and the exit then reports -1 (every signal handler's return,
	 * so it follows the SIGCHLD and fork rate). Nothing was lost: not counted. */
	if (id < 0)
		return;
	if ((unsigned long)id >= MAX_SYSCALLS) {
		count_stat(SYSCALL_STAT_OUT_OF_RANGE);
		return;
	}
	c = bpf_map_lookup_elem(&counts, &key);
	if (!c)
		return;
	counter_add(&c->calls, 1);
	if (ret < 0)
		counter_add(&c->errors, 1);

	row = with_latency ? row_of(id) : 0;
	start = row ? take_start(task_storage) : 0; /* 0: the call began before we attached */
	delta = start ? bpf_ktime_get_ns() - start : 0;
	if (start)
		record_latency(row, delta);
	if (by_cgroup)
		count_by_cgroup(key, ret, start ? row : 0, delta);
}

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

/* ---- entry points: counters only ------------------------------------------------------ */

SEC("tp_btf/sys_exit")
int BPF_PROG(count_exit_btf, struct pt_regs *regs, long ret)
{
	on_exit(regs_syscall_nr_btf(regs), ret, false, false);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(count_exit_raw, struct pt_regs *regs, long ret)
{
	on_exit(regs_syscall_nr(regs), ret, false, false);
	return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int count_exit_tp(struct trace_event_raw_sys_exit *ctx)
{
	on_exit(ctx->id, ctx->ret, false, false);
	return 0;
}

/* ---- entry points: counters + latency --------------------------------------------------- */

SEC("tp_btf/sys_enter")
int BPF_PROG(lat_enter_btf_task, struct pt_regs *regs, long id)
{
	on_enter(id, true);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(lat_exit_btf_task, struct pt_regs *regs, long ret)
{
	on_exit(regs_syscall_nr_btf(regs), ret, true, true);
	return 0;
}

/* tp_btf with the tid hash: kernels with tp_btf but without task storage for tracing
 * programs (5.5 to 5.10). */
SEC("tp_btf/sys_enter")
int BPF_PROG(lat_enter_btf_hash, struct pt_regs *regs, long id)
{
	on_enter(id, false);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(lat_exit_btf_hash, struct pt_regs *regs, long ret)
{
	on_exit(regs_syscall_nr_btf(regs), ret, true, false);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(lat_enter_raw_task, struct pt_regs *regs, long id)
{
	on_enter(id, true);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(lat_exit_raw_task, struct pt_regs *regs, long ret)
{
	on_exit(regs_syscall_nr(regs), ret, true, true);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(lat_enter_raw_hash, struct pt_regs *regs, long id)
{
	on_enter(id, false);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(lat_exit_raw_hash, struct pt_regs *regs, long ret)
{
	on_exit(regs_syscall_nr(regs), ret, true, false);
	return 0;
}

SEC("tp/raw_syscalls/sys_enter")
int lat_enter_tp_hash(struct trace_event_raw_sys_enter *ctx)
{
	on_enter(ctx->id, false);
	return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int lat_exit_tp_hash(struct trace_event_raw_sys_exit *ctx)
{
	on_exit(ctx->id, ctx->ret, true, false);
	return 0;
}
