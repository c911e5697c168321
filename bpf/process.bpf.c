// SPDX-License-Identifier: GPL-2.0
/* process module: fork/clone, exec and exit counts, and OOM kills with the victim
 * reported to user space through a ring buffer (user space logs it; a victim is never a
 * metric label).
 *
 * Four probe points, each in three attach flavours (tp_btf, raw_tp, classic tracepoint);
 * user space loads one flavour per point. The counting flavours need no tracepoint
 * argument: the task doing the fork, exec or exit is the current task. Each point has a
 * witness (include/witness.bpf.h) for its tp_btf and raw_tp flavours.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "include/entry_points.bpf.h"
#include "process.h"
#include "include/cgroup_key.bpf.h"

#define WITNESS_POINTS PROC_POINTS
#include "include/witness.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u32 filter_tgid = 0;          /* tests: this process and its children only */
const volatile bool victim_arg_is_task = true; /* recent mark_victim(task, uid), older (int pid) */

COUNTER_ROWS_MAP(counts, PROC_COUNT);

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PROC_OOM_RINGBUF_BYTES);
} oom_events SEC(".maps");

static __always_inline void count(__u32 which)
{
	add_to_row(&counts, which, 1);
}

/* The filter follows one process tree level: the process itself and its children (what a
 * test forks and execs). */
static __always_inline bool wanted(void)
{
	struct task_struct___proc *task;

	if (tgid_filter_passes(filter_tgid))
		return true;
	task = (struct task_struct___proc *)bpf_get_current_task();
	return BPF_CORE_READ(task, real_parent, tgid) == filter_tgid;
}

/* ---- By "cgroup": the same counts per cgroup (cgroup_key.bpf.h) ------------------------ */

/* Keyed by (cgroup, count row); sized by user space and created only with By "cgroup", as
 * cgroup_zero (a zeroed value new rows are inserted from) and cgroup_full. */
CGROUP_COUNTS_MAP(cgroup_counts, __u64);

CGROUP_AUX_MAPS(__u64);

/* task: the task the event is counted for, NULL for the current one. */
static __always_inline void count_by_cgroup(const void *task, __u32 which)
{
	struct cgroup_row_key key;
	void *zero = cgroup_zero_row();
	__u64 *c;

	if (!zero)
		return;
	if (task)
		row_key_task(&key, task, which);
	else
		row_key_current(&key, which);
	c = cgroup_row(&cgroup_counts, &key, zero, &cgroup_full);
	if (c)
		counter_add(c, 1);
}

/* ---- workers ------------------------------------------------------------------------ */

static __always_inline void on_event(__u32 which)
{
	if (!wanted())
		return;
	count(which);
	if (by_cgroup)
		count_by_cgroup(NULL, which);
}

static __always_inline void on_exit(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 which = (__u32)id == (__u32)(id >> 32) ? PROC_EXITS : PROC_THREAD_EXITS;

	if (!wanted())
		return;
	count(which);
	if (by_cgroup)
		count_by_cgroup(NULL, which);
}

/* Counted first, reported second: a full ring buffer loses the name, never the count. */
static __always_inline void on_victim(__u32 pid, const struct task_struct___proc *task, const char *comm_in_record)
{
	struct oom_victim_event *e;

	count(PROC_OOM_KILLS);
	/* The victim's cgroup: only where the tracepoint passes the task (else unknown, and the
	 * kill is in the host-wide count alone). */
	if (by_cgroup && task)
		count_by_cgroup(task, PROC_OOM_KILLS);
	e = bpf_ringbuf_reserve(&oom_events, sizeof(*e), 0);
	if (!e) {
		count(PROC_OOM_EVENTS_LOST);
		return;
	}
	e->pid = pid;
	e->has_comm = 1;
	e->trigger_cgroup = bpf_get_current_cgroup_id();
	e->victim_cgroup = task ? BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id) : 0;
	if (task)
		BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
	else if (comm_in_record)
		bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), comm_in_record);
	else
		e->has_comm = 0;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void on_victim_args(unsigned long long *ctx)
{
	struct task_struct___proc *task;

	if (!victim_arg_is_task) {
		on_victim((__u32)ctx[0], NULL, NULL);
		return;
	}
	task = (struct task_struct___proc *)ctx[0];
	on_victim(BPF_CORE_READ(task, pid), task, NULL);
}

/* ---- sched:sched_process_fork, sched_process_exec, sched_process_exit (the last runs in
 * the exiting task) -------------------------------------------------------------------- */

WITNESSED_TP_ALL_FLAVOURS(sched, sched_process_fork, fork, PROC_POINT_FORK, on_event(PROC_FORKS))
WITNESSED_TP_ALL_FLAVOURS(sched, sched_process_exec, exec, PROC_POINT_EXEC, on_event(PROC_EXECS))
WITNESSED_TP_ALL_FLAVOURS(sched, sched_process_exit, exit, PROC_POINT_EXIT, on_exit())

/* ---- oom:mark_victim (runs in whichever task hit the limit, not the victim) ---------- */

TP_BTF_RAW("mark_victim", victim_btf, victim_raw, witness_count_ran(PROC_POINT_VICTIM); on_victim_args(ctx))
WITNESS_PROGRAMS(victim, "mark_victim", PROC_POINT_VICTIM)

SEC("tp/oom/mark_victim")
int victim_tp(struct trace_event_raw_mark_victim *ctx)
{
	const char *comm = NULL;

	if (bpf_core_field_exists(ctx->__data_loc_comm))
		comm = (const char *)ctx + (ctx->__data_loc_comm & 0xffff);
	on_victim(ctx->pid, NULL, comm);
	return 0;
}
