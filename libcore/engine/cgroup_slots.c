/* `By "cgroup"` by slot, user space's side (cgroup_slots.h). */
#include "libcore/engine/cgroup_slots.h"

#include "base/text_hash.h"
#include "bpf/include/cgroup_key.h"
#include "libcore/engine/cgroup_rows.h"
#include "libcore/engine/object_names.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One table's array by slot, mapped, and what each of its rows held at the last read. */
struct slot_table {
	int table_fd;           /* the table the rows are added into */
	const uint8_t *rows;    /* mmap of the array: slot * nrows + row */
	size_t map_len;
	uint64_t *base;         /* the rows' values at the last read, in the same layout */
	uint32_t nrows, words;  /* rows per slot; u64 words per value */
	size_t stride;          /* bytes per value in the array (value size rounded to 8) */
};

struct slot_state {
	bool used;        /* in slot_of at the last apply */
	bool held;        /* taken from slot_of: read once more, then given back */
	bool seen, kept;  /* this read: entries of its cgroup met, and some kept */
	struct row_whose whose;
};

struct cgroup_slots {
	int of_fd, free_fd, gen_fd;
	uint32_t nslots;
	struct slot_table *t;
	int nt;
	struct slot_state *slot;
	uint32_t *index, icap;  /* whose -> slot + 1 (0: empty), open addressing */
	uint64_t user_gen;
	uint64_t *cur, *sum;    /* a value's words as read, and its table entry's */
};

/* The first three sized by slot */
static const char *const slot_maps[] = { ENGINE_MAP_NAME(slot_of), ENGINE_MAP_NAME(slot_free), ENGINE_MAP_NAME(slot_whose),
					 ENGINE_MAP_NAME(slot_cache), ENGINE_MAP_NAME(slot_gen) };

bool cgroup_slots_used(const struct cgroup_table *tables, int ntables)
{
	for (int t = 0; t < ntables; t++)
		if (tables[t].slot_rows)
			return true;
	return false;
}

int cgroup_slots_configure(struct bpf_object *obj, bool on, uint32_t nslots, const struct cgroup_table *tables,
			   int ntables, const uint32_t *value_size)
{
	for (size_t i = 0; i < sizeof(slot_maps) / sizeof(slot_maps[0]); i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, slot_maps[i]);
		int e;

		if (!map)
			return -ENOENT;
		e = bpf_map__set_autocreate(map, on);
		if (!e && on && i < 3)
			e = bpf_map__set_max_entries(map, nslots);
		if (e)
			return e;
	}
	for (int t = 0; t < ntables; t++) {
		struct bpf_map *map = tables[t].slot_rows ? bpf_object__find_map_by_name(obj, tables[t].slot_rows) : NULL;
		int e;

		if (!tables[t].slot_rows)
			continue;
		if (!map)
			return -ENOENT;
		e = bpf_map__set_autocreate(map, on);
		if (!e && on)
			e = bpf_map__set_max_entries(map, nslots * (tables[t].nrows ? tables[t].nrows : 1));
		if (!e && on)
			e = bpf_map__set_value_size(map, value_size[t]);
		if (e)
			return e;
	}
	return 0;
}

int cgroup_slots_fill(struct bpf_object *obj, char *err, size_t errlen)
{
	struct bpf_map *fr = bpf_object__find_map_by_name(obj, ENGINE_MAP_NAME(slot_free));
	int fd = fr ? bpf_map__fd(fr) : -1;

	for (uint32_t slot = 0; fd >= 0 && slot < bpf_map__max_entries(fr); slot++)
		if (bpf_map_update_elem(fd, NULL, &slot, BPF_ANY)) {
			snprintf(err, errlen, "cannot fill the per-cgroup slots: %s", strerror(errno));
			return -1;
		}
	return 0;
}

static int set_user_gen(struct cgroup_slots *s)
{
	uint32_t k = SLOT_GEN_USER;

	return bpf_map_update_elem(s->gen_fd, &k, &s->user_gen, BPF_ANY) ? -errno : 0;
}

struct cgroup_slots *cgroup_slots_new(struct bpf_object *obj, const struct cgroup_table *tables, int ntables,
				      const int *table_fds, char *err, size_t errlen)
{
	struct bpf_map *of = bpf_object__find_map_by_name(obj, ENGINE_MAP_NAME(slot_of));
	struct bpf_map *fr = bpf_object__find_map_by_name(obj, ENGINE_MAP_NAME(slot_free));
	struct bpf_map *gen = bpf_object__find_map_by_name(obj, ENGINE_MAP_NAME(slot_gen));
	struct cgroup_slots *s = calloc(1, sizeof(*s));
	size_t most = sizeof(uint64_t);

	if (!s || !of || !fr || !gen) {
		snprintf(err, errlen, s ? "cannot set up the per-cgroup slots: the object lacks their maps" : "out of memory");
		free(s);
		return NULL;
	}
	*s = (struct cgroup_slots){ .of_fd = bpf_map__fd(of), .free_fd = bpf_map__fd(fr), .gen_fd = bpf_map__fd(gen),
				    .nslots = bpf_map__max_entries(of) };
	for (s->icap = 4; s->icap < 2 * s->nslots; s->icap *= 2)
		;
	s->t = calloc(ntables, sizeof(*s->t));
	s->slot = calloc(s->nslots, sizeof(*s->slot));
	s->index = calloc(s->icap, sizeof(*s->index));
	if (!s->t || !s->slot || !s->index)
		goto nomem;
	for (int ti = 0; ti < ntables; ti++) {
		struct bpf_map *map = tables[ti].slot_rows ? bpf_object__find_map_by_name(obj, tables[ti].slot_rows) : NULL;
		struct slot_table *t = &s->t[s->nt];
		void *rows;

		if (!map)
			continue;
		t->table_fd = table_fds[ti];
		t->nrows = bpf_map__max_entries(map) / s->nslots;
		t->stride = (bpf_map__value_size(map) + 7) / 8 * 8;
		t->words = t->stride / 8;
		t->map_len = t->stride * bpf_map__max_entries(map);
		rows = mmap(NULL, t->map_len, PROT_READ, MAP_SHARED, bpf_map__fd(map), 0);
		if (rows == MAP_FAILED) {
			snprintf(err, errlen, "cannot map the per-cgroup rows (%s): %s", tables[ti].slot_rows, strerror(errno));
			cgroup_slots_free(s);
			return NULL;
		}
		t->rows = rows;
		s->nt++;
		if (!(t->base = calloc(t->map_len / 8, sizeof(uint64_t))))
			goto nomem;
		most = t->stride > most ? t->stride : most;
	}
	if (!(s->cur = malloc(most)) || !(s->sum = malloc(most)))
		goto nomem;
	return s;
nomem:
	snprintf(err, errlen, "out of memory");
	cgroup_slots_free(s);
	return NULL;
}

static uint32_t *index_place(struct cgroup_slots *s, const void *whose)
{
	uint32_t i = bytes_hash32(whose, sizeof(struct row_whose)) & (s->icap - 1);

	while (s->index[i] && memcmp(&s->slot[s->index[i] - 1].whose, whose, sizeof(struct row_whose)))
		i = (i + 1) & (s->icap - 1);
	return &s->index[i];
}

/* The slots in slot_of now, and their cgroups (commands). */
static int find_used(struct cgroup_slots *s)
{
	struct row_whose key, next;
	void *prev = NULL;
	uint32_t slot;

	for (uint32_t i = 0; i < s->nslots; i++)
		s->slot[i].used = false;
	memset(s->index, 0, s->icap * sizeof(*s->index));
	while (!bpf_map_get_next_key(s->of_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(s->of_fd, &key, &slot) || slot >= s->nslots)
			continue;
		s->slot[slot].used = true;
		s->slot[slot].whose = key;
		*index_place(s, &key) = slot + 1;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* Row `row` of slot's rows in t: what it counted since the last read added into its table
 * entry. Not added (kept for the next read: false) when the table has no room. */
static bool apply_row(struct cgroup_slots *s, struct slot_table *t, uint32_t slot, uint32_t row)
{
	size_t at = ((size_t)slot * t->nrows + row) * t->words;
	const volatile uint64_t *src = (const volatile uint64_t *)t->rows + at;
	uint64_t *base = t->base + at;
	struct cgroup_row_key key = { .row = row, .pad = ROW_KEY_SLOTS };
	bool changed = false;

	for (uint32_t w = 0; w < t->words; w++) {
		s->cur[w] = src[w];
		changed |= s->cur[w] != base[w];
	}
	if (!changed)
		return true;
	memcpy(key.command, &s->slot[slot].whose, sizeof(struct row_whose));
	if (bpf_map_lookup_elem(t->table_fd, &key, s->sum))
		memset(s->sum, 0, t->stride);
	for (uint32_t w = 0; w < t->words; w++)
		s->sum[w] += s->cur[w] - base[w];
	if (bpf_map_update_elem(t->table_fd, &key, s->sum, BPF_ANY))
		return false;
	memcpy(base, s->cur, t->stride);
	return true;
}

/* The held slots' last counts into the tables, and the slots free again: once no program
 * can still count into them. A slot with a count the tables had no room for stays held (its
 * next owner would take the count over): tried again at the next read. */
static void give_back(struct cgroup_slots *s)
{
	for (uint32_t slot = 0; slot < s->nslots; slot++) {
		bool all = true;

		if (!s->slot[slot].held)
			continue;
		for (int ti = 0; ti < s->nt; ti++)
			for (uint32_t row = 0; row < s->t[ti].nrows; row++)
				all &= apply_row(s, &s->t[ti], slot, row);
		if (!all)
			continue;
		s->slot[slot].held = false;
		bpf_map_update_elem(s->free_fd, NULL, &slot, BPF_ANY);
	}
}

int cgroup_slots_apply(struct cgroup_slots *s)
{
	int e = find_used(s);

	if (e)
		return e;
	for (uint32_t slot = 0; slot < s->nslots; slot++) {
		struct slot_state *st = &s->slot[slot];

		if (!st->used)
			continue;
		for (int ti = 0; ti < s->nt; ti++)
			for (uint32_t row = 0; row < s->t[ti].nrows; row++)
				apply_row(s, &s->t[ti], slot, row);
	}
	give_back(s);
	return 0;
}

void cgroup_slots_note(struct cgroup_slots *s, const void *whose, bool kept)
{
	uint32_t at = *index_place(s, whose);

	if (!at)
		return;
	s->slot[at - 1].seen = true;
	s->slot[at - 1].kept |= kept;
}

void cgroup_slots_release(struct cgroup_slots *s)
{
	bool any = false;

	for (uint32_t slot = 0; slot < s->nslots; slot++) {
		struct slot_state *st = &s->slot[slot];

		if (st->used && st->seen && !st->kept && !bpf_map_delete_elem(s->of_fd, &st->whose)) {
			st->used = false;
			st->held = any = true;
		}
		st->seen = st->kept = false;
	}
	s->user_gen++;
	set_user_gen(s);
	/* A program that found a held slot (its CPU's cache, or slot_of before the delete)
	 * ran inside an RCU read-side section that began before the generation moved: after a
	 * grace period (membarrier's global command waits for one) none is left, and every later
	 * one finds a new slot. Without it (nohz_full CPUs refuse the command), the next read
	 * gives them back, an interval later. */
	if (any && !syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		give_back(s);
}

void cgroup_slots_free(struct cgroup_slots *s)
{
	if (!s)
		return;
	for (int ti = 0; s->t && ti < s->nt; ti++) {
		munmap((void *)s->t[ti].rows, s->t[ti].map_len);
		free(s->t[ti].base);
	}
	free(s->t);
	free(s->slot);
	free(s->index);
	free(s->cur);
	free(s->sum);
	free(s);
}
