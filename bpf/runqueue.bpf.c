// SPDX-License-Identifier: GPL-2.0
/* runqueue module: run-queue latency, the time a thread waits between becoming runnable
 * (sched_wakeup, sched_wakeup_new, or preemption seen at sched_switch) and running
 * (sched_switch to it).
 *
 * Wait start times live in task-local storage (tp_btf: the woken task is a BTF pointer the
 * helper accepts): nothing to size, freed with the task. raw_tp and classic tracepoints
 * cannot hand task storage a pointer to another task, so they key a hash by pid.
 *
 * The histogram is a per-CPU array of one row: sched_switch runs with interrupts off on
 * the CPU the next thread runs on, so each CPU's copy is that run queue's, written by one
 * CPU only, without atomics.
 *
 * By "cgroup": each wait is also counted for the cgroup of the thread that waited (the one
 * switched in), read from that task by CO-RE where the program has it (tp_btf, raw_tp);
 * the classic tracepoint has only its pid, see rq_switch_tp_hash.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include "include/hist_row.bpf.h"
#include "include/start_time.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "include/entry_points.bpf.h"
#include "include/sampling.bpf.h"
#include "runqueue.h"
#include "include/cgroup_key.bpf.h"
#include "include/cgroup_hist.bpf.h"
#define behind_full_row RUNQ_STAT_BEHIND_FULL
#define WITNESS_POINTS RUNQ_POINTS
#include "include/witness.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0; /* 0: every thread; tests set their own */

/* __trace_sched_switch_state() reports a preempted task as TASK_REPORT_MAX (4.14+). */
#define TASK_REPORT_MAX 0x100

HIST_ROWS_MAP(latency, 1);
COUNTER_ROWS_MAP(stats, RUNQ_STAT_COUNT);
#include "include/wait_behind.bpf.h"

START_TASK_MAP(start_task);
START_HASH_MAP(start_pid, __u32, RUNQ_MAX_WAITING);

static __always_inline bool task_runnable(struct task_struct *t)
{
	struct task_struct___state *t_new = (void *)t;
	struct task_struct___old_state *t_old = (void *)t;

	if (bpf_core_field_exists(t_new->__state))
		return BPF_CORE_READ(t_new, __state) == 0;
	return BPF_CORE_READ(t_old, state) == 0;
}

/* A wait, sampled 1 in n (sampling.bpf.h: only a sampled wait has a start). */
static __always_inline void record(__u64 delta, __u64 n)
{
	__u32 zero = 0;
	struct hist_row *h = bpf_map_lookup_elem(&latency, &zero);

	if (h) /* one CPU, interrupts off: see the top of this file */
		hist_record_exclusive(h, delta, n);
}

/* ---- By "cgroup": the same histogram per cgroup (cgroup_key.bpf.h) ---------------------- */

/* Keyed by (cgroup, row 0: the one histogram); shared by all CPUs, so with atomic adds.
 * Sized by user space and created only with By "cgroup", as the aux maps. */
CGROUP_HIST_MAP(cgroup_latency);

CGROUP_AUX_MAPS(struct hist_row);

/* A wait the classic tracepoint flavour measured at a switch-in and counts for its cgroup
 * at that thread's next switch-out (rq_switch_tp_hash): one per CPU, since the thread
 * switched in on a CPU is the next one switched out there. */
struct runq_pending {
	__u32 pid; /* 0: none */
	__u32 pad;
	__u64 delta;
	__u64 end; /* when the wait ended (Behind: its window on this CPU's ring) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct runq_pending);
} cgroup_pending SEC(".maps");

/* task: the waiting task, NULL when it is the current one; n: the wait's weight (sampled
 * 1 in n). Its row's cgroup (0: none). */
static __always_inline __u64 record_by_cgroup(const void *task, __u64 delta, __u64 n)
{
	struct cgroup_row_key key;
	void *zero = cgroup_zero_row();
	struct hist_row *h;

	if (task)
		row_key_task(&key, task, 0);
	else
		row_key_current(&key, 0);
	if (!zero || (!by_command && !key.cgroup)) /* no cgroup read: the host-wide row has the wait */
		return 0;
	h = cgroup_row(&cgroup_latency, &key, zero, &cgroup_full);
	if (h)
		hist_record_at_n(h, hist_slot_p(delta, cgroup_hist_precision), delta, n);
	return key.cgroup;
}

/* A wait of task `next`, which now runs (at now): host-wide, for its cgroup, and with Behind
 * split by who held this CPU meanwhile (wait_behind.bpf.h). */
static __always_inline __u64 record_task(struct task_struct *next, __u64 delta, __u64 now)
{
	__u64 n = sample_weight(), cg;

	record(delta, n);
	if (!by_cgroup)
		return 0;
	cg = record_by_cgroup(next, delta, n);
	if (behind)
		behind_wait(cg, now - delta, now, n);
	return cg; /* next's cgroup: Behind's holder of its run (behind_switched_in) */
}

/* ---- workers: task storage ---------------------------------------------------------- */

static __always_inline void enqueue_task(struct task_struct *p)
{
	if (!p || BPF_CORE_READ(p, pid) == 0) /* the idle threads never wait */
		return;
	if (filter_tgid && BPF_CORE_READ(p, tgid) != filter_tgid)
		return;
	if (!sample_take_random()) { /* 1 in N: the governor's (sampling.bpf.h) */
		/* A thread enqueued twice in one wait (preempted, then woken while still queued)
		 * waits from its last enqueue, unsampled: a start from the first would record
		 * that wait when its last enqueue was left out (+5.6% at 1 in 2), so each wait is
		 * recorded 1 in N, weighted N. */
		start_task_take(&start_task, p);
		return;
	}
	start_task_put(&start_task, p, bpf_ktime_get_ns(), &stats, RUNQ_STAT_START_LOST);
}

static __always_inline void switch_task(bool preempt, struct task_struct *prev, struct task_struct *next)
{
	bool runnable = prev && (preempt || task_runnable(prev));
	/* Behind: one clock for the span that ends and the wait, so that the one covers the other */
	__u64 start, cg, now = behind ? bpf_ktime_get_ns() : 0;

	if (behind)
		behind_switch_tasks(prev, next, runnable, now);
	if (runnable)
		enqueue_task(prev); /* still runnable: it waits in the run queue from now */
	if (!next)
		return;
	start = start_task_take(&start_task, next);
	if (start && !now)
		now = bpf_ktime_get_ns();
	cg = start ? record_task(next, now - start, now) : 0;
	if (behind)
		behind_switched_in(next, cg);
}

/* ---- workers: pid hash -------------------------------------------------------------- */

static __always_inline void enqueue_pid(__u32 pid)
{
	if (!pid)
		return;
	if (sample_take_random())
		start_hash_put(&start_pid, &pid, bpf_ktime_get_ns(), &stats, RUNQ_STAT_START_LOST);
	else /* as enqueue_task: the wait is its last enqueue's */
		start_hash_take(&start_pid, &pid);
}

/* The wait of thread pid, which now runs, into *delta and its end into *now (the clock read
 * here unless *now is set): false when its start is unknown. */
static __always_inline bool run_pid(__u32 pid, __u64 *delta, __u64 *now)
{
	__u64 start = start_hash_take(&start_pid, &pid);

	if (!start)
		return false;
	if (!*now)
		*now = bpf_ktime_get_ns();
	*delta = *now - start;
	return true;
}

static __always_inline bool wanted_task(struct task_struct *p)
{
	return !filter_tgid || BPF_CORE_READ(p, tgid) == filter_tgid;
}

static __always_inline void enqueue_task_pid(struct task_struct *p)
{
	if (p && wanted_task(p))
		enqueue_pid(BPF_CORE_READ(p, pid));
}

static __always_inline void switch_pid(bool preempt, struct task_struct *prev, struct task_struct *next)
{
	bool runnable = prev && (preempt || task_runnable(prev));
	__u64 delta, cg = 0, now = behind ? bpf_ktime_get_ns() : 0; /* as switch_task */

	if (behind)
		behind_switch_tasks(prev, next, runnable, now);
	if (runnable)
		enqueue_task_pid(prev);
	if (next && run_pid(BPF_CORE_READ(next, pid), &delta, &now))
		cg = record_task(next, delta, now);
	if (behind)
		behind_switched_in(next, cg);
}

/* ---- entry points: tp_btf + task storage --------------------------------------------- */

/* Each program counts its run first (witness.bpf.h); the witnesses are defined below. */
#define RAN witness_count_ran(RUNQ_POINT_SCHED)

SEC("tp_btf/sched_wakeup") int BPF_PROG(rq_wakeup_btf_task, struct task_struct *p) { RAN; enqueue_task(p); return 0; }
SEC("tp_btf/sched_wakeup_new") int BPF_PROG(rq_wakeup_new_btf_task, struct task_struct *p) { RAN; enqueue_task(p); return 0; }
SEC("tp_btf/sched_switch")
int BPF_PROG(rq_switch_btf_task, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	RAN;
	switch_task(preempt, prev, next);
	return 0;
}

/* ---- entry points: tp_btf / raw_tp + pid hash ------------------------------------------ */

TP_BTF_RAW("sched_wakeup", rq_wakeup_btf_hash, rq_wakeup_raw_hash, RAN; enqueue_task_pid(p), struct task_struct *p)
TP_BTF_RAW("sched_wakeup_new", rq_wakeup_new_btf_hash, rq_wakeup_new_raw_hash, RAN; enqueue_task_pid(p),
	   struct task_struct *p)
TP_BTF_RAW("sched_switch", rq_switch_btf_hash, rq_switch_raw_hash, RAN; switch_pid(preempt, prev, next),
	   bool preempt, struct task_struct *prev, struct task_struct *next)

/* The witnesses of the three tracepoints, attached after the module's programs with
 * `Witness true` (every context switch then runs one more program). */
WITNESS_PROGRAMS(rq_wakeup, "sched_wakeup", RUNQ_POINT_SCHED)
WITNESS_PROGRAMS(rq_wakeup_new, "sched_wakeup_new", RUNQ_POINT_SCHED)
WITNESS_PROGRAMS(rq_switch, "sched_switch", RUNQ_POINT_SCHED)

/* ---- entry points: classic tracepoints + pid hash --------------------------------------- */

/* Wakeups run in the waker's context and the record has only the woken pid, so with a
 * tgid filter (tests) they cannot be attributed and are left out; preemptions are, since
 * the preempted thread is the current one. */
static __always_inline void wakeup_tp(struct trace_event_raw_sched_wakeup_template *ctx)
{
	if (!filter_tgid)
		enqueue_pid(ctx->pid);
}

SEC("tp/sched/sched_wakeup")
int rq_wakeup_tp_hash(struct trace_event_raw_sched_wakeup_template *ctx)
{
	wakeup_tp(ctx);
	return 0;
}

SEC("tp/sched/sched_wakeup_new")
int rq_wakeup_new_tp_hash(struct trace_event_raw_sched_wakeup_template *ctx)
{
	wakeup_tp(ctx);
	return 0;
}

/* By "cgroup" here: the record names `next` by pid only, and the program runs in `prev`
 * (the switch has not happened yet), so the cgroup of the thread that waited cannot be read
 * when its wait ends, nor at its wakeup (which runs in the waker). It can be at the thread's
 * next switch-out, where it is the current task: the wait is held in this CPU's
 * cgroup_pending until then and counted for the cgroup the thread is in at that moment (the
 * host-wide row counts it at once). A wait is so counted per cgroup up to one time slice
 * later than host-wide; a thread moved to another cgroup while running counts its last wait
 * for the new one. */
static __always_inline void settle_pending(__u32 prev_pid)
{
	__u32 zero = 0;
	struct runq_pending *p = bpf_map_lookup_elem(&cgroup_pending, &zero);

	if (!p || !p->pid)
		return;
	if (p->pid == prev_pid) { /* else a switch we did not see (attach): forgotten */
		__u64 n = sample_weight(), cg = record_by_cgroup(NULL, p->delta, n);

		/* before this switch's span is written: the ring is as it was at the wait's end
		 * but for the spans of the thread's own run, which begin at p->end */
		if (behind)
			behind_wait(cg, p->end - p->delta, p->end, n);
	}
	p->pid = 0;
}

static __always_inline void hold_pending(__u32 pid, __u64 delta, __u64 end)
{
	__u32 zero = 0;
	struct runq_pending *p = bpf_map_lookup_elem(&cgroup_pending, &zero);

	if (p) { /* this CPU's, interrupts off */
		p->pid = pid;
		p->delta = delta;
		p->end = end;
	}
}

SEC("tp/sched/sched_switch")
int rq_switch_tp_hash(struct trace_event_raw_sched_switch *ctx)
{
	long state = ctx->prev_state;
	bool runnable = state == 0 || (state & TASK_REPORT_MAX);
	__u64 delta, now = behind ? bpf_ktime_get_ns() : 0; /* as switch_task */

	if (by_cgroup)
		settle_pending(ctx->prev_pid);
	if (behind)
		behind_switch_current(runnable, ctx->prev_pid, ctx->next_pid, now);
	if (runnable && tgid_filter_passes(filter_tgid))
		enqueue_pid(ctx->prev_pid);
	if (!run_pid(ctx->next_pid, &delta, &now))
		return 0;
	record(delta, sample_weight());
	if (by_cgroup)
		hold_pending(ctx->next_pid, delta, now);
	return 0;
}
