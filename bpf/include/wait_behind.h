/* runqueue's "behind whom?" (`Behind true` with By "cgroup"): each per-cgroup row's waits
 * split by who held the CPU while it waited, and its preemptions by who preempted. Shared by
 * bpf/include/wait_behind.bpf.h and libcore/engine/wait_behind.c. Fixed-width types only. */
#ifndef EBPF_WAIT_BEHIND_H
#define EBPF_WAIT_BEHIND_H

#include <linux/types.h>

/* Holder spans each CPU keeps (the last K switches): a wait that saw more switches than
 * this, or began before the ring's oldest span, has its uncovered part counted for
 * BEHIND_UNKNOWN. */
#define BEHIND_RING 8

/* Holders that are not cgroups (a cgroup id is a kernfs inode number: never these). */
#define BEHIND_KERNEL (~0ull)      /* a kernel thread (PF_KTHREAD) ran */
#define BEHIND_IDLE (~0ull - 1)    /* the CPU was idle (wakeup to run on an idle CPU) */
#define BEHIND_UNKNOWN (~0ull - 2) /* what the ring did not cover */
#define BEHIND_OUTSIDE (~0ull - 3) /* a cgroup the Cgroup selection leaves out */

/* Key of map `behind`: whose wait (the row's cgroup, as cgroup_row_key's) and who held the
 * CPU (a cgroup id at CgroupDepth or one of the BEHIND_* above). */
struct behind_key {
	__u64 waiter;
	__u64 holder;
};

/* Value: cumulative, only added to. */
struct behind_counts {
	__u64 wait_ns;     /* of the waiter's waits while holder ran (weighted 1 in N when sampled) */
	__u64 preemptions; /* the waiter's threads switched out still runnable for holder's */
};

/* Entries of map `behind` per cgroup the per-cgroup rows are sized for. */
#define BEHIND_ENTRIES_PER_CGROUP 8

#endif
