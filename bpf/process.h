/* Map layout of the `process` module, shared by process.bpf.c and libcore/mod_process.c.
 * Fixed-width types only. Counts are cumulative u64 that the kernel only adds to. */
#ifndef EBPF_PROCESS_H
#define EBPF_PROCESS_H

#include <linux/types.h>

/* The module's probe points, in its points table's order: the row of each in map
 * `witness` (include/witness.bpf.h). */
enum process_point {
	PROC_POINT_FORK,
	PROC_POINT_EXEC,
	PROC_POINT_EXIT,
	PROC_POINT_VICTIM,
	PROC_POINTS,
};

/* Index into map `counts` (per-CPU array). */
enum process_count {
	PROC_FORKS = 0,        /* new tasks, processes and threads (sched_process_fork); /proc/stat "processes" also counts io_uring and vhost workers */
	PROC_EXECS,            /* successful execs (sched_process_exec) */
	PROC_EXITS,            /* process exits: the thread group leader exits (sched_process_exit) */
	PROC_THREAD_EXITS,     /* exits of other threads */
	PROC_OOM_KILLS,        /* OOM victims chosen (oom:mark_victim) */
	PROC_OOM_EVENTS_LOST,  /* victims counted but not reported: ring buffer full */
	PROC_COUNT,
};

#define PROC_COMM_LEN 16

/* One record per OOM victim in ring buffer `oom_events`; user space logs it and sends it
 * as an event (libcore/engine/events.h). */
struct oom_victim_event {
	__u32 pid;                 /* the victim's pid, as the kernel's "Killed process" line */
	__u32 has_comm;            /* 0 on kernels whose tracepoint gives only the pid */
	char comm[PROC_COMM_LEN];
	/* cgroup v2 ids (kernfs ids), 0 where unknown: the victim's own cgroup (only where the
	 * tracepoint passes the task), and the cgroup of the task whose allocation ran into the
	 * limit (mark_victim runs in that task): the memory cgroup that hit its limit is that
	 * one or an ancestor of it. */
	__u64 victim_cgroup;
	__u64 trigger_cgroup;
};

#define PROC_OOM_RINGBUF_BYTES (64 * 1024)

#endif
