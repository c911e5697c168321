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
#include "include/cgroup_hist.bpf.h"
#include "include/cgroup_slot.bpf.h"
#include "include/entry_points.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "include/syscall_regs.bpf.h"
#include "include/sampling.bpf.h"
#include "syscalls.h"
#define WITNESS_POINTS SYSCALLS_POINTS
#include "include/witness.bpf.h"

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

HIST_ROWS_MAP(latency, 1); /* resized by user space to the number of latency syscalls */
COUNTER_ROWS_MAP(stats, SYSCALL_STAT_COUNT);

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

	if (!row_of(id) || !wanted() || !sample_take()) /* 1 in N: the governor's (sampling.bpf.h) */
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

static __always_inline void record_latency(__u32 row, __u64 delta, __u64 n)
{
	struct hist_row *h;

	row -= 1;
	h = bpf_map_lookup_elem(&latency, &row);
	if (h)
		hist_record_at_n(h, hist_slot_p(delta, hist_precision), delta, n);
}

/* ---- By "cgroup": the same counts and latency per cgroup (cgroup_key.bpf.h) ----------- */

/* Keyed by (cgroup, syscall number) and (cgroup, latency row); sized by user space and
 * created only with By "cgroup", as cgroup_zero (one zeroed row, what new rows are
 * inserted from) and cgroup_full (events no row could take). The counts are kept by slot
 * (cgroup_slot.bpf.h): into slot_counts, at slot * MAX_SYSCALLS + syscall number, which user
 * space adds into cgroup_counts; into cgroup_counts itself only when no slot was free. */
CGROUP_COUNTS_MAP(cgroup_counts, struct syscall_counts);
_Static_assert(sizeof(struct syscall_counts) == sizeof(struct cgroup_call_counts) &&
		       __builtin_offsetof(struct syscall_counts, errors) == __builtin_offsetof(struct cgroup_call_counts, errors),
	       "cgroup_count_call() adds to a syscall_counts as to a cgroup_call_counts");
CGROUP_HIST_MAP(cgroup_latency);
CGROUP_AUX_MAPS(struct hist_row);
CGROUP_SLOT_ROWS_MAP(slot_counts, sizeof(struct syscall_counts));

/* lrow: the latency row + 1 of a call whose start was known (delta its time, n its weight:
 * sampled 1 in n), else 0; btf: the task's comm read directly (tp_btf programs). */
static __always_inline void count_by_cgroup(__u32 nr, long ret, __u32 lrow, __u64 delta, __u64 n, bool btf)
{
	struct cgroup_row_key key;
	__u32 slot = slot_current(btf, &key), i;
	struct syscall_counts *c;
	struct hist_row *h;
	void *zero;

	if (slot == SLOT_NONE)
		return;
	if (slot == SLOT_SPILL) {
		if (!(zero = cgroup_zero_row()))
			return;
		key.row = nr;
		cgroup_count_call(&cgroup_counts, &key, zero, &cgroup_full, ret);
	} else {
		i = slot * MAX_SYSCALLS + nr;
		c = bpf_map_lookup_elem(&slot_counts, &i);
		if (c) {
			counter_add(&c->calls, 1);
			if (ret < 0)
				counter_add(&c->errors, 1);
		}
		if (!lrow || !slot_key(&key, slot) || !(zero = cgroup_zero_row()))
			return;
	}
	if (!lrow)
		return;
	key.row = lrow - 1;
	h = cgroup_row(&cgroup_latency, &key, zero, &cgroup_full);
	if (h)
		hist_record_at_n(h, hist_slot_p(delta, cgroup_hist_precision), delta, n);
}

/* The slot caches kept true: the point's programs slot_switch_*, slot_exec_*, slot_rename_*
 * and slot_attach_* (cgroup_slot.bpf.h). */
CGROUP_SLOT_PROGRAMS(slot)

/* ---- exit --------------------------------------------------------------------------------- */

static __always_inline void on_exit(long id, long ret, bool with_latency, bool task_storage, bool btf)
{
	struct syscall_counts *c;
	__u32 key = id, row;
	__u64 start, delta, n;

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
	n = start ? sample_weight() : 1; /* only a sampled call has a start */
	if (start)
		record_latency(row, delta, n);
	if (by_cgroup)
		count_by_cgroup(key, ret, start ? row : 0, delta, n, btf);
}

/* ---- entry points: counters only ------------------------------------------------------ */

/* count_exit_<flavour> (sec: tp_btf or raw_tp; nr: how it reads the syscall number; btf:
 * a BTF-typed program, which reads the task's comm directly). */
#define COUNT_EXIT(sec, flavour, nr, btf)                                                     \
	SEC(sec "/sys_exit") int BPF_PROG(count_exit_##flavour, struct pt_regs *regs, long ret) \
	{ witness_count_ran(SYSCALLS_POINT_COUNTERS); on_exit(nr(regs), ret, false, false, btf); return 0; }

COUNT_EXIT("tp_btf", btf, regs_syscall_nr_btf, true)
COUNT_EXIT("raw_tp", raw, regs_syscall_nr, false)
WITNESS_PROGRAMS(count_exit, "sys_exit", SYSCALLS_POINT_COUNTERS)

SEC("tp/raw_syscalls/sys_exit")
int count_exit_tp(struct trace_event_raw_sys_exit *ctx)
{
	on_exit(ctx->id, ctx->ret, false, false, false);
	return 0;
}

/* ---- entry points: counters + latency --------------------------------------------------- */

/* The sys_enter and sys_exit programs of one flavour: lat_enter_<flavour>, lat_exit_<flavour>
 * (sec: tp_btf or raw_tp; nr: how its sys_exit reads the number; task: start times in task
 * storage, else in the tid hash; btf: as COUNT_EXIT's). */
#define LATENCY_PAIR(sec, flavour, nr, task, btf)                                             \
	SEC(sec "/sys_enter") int BPF_PROG(lat_enter_##flavour, struct pt_regs *regs, long id) \
	{ witness_count_ran(SYSCALLS_POINT_LATENCY); on_enter(id, task); return 0; }        \
	SEC(sec "/sys_exit") int BPF_PROG(lat_exit_##flavour, struct pt_regs *regs, long ret) \
	{ witness_count_ran(SYSCALLS_POINT_LATENCY); on_exit(nr(regs), ret, true, task, btf); return 0; }

LATENCY_PAIR("tp_btf", btf_task, regs_syscall_nr_btf, true, true)
/* tp_btf with the tid hash: kernels with tp_btf but without task storage for tracing
 * programs (5.5 to 5.10). */
LATENCY_PAIR("tp_btf", btf_hash, regs_syscall_nr_btf, false, true)
LATENCY_PAIR("raw_tp", raw_task, regs_syscall_nr, true, false)
LATENCY_PAIR("raw_tp", raw_hash, regs_syscall_nr, false, false)
/* The latency point's witnesses: a missed sys_enter loses a latency sample, a missed
 * sys_exit a call, so both tracepoints' firings count in the point's one row. */
WITNESS_PROGRAMS(lat_enter, "sys_enter", SYSCALLS_POINT_LATENCY)
WITNESS_PROGRAMS(lat_exit, "sys_exit", SYSCALLS_POINT_LATENCY)

SEC("tp/raw_syscalls/sys_enter")
int lat_enter_tp_hash(struct trace_event_raw_sys_enter *ctx)
{
	on_enter(ctx->id, false);
	return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int lat_exit_tp_hash(struct trace_event_raw_sys_exit *ctx)
{
	on_exit(ctx->id, ctx->ret, true, false, false);
	return 0;
}
