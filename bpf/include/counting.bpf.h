/* Counting helpers every module's BPF program shares. Include after <bpf/bpf_helpers.h>.
 *
 * Atomic adds everywhere, per-CPU rows included: syscall tracepoints are preemptible
 * (faultable since 6.14), fentry and kprobe handlers run under migrate_disable only, and
 * block completions and wakeups come from interrupts, so two updates can interleave on one
 * CPU. An uncontended atomic add costs a few ns and never loses an increment.
 */
#ifndef EBPF_COUNTING_BPF_H
#define EBPF_COUNTING_BPF_H

/* A per-CPU array of `rows` u64 counters (a module's `stats` or `counts` map), as
 * add_to_row() adds to them; user space may make it shared (map_layout.h). */
#define COUNTER_ROWS_MAP(name, rows)                                                          \
	struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, rows);          \
		 __type(key, __u32); __type(value, __u64); } name SEC(".maps")

/* Named for what it does: the header is installed for users' programs (collectd-ebpf-cc),
 * where a plain `add` would clash with their own names. */
static __always_inline void counter_add(__u64 *p, __u64 v)
{
	__sync_fetch_and_add(p, v);
}

/* Adds v to row `row` of an array of u64 (a module's `stats` or `counts` map). */
static __always_inline void add_to_row(void *map, __u32 row, __u64 v)
{
	__u64 *p = bpf_map_lookup_elem(map, &row);

	if (p)
		counter_add(p, v);
}

/* Adds v to the u64 value of `key` in hash `map`, inserting a zero first where the key is
 * new, so that two CPUs that both find no entry do not lose an event to each other (each
 * adds into the one entry). Nothing is added when the map is full. */
static __always_inline void counter_add_at(void *map, const void *key, __u64 v)
{
	__u64 zero = 0, *p = bpf_map_lookup_elem(map, key); /* on the stack: no global for Param to list */

	if (!p) {
		bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
		p = bpf_map_lookup_elem(map, key);
		if (!p)
			return;
	}
	counter_add(p, v);
}

/* The tests' process filter: true for every task when `filter` (a module's rodata
 * filter_tgid) is 0, as in production, where the verifier removes the check because
 * rodata is frozen; else only for tasks of that process. */
static __always_inline bool tgid_filter_passes(__u32 filter)
{
	return !filter || (bpf_get_current_pid_tgid() >> 32) == filter;
}

#endif
