/* Recording into a struct hist_row (hist_row.h), BPF side only. Include after
 * counting.bpf.h. Always inline: 5.10's verifier cannot follow a map-value pointer into
 * a bpf-to-bpf call. */
#ifndef EBPF_HIST_ROW_BPF_H
#define EBPF_HIST_ROW_BPF_H

#include "hist_row.h"

/* Sub-buckets per power of two, as 2^hist_precision (hist_slot.h): one value for every
 * histogram of the program, set by user space before load from the module's `Precision`.
 * Read-only data is a known constant to the verifier, which checks every slot index
 * against the map's value size for that precision. */
const volatile __u32 hist_precision = HIST_PRECISION_DEFAULT;

/* A per-CPU array of `rows` histogram rows, whose value size user space sets for its
 * precision (hist_row.h): no BTF types to disagree with it. */
#define HIST_ROWS_MAP(name, rows)                                                             \
	struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, rows);          \
		 __uint(key_size, sizeof(__u32)); __uint(value_size, sizeof(struct hist_row)); } name SEC(".maps")

/* A hash of histogram rows shared by all CPUs (record with hist_record: atomic adds), keyed
 * by key_type; user space sets its size and value size (By "cgroup" tables). */
#define HIST_HASH_MAP(name, key_type)                                                         \
	struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 1);                     \
		 __uint(key_size, sizeof(key_type)); __uint(value_size, sizeof(struct hist_row)); } name SEC(".maps")

/* One value v whose slot is known (at the precision of h's map): its slot and the sum, with
 * atomic adds (see counting.bpf.h for why). A value recorded into two rows has each of its
 * slots computed once: one for the host-wide row, one at the per-cgroup rows' own precision
 * (cgroup_hist.bpf.h's cgroup_hist_slot_again). 5.10's verifier, meeting the slot's
 * comparisons a second time on the same value, follows branches the first ones made dead
 * (it cannot decide `if 2 > v` from v's range) into a slot index out of any bound. */
static __always_inline void hist_record_at(struct hist_row *h, __u64 slot, __u64 v)
{
	counter_add(&h->slots[slot], 1);
	counter_add(&h->sum, v);
}

/* The same for a value sampled 1 in n (sampling.bpf.h): it counts n times. */
static __always_inline void hist_record_at_n(struct hist_row *h, __u64 slot, __u64 v, __u64 n)
{
	counter_add(&h->slots[slot], n);
	counter_add(&h->sum, v * n);
}

/* One value v into one of the host-wide rows, at hist_precision (a value recorded into
 * this row only). */
static __always_inline void hist_record(struct hist_row *h, __u64 v)
{
	hist_record_at(h, hist_slot_p(v, hist_precision), v);
}

/* The same, weighted n (1, or N when sampled 1 in N), without atomics, only for a row that one CPU writes with interrupts off
 * (runqueue's per-CPU row at sched_switch): nothing can interleave there, and the
 * hottest module saves the locked adds. */
static __always_inline void hist_record_exclusive(struct hist_row *h, __u64 v, __u64 n)
{
	h->slots[hist_slot_p(v, hist_precision)] += n;
	h->sum += v * n;
}

#endif
