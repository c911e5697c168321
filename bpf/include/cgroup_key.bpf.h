/* `By "cgroup"` on the BPF side: which cgroup an event is counted for, and its row in a
 * module's shared per-cgroup hash. Include after counting.bpf.h.
 *
 * The hashes are shared by all CPUs (not per-CPU): their memory does not grow with the
 * CPUs, and counter_add() makes the adds exact. A table that is full drops nothing from
 * the module's host-wide values: the event is counted in the module's `cgroup_full`. */
#ifndef EBPF_CGROUP_KEY_BPF_H
#define EBPF_CGROUP_KEY_BPF_H

#include "cgroup_key.h"

/* Set by user space before load: false leaves every per-cgroup path out (the verifier
 * removes it: rodata is frozen) and the per-cgroup maps are not created. */
const volatile bool by_cgroup = false;
/* CgroupDepth: the ancestor level of the cgroup2 hierarchy events are counted for. */
const volatile __u32 cgroup_depth = 2;

/* The current task's cgroup at cgroup_depth, or its own cgroup when that is shallower
 * (the root, init.scope): the ancestor helper answers 0 there. */
static __always_inline __u64 current_cgroup_at_depth(void)
{
	__u64 id = bpf_get_current_ancestor_cgroup_id(cgroup_depth);

	return id ? id : bpf_get_current_cgroup_id();
}

/* The value of key in hash `map`, inserted from `zero` (a zeroed global of the value's
 * size: a histogram row is too big for the BPF stack) when new; NULL when the table is
 * full, counted in row 0 of `full` (an array of u64). Two CPUs inserting the same key at
 * once: one insert wins, both then find it. */
static __always_inline void *cgroup_row(void *map, const struct cgroup_row_key *key, const void *zero, void *full)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		add_to_row(full, 0, 1);
	return v;
}

#endif
