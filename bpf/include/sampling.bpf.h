/* 1-in-N sampling at a module's entry point (sampling.h), BPF side only. Include after
 * counting.bpf.h.
 *
 * The entry program decides (sample_take): an event it leaves out stores no start, so its
 * exit finds none and records nothing, paying only the lookup that finds nothing. The exit
 * of a sampled event records it with weight N (sample_weight), so the histogram's counts and
 * sum stay estimates of all events, cumulative and monotonic across changes of N, and the
 * percentiles (ratios of counts) need no scaling. A change of N between an event's entry and
 * its exit weighs that one event by the new N.
 *
 * The tick is per CPU and not atomic: on a preemptible tracepoint (syscalls since 6.14) two
 * events on one CPU may read the same tick, which only moves which event is sampled. */
#ifndef EBPF_SAMPLING_BPF_H
#define EBPF_SAMPLING_BPF_H

#include "sampling.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sample_state);
} sampling SEC(".maps");

/* Whether this event is one of the 1 in N measured. */
static __always_inline bool sample_take(void)
{
	__u32 zero = 0;
	struct sample_state *s = bpf_map_lookup_elem(&sampling, &zero);

	if (!s || !s->shift)
		return true;
	return (s->tick++ & ((1u << (s->shift & 31)) - 1)) == 0;
}

/* The same by a random draw instead of the tick: for a workload whose events come in a
 * cycle, where the tick would take the same places of each cycle (runqueue: a thread
 * enqueued twice in one wait, preempted then woken, in a ping-pong; the tick's counts were
 * 5% off either way at 1 in 2). */
static __always_inline bool sample_take_random(void)
{
	__u32 zero = 0;
	struct sample_state *s = bpf_map_lookup_elem(&sampling, &zero);

	if (!s || !s->shift)
		return true;
	return (bpf_get_prandom_u32() & ((1u << (s->shift & 31)) - 1)) == 0;
}

/* N: what a sampled event counts for. */
static __always_inline __u64 sample_weight(void)
{
	__u32 zero = 0;
	struct sample_state *s = bpf_map_lookup_elem(&sampling, &zero);

	return s ? 1ULL << (s->shift & 31) : 1;
}

#endif
