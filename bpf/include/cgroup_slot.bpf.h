/* `By "cgroup"` and `By "command"` by slot: whose an event is found without a helper call
 * or a hash lookup on the hot path. Include after cgroup_key.bpf.h. A module that uses it
 * (syscalls) counts into arrays of rows indexed by slot (slot * rows + row), not into
 * cgroup_key.bpf.h's hashes; user space (libcore/engine/cgroup_slots.c) adds what each row
 * counted since the last read into the module's tables, which the reader reads as before.
 *
 * Each cgroup (command) is given a slot when first met: slot_of maps whose it is (struct
 * row_whose) to its slot, slot_free holds the slots free (user space fills it, and gives a
 * slot back one read after it took it from slot_of). Each CPU caches the current task's
 * slot (slot_cache) with the generation it was found at: sched_switch clears it, and the
 * generation (slot_gen: the programs' own count plus user space's) moves on every exec,
 * rename and cgroup move, and every slot user space takes back, so a hit is two inlined
 * array lookups and loads. */
#ifndef EBPF_CGROUP_SLOT_BPF_H
#define EBPF_CGROUP_SLOT_BPF_H

/* The cache word: (generation << 32) | SLOT_CACHED | slot; 0 (cleared) is never a hit. */
#define SLOT_CACHED 0x80000000u

/* Sized by user space (the tables' cgroups), created only with By "cgroup". */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct row_whose);
	__type(value, __u32);
} slot_of SEC(".maps");

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
 * CPU mapped first; SLOT_NONE when none is free, counted in cgroup_full. */
static __always_inline __u32 slot_take(const void *whose, void *full)
{
	__u32 slot, *s;

	if (bpf_map_pop_elem(&slot_free, &slot)) {
		add_to_row(full, 0, 1);
		return SLOT_NONE;
	}
	if (!bpf_map_update_elem(&slot_of, whose, &slot, BPF_NOEXIST))
		return slot;
	bpf_map_push_elem(&slot_free, &slot, 0);
	s = bpf_map_lookup_elem(&slot_of, whose);
	if (s)
		return *s;
	add_to_row(full, 0, 1);
	return SLOT_NONE;
}

/* The slot of the current task's cgroup (command), SLOT_NONE when its events take no row
 * (none, outside the selection, left out, or no slot free: counted in `full`). btf: a
 * BTF-typed program (row_key_current_btf). */
static __always_inline __u32 slot_current(bool btf, void *full)
{
	struct cgroup_row_key key;
	__u32 zero = 0, gen, slot, *s;
	__u64 *c = bpf_map_lookup_elem(&slot_cache, &zero);

	if (!c)
		return SLOT_NONE;
	gen = slot_generation();
	if ((__u32)(*c >> 32) == gen && (*c & SLOT_CACHED))
		return (__u32)*c & ~SLOT_CACHED;
	if (btf)
		row_key_current_btf(&key, 0);
	else
		row_key_current(&key, 0);
	if (!by_command && !key.cgroup) {
		slot = SLOT_NONE;
	} else if ((s = bpf_map_lookup_elem(&slot_of, &key))) {
		slot = *s;
	} else if (!by_command && bpf_map_lookup_elem(&cgroup_ignored, &key.cgroup)) {
		slot = SLOT_NONE;
	} else {
		slot = slot_take(&key, full);
		if (slot == SLOT_NONE)
			return slot; /* not cached: each such event is counted in `full` */
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
