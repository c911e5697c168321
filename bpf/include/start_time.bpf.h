/* The start-time store of every module that times something from one event to another
 * (syscall entry to exit, wakeup to run, SYN_SENT to ESTABLISHED, ...). Include after
 * counting.bpf.h.
 *
 * Two variants behind one API of put / take:
 *  - task storage (START_TASK_MAP): one u64 per task, freed with the task, never full;
 *    only where the program can hand the helper a task (tp_btf, fentry; 5.11+ for
 *    tracing programs);
 *  - a hash (START_HASH_MAP) keyed by whatever identifies the interval (thread id,
 *    thread + operation, socket): bounded, so a put that finds no room is counted in
 *    the caller's stat row, never silently lost, and never evicts another start.
 * A take returns the start and forgets it, or 0 when there is none (the interval began
 * before we attached, or its put found no room): callers record nothing then.
 * All always inline: 5.10's verifier takes no map-value pointers across bpf-to-bpf calls.
 */
#ifndef EBPF_START_TIME_BPF_H
#define EBPF_START_TIME_BPF_H

/* Map declarations; macros only because a map's type must be spelled per object. */
#define START_TASK_MAP(name)                                                                  \
	struct { __uint(type, BPF_MAP_TYPE_TASK_STORAGE); __uint(map_flags, BPF_F_NO_PREALLOC); \
		 __type(key, int); __type(value, __u64); } name SEC(".maps")

#define START_HASH_MAP(name, key_type, cap)                                                   \
	struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, cap);                   \
		 __type(key, key_type); __type(value, __u64); } name SEC(".maps")

/* Key of a hash of thread starts where intervals nest (an O_SYNC write calls fsync inside
 * it): the thread and what it times (an operation, a row). */
struct start_thread_key {
	__u32 tid;
	__u32 what;
};

static __always_inline struct start_thread_key start_thread_key(__u32 what)
{
	struct start_thread_key key = { .tid = (__u32)bpf_get_current_pid_tgid(), .what = what };

	return key;
}

/* Stores ts for task t; counts a failure in row lost_row of the u64 array `stats`. */
static __always_inline void start_task_put(void *map, struct task_struct *t, __u64 ts,
					   void *stats, __u32 lost_row)
{
	__u64 *slot = bpf_task_storage_get(map, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (slot)
		*slot = ts;
	else
		add_to_row(stats, lost_row, 1);
}

/* The start stored for task t, 0 if none; cleared (not freed: the task will need it). */
static __always_inline __u64 start_task_take(void *map, struct task_struct *t)
{
	__u64 *slot = bpf_task_storage_get(map, t, 0, 0), ts;

	if (!slot)
		return 0;
	ts = *slot;
	*slot = 0;
	return ts;
}

/* Stores ts under *key; a full hash is counted in row lost_row of `stats`. */
static __always_inline void start_hash_put(void *map, const void *key, __u64 ts,
					   void *stats, __u32 lost_row)
{
	if (bpf_map_update_elem(map, key, &ts, BPF_ANY))
		add_to_row(stats, lost_row, 1);
}

/* The start stored under *key, 0 if none; the entry is deleted so that none outlives
 * its interval. */
static __always_inline __u64 start_hash_take(void *map, const void *key)
{
	__u64 *slot = bpf_map_lookup_elem(map, key), ts;

	if (!slot)
		return 0;
	ts = *slot;
	bpf_map_delete_elem(map, key);
	return ts;
}

/* The current thread's start of `what`, now, in a START_HASH_MAP keyed by
 * start_thread_key; a full hash is counted in row lost_row of `stats`. */
static __always_inline void start_thread_put(void *map, __u32 what, void *stats, __u32 lost_row)
{
	struct start_thread_key key = start_thread_key(what);

	start_hash_put(map, &key, bpf_ktime_get_ns(), stats, lost_row);
}

/* The current thread's start of `what` (start_thread_put), 0 if none; forgotten. */
static __always_inline __u64 start_thread_take(void *map, __u32 what)
{
	struct start_thread_key key = start_thread_key(what);

	return start_hash_take(map, &key);
}

#endif
