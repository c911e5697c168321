/* `By "cgroup"` and `By "command"` by slot: whose an event is found without a helper call
 * or a hash lookup on the hot path. Include after cgroup_key.bpf.h. A module that uses it
 * (syscalls) counts into arrays of rows indexed by slot (slot * rows + row), not into
 * cgroup_key.bpf.h's hashes; user space (libcore/engine/cgroup_slots.c) adds what each row
 * counted since the last read into the module's tables, under keys of their own (pad
 * ROW_KEY_SLOTS), which the reader adds up with the programs' entries of the same cgroup and
 * row. The programs' own entries are those of events that found no slot free (SLOT_SPILL:
 * they go into the hashes as without slots). A module keeps by slot only the rows of its
 * cheapest events (syscalls: the counts; its latency goes into the hash, keyed by the slot's
 * cgroup from slot_whose).
 *
 * Each cgroup (command) is given a slot when first met: slot_of maps whose it is (struct
 * row_whose) to its slot, slot_free holds the slots free (user space fills it, and gives a
 * slot back after an RCU grace period once it took it from slot_of). Each CPU caches the
 * current task's slot (slot_cache) with the generation it was found at: sched_switch clears
 * it, and the generation (slot_gen: the programs' own count plus user space's) moves on
 * every exec, rename and cgroup move and at every read, so a hit is two inlined array
 * lookups and loads. */
#ifndef EBPF_CGROUP_SLOT_BPF_H
#define EBPF_CGROUP_SLOT_BPF_H

/* The cache word: (generation << 32) | SLOT_CACHED | slot; 0 (cleared) is never a hit. */
#define SLOT_CACHED 0x80000000u
/* slot_current(): no slot was free; the event goes into the module's hash as without slots */
#define SLOT_SPILL (SLOT_NONE - 1)

/* Sized by user space (the tables' cgroups), created only with By "cgroup". */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct row_whose);
	__type(value, __u32);
} slot_of SEC(".maps");

/* Whose each slot is (written before the slot is mapped): the key of its hash rows. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct row_whose);
} slot_whose SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1);
	__uint(value_size, sizeof(__u32));
} slot_free SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} slot_cache SEC(".maps");

/* [SLOT_GEN_KERNEL]: moved by the programs below (atomic adds); [SLOT_GEN_USER]: written by
 * user space alone. The generation is their sum's low 32 bits. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLOT_GEN_WORDS);
	__type(key, __u32);
	__type(value, __u64);
} slot_gen SEC(".maps");

/* An array of rows by slot: `slots` x rows values of value_type, read by user space through
 * mmap. Sized by user space, created only with By "cgroup". */
#define CGROUP_SLOT_ROWS_MAP(name, value_size_)          \
	struct {                                         \
		__uint(type, BPF_MAP_TYPE_ARRAY);        \
		__uint(max_entries, 1);                  \
		__uint(map_flags, BPF_F_MMAPABLE);       \
		__uint(key_size, sizeof(__u32));         \
		__uint(value_size, value_size_);         \
	} name SEC(".maps")

static __always_inline __u32 slot_generation(void)
{
	__u32 k = SLOT_GEN_KERNEL, u = SLOT_GEN_USER;
	__u64 *a = bpf_map_lookup_elem(&slot_gen, &k), *b = bpf_map_lookup_elem(&slot_gen, &u);

	return a && b ? (__u32)(*a + *b) : 0;
}

/* A slot for whose (the key's first bytes): a free one taken and mapped, or the one another
 * CPU mapped first; SLOT_SPILL when none is free. */
static __always_inline __u32 slot_take(const struct row_whose *whose)
{
	struct row_whose *w;
	__u32 slot, *s;

	if (bpf_map_pop_elem(&slot_free, &slot))
		return SLOT_SPILL;
	w = bpf_map_lookup_elem(&slot_whose, &slot);
	if (w) {
		__builtin_memcpy(w, whose, sizeof(*w));
		if (!bpf_map_update_elem(&slot_of, whose, &slot, BPF_NOEXIST))
			return slot;
	}
	bpf_map_push_elem(&slot_free, &slot, 0);
	s = bpf_map_lookup_elem(&slot_of, whose);
	return s ? *s : SLOT_SPILL;
}

/* Whose slot is, into the first bytes of key (a hash row's key). False: no such slot. */
static __always_inline bool slot_key(struct cgroup_row_key *key, __u32 slot)
{
	const struct row_whose *w = bpf_map_lookup_elem(&slot_whose, &slot);

	if (!w)
		return false;
	__builtin_memcpy(key, w, sizeof(*w));
	key->pad = 0;
	return true;
}

/* The slot of the current task's cgroup (command); SLOT_NONE when its events take no row
 * (none, outside the selection, left out); SLOT_SPILL when no slot was free, with its key
 * (row 0) in *key. btf: a BTF-typed program (row_key_current_btf). */
static __always_inline __u32 slot_current(bool btf, struct cgroup_row_key *key)
{
	__u32 zero = 0, gen, slot, *s;
	__u64 *c = bpf_map_lookup_elem(&slot_cache, &zero);

	if (!c)
		return SLOT_NONE;
	gen = slot_generation();
	if ((__u32)(*c >> 32) == gen && (*c & SLOT_CACHED))
		return (__u32)*c & ~SLOT_CACHED;
	if (btf)
		row_key_current_btf(key, 0);
	else
		row_key_current(key, 0);
	if (!by_command && !key->cgroup) {
		slot = SLOT_NONE;
	} else if ((s = bpf_map_lookup_elem(&slot_of, key))) {
		slot = *s;
	} else if (!by_command && bpf_map_lookup_elem(&cgroup_ignored, &key->cgroup)) {
		slot = SLOT_NONE;
	} else {
		slot = slot_take((const struct row_whose *)key);
		if (slot == SLOT_SPILL)
			return slot; /* not cached: the next event may find a slot free */
	}
	/* one store: a switch between two would leave another task's half */
	*c = (__u64)gen << 32 | SLOT_CACHED | slot;
	return slot;
}

static __always_inline void slot_cache_clear(void)
{
	__u32 zero = 0;
	__u64 *c = bpf_map_lookup_elem(&slot_cache, &zero);

	if (c)
		*c = 0;
}

static __always_inline void slot_generation_next(void)
{
	add_to_row(&slot_gen, SLOT_GEN_KERNEL, 1);
}

/* The programs that keep the caches true (the module's point of them, in every flavour):
 * <prefix>_switch_*: a context switch clears its CPU's cache; <prefix>_exec_*, _rename_*,
 * _attach_*: a task's comm or cgroup changed, maybe while it runs on another CPU: every
 * cache is stale (the generation moves). Include entry_points.bpf.h. */
#define CGROUP_SLOT_PROGRAMS(prefix)                                                   \
	TP_ALL_FLAVOURS(sched, sched_switch, prefix##_switch, slot_cache_clear())      \
	TP_ALL_FLAVOURS(sched, sched_process_exec, prefix##_exec, slot_generation_next()) \
	TP_ALL_FLAVOURS(task, task_rename, prefix##_rename, slot_generation_next())    \
	TP_ALL_FLAVOURS(cgroup, cgroup_attach_task, prefix##_attach, slot_generation_next())

#endif
