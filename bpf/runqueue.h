/* Map layout of the `runqueue` module, shared by runqueue.bpf.c and libcore/mod_runqueue.c.
 * Fixed-width types only. Every value is a cumulative u64 that the kernel only adds to. */
#ifndef EBPF_RUNQUEUE_H
#define EBPF_RUNQUEUE_H

#include <linux/types.h>

#include "include/hist_row.h"

/* Threads waiting to run at once, for the pid-keyed fallback (map `start_pid`): a thread
 * is in it from wakeup (or preemption) until it runs, so this is a bound on runnable
 * threads, not on all threads. What does not fit is counted in RUNQ_STAT_START_LOST. */
#define RUNQ_MAX_WAITING 10240

/* Value of map `latency` (per-CPU array, one row): struct hist_row of ns from wakeup (or
 * preemption) to running. Each CPU's copy holds the waits of the threads that then ran on
 * that CPU, so per-CPU values are per run queue. */

enum runq_stat {
	RUNQ_STAT_START_LOST = 0, /* no room to store a wakeup time (pid hash full) */
	RUNQ_STAT_BEHIND_FULL,    /* Behind: a (waiter, holder) pair found no room in map behind_counts */
	RUNQ_STAT_COUNT,
};

/* The module's one probe point: its row in map `witness` (include/witness.bpf.h), where the
 * firings and runs of its three tracepoints add up. */
enum runq_point {
	RUNQ_POINT_SCHED,
	RUNQ_POINTS,
};

#endif
