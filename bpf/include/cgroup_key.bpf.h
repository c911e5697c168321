/* `By "cgroup"` on the BPF side: which cgroup an event is counted for, and its row in a
 * module's shared per-cgroup hash. Include after counting.bpf.h.
 *
 * The hashes are shared by all CPUs (not per-CPU): their memory does not grow with the
 * CPUs, and counter_add() makes the adds exact. A table that is full drops nothing from
 * the module's host-wide values: the event is counted in the module's `cgroup_full`. */
#ifndef EBPF_CGROUP_KEY_BPF_H
#define EBPF_CGROUP_KEY_BPF_H

#include <bpf/bpf_core_read.h>

#include "cgroup_key.h"

/* Set by user space before load: false leaves every per-cgroup path out (the verifier
 * removes it: rodata is frozen) and the per-cgroup maps are not created. */
const volatile bool by_cgroup = false;
/* `By "command"`: with by_cgroup, the rows are the acting task's command's (its comm) in
 * place of its cgroup's, in the same tables (struct cgroup_row_key); cgroup_ignored and
 * cgroup_select are then not created. */
const volatile bool by_command = false;
/* CgroupDepth: the ancestor level of the cgroup2 hierarchy events are counted for. */
const volatile __u32 cgroup_depth = 2;
/* Whether tracing programs may call bpf_get_current_ancestor_cgroup_id (5.18 and later;
 * before, cgroup programs only: 5.10 refuses a tracepoint program that calls it). Set by
 * user space, which probes it; without it the current task's cgroup is read by CO-RE as
 * another task's (the helper's call is then dead code the verifier never checks). */
const volatile bool ancestor_helper = true;

/* A per-cgroup table of counters: value_type per (cgroup, row) key. Sized by user space
 * (cgroup_rows_configure) and created only with By "cgroup". */
#define CGROUP_COUNTS_MAP(name, value_type)              \
	struct {                                         \
		__uint(type, BPF_MAP_TYPE_HASH);         \
		__uint(max_entries, 1);                  \
		__type(key, struct cgroup_row_key);      \
		__type(value, value_type);               \
	} name SEC(".maps")

/* The maps every per-cgroup module has besides its tables: cgroup_zero, one zeroed value
 * of zero_type (what new rows are inserted from: the largest value of the module's tables),
 * and cgroup_full, the events no table had room for; and cgroup_zero_row(), that value. */
#define CGROUP_AUX_MAPS(zero_type)                                       \
	struct {                                                         \
		__uint(type, BPF_MAP_TYPE_ARRAY);                        \
		__uint(max_entries, 1);                                  \
		__type(key, __u32);                                      \
		__type(value, zero_type);                                \
	} cgroup_zero SEC(".maps");                                      \
	struct {                                                         \
		__uint(type, BPF_MAP_TYPE_ARRAY);                        \
		__uint(max_entries, 1);                                  \
		__type(key, __u32);                                      \
		__type(value, __u64);                                    \
	} cgroup_full SEC(".maps");                                      \
	static __always_inline void *cgroup_zero_row(void)               \
	{                                                                \
		__u32 zero_key = 0;                                      \
		return bpf_map_lookup_elem(&cgroup_zero, &zero_key);     \
	}

/* Cgroups the `Cgroup` selection leaves out, put here by user space when a read first
 * finds one in a table (and its rows deleted): their events then take no row, so that on
 * a host with many cgroups outside the selection the tables keep their room for the
 * selected ones. Least recently used first out: a cgroup pushed out takes a row again
 * until the next read finds it. Created only with By "cgroup" (cgroup_rows_configure). */
#define CGROUP_IGNORED_CAP 1024
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CGROUP_IGNORED_CAP);
	__type(key, __u64);
	__type(value, __u8);
} cgroup_ignored SEC(".maps");

/* The `Cgroup` globs' selection in the kernel, where each glob has a directory it lies below
 * (its literal leading components: "/system.slice/ssh*" lies below /system.slice): an event
 * whose cgroup descends from none of cgroup_select's directories (nor is one) is counted
 * host-wide only and takes no per-cgroup row, so that cgroups a user makes outside the
 * selection (in a delegated subtree) never fill the tables. cgroup_select_n, set before load,
 * is how many (0: no filter here, and the map is not created); the directories are written
 * by user space (cgroup_select.c) at start and again at every read where one changed. A hash
 * (preallocated, as tracing programs need on 5.10), not an array: an update replaces an entry
 * whole, so a program never reads an id half written. A key not written yet lets every event
 * through. */
const volatile __u32 cgroup_select_n = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CGROUP_SELECT_MAX);
	__type(key, __u32);
	__type(value, struct cgroup_select_dir);
} cgroup_select SEC(".maps");

/* The value of key in hash `map`, inserted from `zero` (a zeroed global of the value's
 * size: a histogram row is too big for the BPF stack) when new; NULL when the table is
 * full, counted in row 0 of `full` (an array of u64), or when the cgroup is 0 (none, or
 * outside cgroup_select) or one the selection leaves out (not counted: its events are in
 * the host-wide values, as every unselected cgroup's). Two CPUs inserting the same key at
 * once: one insert wins, both then find it. */
static __always_inline void *cgroup_row(void *map, const struct cgroup_row_key *key, const void *zero, void *full)
{
	void *v;

	if (!by_command && !key->cgroup) /* none, or one outside the selection (cgroup_select) */
		return NULL;
	v = bpf_map_lookup_elem(map, key);
	if (v)
		return v;
	if (!by_command && bpf_map_lookup_elem(&cgroup_ignored, &key->cgroup))
		return NULL;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		add_to_row(full, 0, 1);
	return v;
}

/* One completed call in the row of key of `map`, a table of struct cgroup_call_counts (or of
 * a value that begins as it does); an error too when ret < 0. As cgroup_row for the rest. */
static __always_inline void cgroup_count_call(void *map, const struct cgroup_row_key *key, const void *zero, void *full,
					      long ret)
{
	struct cgroup_call_counts *c = cgroup_row(map, key, zero, full);

	if (!c)
		return;
	counter_add(&c->calls, 1);
	if (ret < 0)
		counter_add(&c->errors, 1);
}

/* A cgroup's ancestor at cgroup_depth by CO-RE, for events whose owner is not the current
 * task (an OOM victim, a socket): the ancestor array is `struct cgroup *ancestors[]` on
 * recent kernels, `u64 ancestor_ids[]` before (5.10). */
struct kernfs_node___cgk {
	__u64 id;
};

struct cgroup___cgk {
	int level;
	struct kernfs_node___cgk *kn;
	struct cgroup___cgk *ancestors[0];
};

struct cgroup___cgk_ids {
	__u64 ancestor_ids[0];
};

struct css_set___cgk {
	struct cgroup___cgk *dfl_cgrp;
};

struct task_struct___cgk {
	struct css_set___cgk *cgroups;
};

/* The id of cg's ancestor at level (cg's own at its own level), 0 when cg is shallower. A
 * function of its own, not inlined: in a caller's loop the compiler would hoist the offset
 * of the layout this kernel does not have (its relocation poisoned) above the check of
 * which one it has, and the program would not load. */
static __noinline __u64 cgroup_ancestor_id(const struct cgroup___cgk *cg, __u32 level)
{
	struct cgroup___cgk *anc = NULL;
	struct cgroup___cgk_ids *ids = (void *)cg;
	__u64 id = 0;

	if (BPF_CORE_READ(cg, level) < (int)level)
		return 0;
	if (bpf_core_field_exists(cg->ancestors)) {
		bpf_probe_read_kernel(&anc, sizeof(anc),
				      (char *)cg + bpf_core_field_offset(cg->ancestors) + level * sizeof(anc));
		return anc ? BPF_CORE_READ(anc, kn, id) : 0;
	}
	if (bpf_core_field_exists(ids->ancestor_ids))
		bpf_probe_read_kernel(&id, sizeof(id),
				      (char *)cg + bpf_core_field_offset(ids->ancestor_ids) + level * sizeof(id));
	return id;
}

/* Whether cg (current: the current task's cgroup, by the ancestor helper) descends from one
 * of cgroup_select's directories or is one; always without them (cgroup_select_n 0). */
static __always_inline bool cgroup_in_selection(const struct cgroup___cgk *cg, bool current)
{
	for (__u32 i = 0; i < CGROUP_SELECT_MAX; i++) {
		const struct cgroup_select_dir *d;
		__u32 k = i;
		__u64 id;

		if (i >= cgroup_select_n)
			return i == 0;
		d = bpf_map_lookup_elem(&cgroup_select, &k);
		if (!d)
			return true;
		id = current ? bpf_get_current_ancestor_cgroup_id(d->level) : cgroup_ancestor_id(cg, d->level);
		if (id == d->id)
			return true;
	}
	return false;
}

/* The id of cg's ancestor at cgroup_depth, or cg's own when it is shallower; 0 without cg,
 * or when cg is outside the selection (cgroup_select). */
static __always_inline __u64 cgroup_at_depth(const struct cgroup___cgk *cg)
{
	__u64 id;

	if (!cg || !cgroup_in_selection(cg, false))
		return 0;
	if (BPF_CORE_READ(cg, level) < (int)cgroup_depth)
		return BPF_CORE_READ(cg, kn, id);
	id = cgroup_ancestor_id(cg, cgroup_depth);
	return id ? id : BPF_CORE_READ(cg, kn, id);
}

static __always_inline __u64 task_cgroup_at_depth(const void *task)
{
	const struct task_struct___cgk *t = task;

	return cgroup_at_depth(BPF_CORE_READ(t, cgroups, dfl_cgrp));
}

/* The current task's cgroup at cgroup_depth, or its own cgroup when that is shallower
 * (the root, init.scope): the ancestor helper answers 0 there; 0 outside the selection. */
static __always_inline __u64 current_cgroup_at_depth(void)
{
	__u64 id;

	if (!ancestor_helper)
		return task_cgroup_at_depth((const void *)bpf_get_current_task());
	if (!cgroup_in_selection(NULL, true))
		return 0;
	id = bpf_get_current_ancestor_cgroup_id(cgroup_depth);
	return id ? id : bpf_get_current_cgroup_id();
}

/* ---- whose row: the cgroup's or, with by_command, the command's -------------------------- */

struct task_struct___cmd {
	char comm[16];
};

/* The key of row `row` for the current task: its command (bpf_get_current_comm pads with
 * zeros, so one name is one key) or its cgroup at cgroup_depth. */
static __always_inline void row_key_current(struct cgroup_row_key *k, __u32 row)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->row = row;
	if (by_command)
		bpf_get_current_comm(k->command, sizeof(k->command));
	else
		k->cgroup = current_cgroup_at_depth();
}

/* As row_key_current in a BTF-typed program (tp_btf): the current task's comm read directly,
 * two loads where bpf_get_current_comm is a helper call and a padded copy (~40 ns a call on
 * this project's test machine, bench/syscall_cost row p); the bytes after its NUL (an older,
 * longer name's, where the kernel did not pad) cleared here, so one name is one key. */
static __always_inline void row_key_current_btf(struct cgroup_row_key *k, __u32 row)
{
	const struct task_struct___cmd *t;
	const __u64 *src;
	__u64 w[2], z;

	if (!by_command) {
		row_key_current(k, row);
		return;
	}
	/* After the check: by_command is read-only data, so without it the verifier drops the
	 * call as dead code, and 5.10 (no bpf_get_current_task_btf before 5.11) loads the
	 * program for By "cgroup" (By "command" falls back to raw_tp there). */
	t = (const void *)bpf_get_current_task_btf();
	src = (const __u64 *)__builtin_preserve_access_index(&t->comm);
	w[0] = comm_word_to_nul(src[0], &z);
	w[1] = z ? 0 : comm_word_to_nul(src[1], &z);
	k->cgroup = 0;
	__builtin_memcpy(k->command, w, sizeof(w));
	k->row = row;
	k->pad = 0;
}

/* The key of row `row` for another task (a task_struct): its comm up to the NUL (what
 * follows the NUL in task->comm may be an older name's bytes) or its cgroup. */
static __always_inline void row_key_task(struct cgroup_row_key *k, const void *task, __u32 row)
{
	const struct task_struct___cmd *t = task;

	__builtin_memset(k, 0, sizeof(*k));
	k->row = row;
	if (by_command)
		bpf_core_read_str(k->command, sizeof(k->command), &t->comm);
	else
		k->cgroup = task_cgroup_at_depth(task);
}

/* A socket's cgroup2 cgroup, recorded when it was made (sk->sk_cgrp_data): from 5.15 the
 * field `cgroup`; before, a union whose `val` is the cgroup pointer unless one of its low
 * two bits is set (cgroup v1 net_prio or net_cls took the field over, or the socket holds
 * no reference), when the kernel itself counts the socket for the root. */
struct sock_cgroup_data___cgk_ptr {
	struct cgroup___cgk *cgroup;
};

struct sock_cgroup_data___cgk_val {
	__u64 val;
};

struct sock___cgk_ptr {
	struct sock_cgroup_data___cgk_ptr sk_cgrp_data;
};

struct sock___cgk_val {
	struct sock_cgroup_data___cgk_val sk_cgrp_data;
};

/* The socket's cgroup at cgroup_depth; 0 (unknown) where the socket carries none: the
 * event then counts host-wide only. Not the current task's: a retransmit or a handshake
 * completes in softirq or timer context, in whichever task the CPU was running. */
static __always_inline __u64 sock_cgroup_at_depth(const void *sk)
{
	const struct sock___cgk_ptr *p = sk;
	const struct sock___cgk_val *v = sk;
	__u64 val;

	if (!sk)
		return 0;
	if (bpf_core_field_exists(p->sk_cgrp_data.cgroup))
		return cgroup_at_depth(BPF_CORE_READ(p, sk_cgrp_data.cgroup));
	if (!bpf_core_field_exists(v->sk_cgrp_data.val))
		return 0;
	val = BPF_CORE_READ(v, sk_cgrp_data.val);
	return val & 3 ? 0 : cgroup_at_depth((const struct cgroup___cgk *)(unsigned long)val);
}

#endif
