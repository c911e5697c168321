/* What the test BPF programs in foreign styles (those under tests/exporter, the ebpf_exporter
 * and libbpf-tools styles under tests/programs) declare and do alike, as those projects'
 * programs share a maps header of their own. Include after vmlinux.h and
 * <bpf/bpf_helpers.h>. The map macros expand to the very declarations the programs wrote
 * out before, so each object keeps its maps' names, types and key and value types (BTF). */
#ifndef EBPF_TESTS_TEST_MAPS_BPF_H
#define EBPF_TESTS_TEST_MAPS_BPF_H

/* The fd tests/support/close_n closes, which no process has open (EBADF, never a real
 * close): a marker the exporter programs count by. */
#define MARK_FD 777777

#define HASH_MAP(name, key_type, value_type, entries)                                         \
	struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, entries);               \
		 __type(key, key_type); __type(value, value_type); } name SEC(".maps")

/* An array of u64 counters, keyed by row (__u32). */
#define COUNTER_ARRAY(name, entries)                                                          \
	struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, entries);              \
		 __type(key, __u32); __type(value, __u64); } name SEC(".maps")

/* True for close() of MARK_FD, with the caller's command name in comm; the exporter
 * programs count nothing else. */
static __always_inline bool marked_close(struct trace_event_raw_sys_enter *ctx, char comm[16])
{
	if (ctx->args[0] != MARK_FD)
		return false;
	bpf_get_current_comm(comm, 16);
	return true;
}

/* The value of key in map, inserted as *zero where the key is new (BPF_NOEXIST, so that two
 * CPUs that both find no entry do not lose an event to each other); NULL when the map is
 * full. `zero` is the caller's, a value of the map's value size. */
static __always_inline void *lookup_or_insert(void *map, const void *key, const void *zero)
{
	void *value = bpf_map_lookup_elem(map, key);

	if (value)
		return value;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/* The block programs' issue times, by request (a u64 of its address). */
static __always_inline void request_issued(void *starts, struct request *rq)
{
	u64 key = (u64)rq, now = bpf_ktime_get_ns();

	bpf_map_update_elem(starts, &key, &now, BPF_ANY);
}

/* The ns since rq was issued, its entry removed; false when its issue was not seen. */
static __always_inline bool request_done(void *starts, struct request *rq, u64 *ns)
{
	u64 key = (u64)rq, *start = bpf_map_lookup_elem(starts, &key);

	if (!start)
		return false;
	*ns = bpf_ktime_get_ns() - *start;
	bpf_map_delete_elem(starts, &key);
	return true;
}

#endif
