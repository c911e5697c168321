/* runqueue's "behind whom?" on the BPF side (`Behind true`, with By "cgroup"): who held a
 * CPU while a thread waited for it, and who preempted whom. Include after cgroup_key.bpf.h
 * and counting.bpf.h; the includer defines the per-CPU counter map `stats` and the row
 * behind_full_row (where a full `behind` table counts what it dropped).
 *
 * Each CPU keeps a ring of its last BEHIND_RING holder spans (holder, start, end), one
 * written at every sched_switch for the task switched out (prev: its cgroup at CgroupDepth,
 * BEHIND_KERNEL for a kernel thread, BEHIND_IDLE for the idle task). A wait that ends on a
 * CPU takes each span's overlap with [wait start, now], newest to oldest, for (waiter,
 * holder); the part no span covers (more than BEHIND_RING switches during the wait, a span
 * the CPU saw before the module attached, a wait begun on another CPU before a migration
 * when that CPU's spans are older) goes to BEHIND_UNKNOWN: counted, never lost. */
#ifndef EBPF_WAIT_BEHIND_BPF_H
#define EBPF_WAIT_BEHIND_BPF_H

#include "wait_behind.h"

/* Set by user space before load: false leaves every path here out (the verifier removes it)
 * and the maps below are not created. */
const volatile bool behind = false;

#define PF_KTHREAD 0x00200000

struct behind_span {
	__u64 holder, start, end;
};

/* A CPU's: since when its current task runs, the ring (head: spans written, the next one at
 * head % BEHIND_RING), and, for the classic tracepoint, a preemption whose preempter's
 * holder is read at the next switch (it is then the current task). Written by that CPU
 * only, in sched_switch with interrupts off. */
struct behind_cpu {
	__u64 since;
	__u64 holder;           /* tp_btf, raw_tp: the current task's, set when it was switched in */
	__u64 head;
	__u64 preempted_waiter; /* classic tracepoint: the preempted thread's cgroup */
	__u32 preempter_pid;    /* ... and who preempted it (0: none) */
	__u32 holder_pid;       /* whose `holder` is: a switch no program saw leaves another task's */
	struct behind_span ring[BEHIND_RING];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct behind_cpu);
} behind_cpus SEC(".maps");

/* (waiter, holder) -> counts; shared by all CPUs (atomic adds), sized by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct behind_key);
	__type(value, struct behind_counts);
} behind_counts SEC(".maps");

struct task_struct___bh {
	unsigned int flags;
	int pid;
};

static __always_inline struct behind_cpu *behind_this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&behind_cpus, &zero);
}

/* Who a task running on a CPU is as a holder. */
static __always_inline __u64 behind_holder(const void *task)
{
	const struct task_struct___bh *t = task;
	__u64 id;

	if (!t || !BPF_CORE_READ(t, pid))
		return BEHIND_IDLE;
	if (BPF_CORE_READ(t, flags) & PF_KTHREAD)
		return BEHIND_KERNEL;
	id = task_cgroup_at_depth(task);
	return id ? id : BEHIND_OUTSIDE;
}

/* The waiter's row of a task (as its per-cgroup rows'), from its holder when that is its
 * cgroup. */
static __always_inline __u64 behind_waiter(const void *task, __u64 holder)
{
	return holder < BEHIND_OUTSIDE ? holder : task_cgroup_at_depth(task);
}

static __always_inline struct behind_counts *behind_entry(__u64 waiter, __u64 holder)
{
	struct behind_key k = { .waiter = waiter, .holder = holder };
	struct behind_counts zero = {}, *c = bpf_map_lookup_elem(&behind_counts, &k);

	if (c)
		return c;
	bpf_map_update_elem(&behind_counts, &k, &zero, BPF_NOEXIST);
	c = bpf_map_lookup_elem(&behind_counts, &k);
	if (!c)
		add_to_row(&stats, behind_full_row, 1);
	return c;
}

static __always_inline void behind_add_wait(__u64 waiter, __u64 holder, __u64 ns)
{
	struct behind_counts *c = behind_entry(waiter, holder);

	if (c)
		counter_add(&c->wait_ns, ns);
}

static __always_inline void behind_add_preemption(__u64 waiter, __u64 holder)
{
	struct behind_counts *c;

	if (!waiter)
		return;
	c = behind_entry(waiter, holder);
	if (c)
		counter_add(&c->preemptions, 1);
}

/* A switch at `now` on this CPU: the span of the task switched out (its holder prev_holder)
 * ends; the next one's begins. */
static __always_inline void behind_switch(struct behind_cpu *c, __u64 prev_holder, __u64 now)
{
	if (c->since) {
		struct behind_span *s = &c->ring[c->head & (BEHIND_RING - 1)];

		s->holder = prev_holder;
		s->start = c->since;
		s->end = now;
		c->head++;
	}
	c->since = now;
}

/* A wait of waiter's [start, end), weighted n, split over this CPU's spans. */
static __always_inline void behind_wait(__u64 waiter, __u64 start, __u64 end, __u64 n)
{
	struct behind_cpu *c = behind_this_cpu();
	__u64 covered = 0, run_holder = 0, run_ns = 0;

	if (!c || !waiter || end <= start)
		return;
	for (__u32 i = 0; i < BEHIND_RING; i++) {
		const struct behind_span *s;
		__u64 lo, hi;

		if (i >= c->head)
			break;
		s = &c->ring[(c->head - 1 - i) & (BEHIND_RING - 1)];
		if (s->end <= start)
			break;
		lo = s->start > start ? s->start : start;
		hi = s->end < end ? s->end : end;
		if (hi <= lo)
			continue;
		covered += hi - lo;
		if (run_ns && s->holder != run_holder) { /* spans of one holder in a row: one add */
			behind_add_wait(waiter, run_holder, run_ns * n);
			run_ns = 0;
		}
		run_holder = s->holder;
		run_ns += hi - lo;
	}
	if (run_ns)
		behind_add_wait(waiter, run_holder, run_ns * n);
	if (covered < end - start)
		behind_add_wait(waiter, BEHIND_UNKNOWN, (end - start - covered) * n);
}

/* sched_switch with both tasks (tp_btf, raw_tp): prev's span ends, its holder the one
 * behind_switched_in kept when prev came in, read again from prev when none was kept for it:
 * the first switch seen, or a switch-in no program saw (the kernel does not always deliver
 * the event: on this project's test machine, the switch-outs of two threads of another
 * program were never in ftrace's trace and mostly missed by the programs too), after which
 * the kept holder is that of the task before. The span's start is then the last switch seen, as for the classic
 * tracepoint, which reads the current task at each switch. A preempted prev counts a
 * preemption for next's holder. */
static __always_inline void behind_switch_tasks(const void *prev, const void *next, bool preempted, __u64 now)
{
	const struct task_struct___bh *p = prev;
	struct behind_cpu *c = behind_this_cpu();
	__u64 ph;

	if (!c)
		return;
	ph = c->since && c->holder && p && c->holder_pid == (__u32)BPF_CORE_READ(p, pid) ? c->holder : behind_holder(prev);
	behind_switch(c, ph, now);
	if (preempted && ph != BEHIND_IDLE)
		behind_add_preemption(behind_waiter(prev, ph), behind_holder(next));
}

/* After the switch's wait was recorded (tp_btf, raw_tp): next's holder for its span, from
 * cg, the cgroup its wait was counted for (0: none), so that a switch-in that ends a wait
 * reads no cgroup again. */
static __always_inline void behind_switched_in(const void *next, __u64 cg)
{
	const struct task_struct___bh *t = next;
	struct behind_cpu *c = behind_this_cpu();

	if (!c)
		return;
	c->holder_pid = t ? BPF_CORE_READ(t, pid) : 0;
	if (!t || !c->holder_pid)
		c->holder = BEHIND_IDLE;
	else if (BPF_CORE_READ(t, flags) & PF_KTHREAD)
		c->holder = BEHIND_KERNEL;
	else
		c->holder = cg ? cg : behind_holder(next);
}

/* sched_switch as the classic tracepoint sees it: prev is the current task, next only a pid.
 * A preemption of the current task is counted at the next switch on this CPU, whose current
 * task is then its preempter when its pid is the one recorded; else a switch reached no
 * program (behind_switch_tasks) and who preempted is not known: counted for BEHIND_UNKNOWN,
 * so that the preemptions stay exact in sum. */
static __always_inline void behind_switch_current(bool preempted, __u32 prev_pid, __u32 next_pid, __u64 now)
{
	struct behind_cpu *c = behind_this_cpu();
	const void *cur = (const void *)bpf_get_current_task();
	__u64 ph;

	if (!c)
		return;
	ph = behind_holder(cur);
	if (c->preempter_pid)
		behind_add_preemption(c->preempted_waiter, c->preempter_pid == prev_pid ? ph : BEHIND_UNKNOWN);
	c->preempter_pid = 0;
	behind_switch(c, ph, now);
	if (preempted && prev_pid && next_pid) {
		c->preempted_waiter = behind_waiter(cur, ph);
		c->preempter_pid = next_pid;
	}
}

#endif
