/* A series reader's places (series_state.h): where an entry goes. Its key's series through
 * the index by key (the key cache, key_cache.h; or the row of an array), else named
 * (series_name.c) and looked up in the index by name; new series up to max_series (then
 * `other`), places given up (reclaim_after) or forgotten (a group's removed keys). Called by
 * series_read.c's walk; calls nothing back. */
#include "libcore/read/series_state.h"

#include "base/text_hash.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/read/key_cache.h"
#include "libcore/read/lazy_array.h"
#include "libcore/read/series_name.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool was_reclaimed(const struct series_reader *r, const char *name)
{
	uint64_t h;

	if (!r->nreclaimed)
		return false;
	h = text_hash64(name);
	for (uint32_t i = 0; i < r->nreclaimed; i++)
		if (r->reclaimed[i] == h)
			return true;
	return false;
}

/* A series' histograms' slots and its carry, given back (its place is reused). */
void series_free_hists(const struct series_reader *r, struct series *s)
{
	for (int f = 0; f < r->v->nfields; f++) {
		if (s->acc) {
			free(s->acc[f].hist);
			s->acc[f].hist = NULL;
		}
		if (s->carry)
			free(s->carry[f].hist);
	}
	free(s->carry);
	s->carry = NULL;
}

/* A histogram field's slots (at the view's precision) and tracker; NULL: out of memory. */
struct field_hist *series_hist_new(const struct series_reader *r)
{
	struct field_hist *h = calloc(1, sizeof(*h) + HIST_NSLOTS(r->v->precision) * sizeof(uint64_t));

	if (h)
		hist_tracker_init(&h->tracker, 1, r->v->precision);
	return h;
}

/* A new series' fields: zero; a histogram with a source (series_hist_source) gets its slots and
 * tracker now, so that a series without memory for them goes into `other`; a struct
 * hist_row's at its first events, so that the rows that never see one (most
 * syscalls) cost no slots (all_hists: now, for the carry). False: out of memory. */
bool series_fields_init(const struct series_reader *r, struct series *s, bool all_hists)
{
	const struct series_view *v = r->v;

	for (int f = 0; f < v->nfields; f++) {
		s->acc[f] = (struct field_acc){ 0 };
		if (v->fields[f].kind != VALUE_HISTOGRAM || (!v->fields[f].source && !all_hists))
			continue;
		if (!(s->acc[f].hist = series_hist_new(r))) {
			series_free_hists(r, s);
			return false;
		}
	}
	return true;
}

/* The series named `name`: an existing one, a new one while there is room, else `other`. */
/* Place i, its fields' memory given on its first use (so that the places never used, up to
 * max_series, cost no memory): its own acc_one with one field, else its block of the accs
 * (no place below the highest ever used lacks one, and places move only among those, so
 * block i is nobody's yet). */
static struct series *place_at(struct series_reader *r, uint32_t i)
{
	struct series *s = &r->series[i];

	if (!s->acc)
		s->acc = r->v->nfields == 1 ? &s->acc_one : r->accs + (size_t)i * r->v->nfields;
	return s;
}

struct series *series_place_for(struct series_reader *r, const char *name)
{
	uint32_t hash = text_hash32(name), i = hash & (r->capacity - 1);

	for (;; i = (i + 1) & (r->capacity - 1)) {
		struct name_slot *slot = &r->index[i];
		struct series *s;

		if (slot->series) {
			s = &r->series[slot->series - 1];
			if (slot->hash == hash && !strcmp(s->name, name))
				return s;
			continue;
		}
		if (was_reclaimed(r, name)) {
			r->folded++; /* given up for a newcomer: stays in other */
			return &r->other;
		}
		s = r->nseries < r->v->max_series ? place_at(r, r->nseries) : NULL;
		if (!s || !series_fields_init(r, s, false)) {
			r->folded++; /* beyond max_series (or out of memory): counted, never lost */
			r->waiting++;
			return &r->other;
		}
		s->seen = false;
		s->forget = false; /* the place may be a forgotten series' */
		s->group_token = 0;
		s->idle = 0;
		snprintf(s->name, sizeof(s->name), "%s", name);
		*slot = (struct name_slot){ .hash = hash, .series = ++r->nseries };
		return s;
	}
}

/* What a series given up leaves in `other`'s carry: what it has in this read (nothing when
 * its keys left the map). */
static void carry_series(struct series_reader *r, const struct series *s)
{
	if (!s->seen)
		return;
	for (int f = 0; f < r->v->nfields; f++) {
		struct field_acc *c = &r->carry[f];

		if (r->v->fields[f].kind == VALUE_COUNTER) /* a gauge is no total: nothing to carry */
			c->value += s->acc[f].value;
		c->sum += s->acc[f].sum;
		if (s->acc[f].hist)
			for (unsigned int k = 0; k < HIST_NSLOTS(r->v->precision); k++)
				c->hist->slots[k] += s->acc[f].hist->slots[k];
	}
}

/* A place's fields after it moved: its own acc_one with one field (a block moves with the
 * place's pointer). */
static void own_fields(const struct series_reader *r, struct series *s)
{
	if (r->v->nfields == 1)
		s->acc = &s->acc_one;
}

static void rebuild_index(struct series_reader *r)
{
	memset(r->index, 0, r->capacity * sizeof(*r->index));
	for (uint32_t i = 0; i < r->nseries; i++) {
		uint32_t hash = text_hash32(r->series[i].name), j = hash & (r->capacity - 1);

		while (r->index[j].series)
			j = (j + 1) & (r->capacity - 1);
		r->index[j] = (struct name_slot){ .hash = hash, .series = i + 1 };
	}
	if (r->keys)
		key_cache_clear(r->keys);
	if (r->row_series)
		memset(r->row_series, 0, r->v->max_entries * sizeof(*r->row_series));
}

/* Drops the series that `drops` takes (it is told before the series' memory is given
 * back), keeping the others in their order; the index and the key cache are rebuilt
 * (series move; a place's fields move with it). The number dropped. */
static uint32_t drop_series(struct series_reader *r, bool (*drops)(struct series_reader *, struct series *, void *),
			    void *arg)
{
	uint32_t dropped = 0, kept = 0;

	for (uint32_t i = 0; i < r->nseries; i++) {
		struct series *s = &r->series[i], tmp;

		if (drops(r, s, arg)) {
			series_free_hists(r, s);
			dropped++;
			continue;
		}
		if (kept != i) {
			tmp = r->series[kept];
			r->series[kept] = *s;
			*s = tmp;
			own_fields(r, &r->series[kept]);
			own_fields(r, s);
		}
		kept++;
	}
	if (!dropped)
		return 0;
	r->nseries = kept;
	rebuild_index(r);
	return dropped;
}

/* Gives up series idle for reclaim_after reads, as many as label sets wait for room (*arg
 * counts them): each goes into `other` with what it has now carried (keep_totals: nothing,
 * `other` adds only what its entries count from then on), so `other` only grows by what it
 * adds from now on, and its name is kept out of the series. */
static bool gives_up_idle(struct series_reader *r, struct series *s, void *arg)
{
	uint32_t *given = arg;

	if (*given == r->waiting || s->idle < r->v->reclaim_after)
		return false;
	if (r->nreclaimed == r->v->max_series)
		r->nreclaimed = 0; /* forgotten: they may take a place again */
	r->reclaimed[r->nreclaimed++] = text_hash64(s->name);
	if (!r->v->keep_totals)
		carry_series(r, s);
	(*given)++;
	return true;
}

uint32_t series_reclaim_idle(struct series_reader *r)
{
	uint32_t given = 0;

	return drop_series(r, gives_up_idle, &given);
}

/* A group's series that its group no longer holds (series_group.holds). */
static bool was_forgotten(struct series_reader *r, struct series *s, void *arg)
{
	(void)r;
	(void)arg;
	return s->forget;
}

void series_drop_forgotten(struct series_reader *r)
{
	drop_series(r, was_forgotten, NULL);
}

/* The places' index by key (key_cache.h): a key met again skips its decoders and its
 * series lookup by name. */
struct key_slot {
	uint32_t hash;
	uint32_t value; /* 0: free */
};

struct key_cache {
	uint32_t key_size;
	uint32_t capacity;     /* a power of two */
	uint32_t count;
	uint32_t reads;
	struct key_slot *slots;
	uint8_t *keys;         /* capacity * key_size */
	struct lazy_array slots_mem, keys_mem; /* what they lie in: twice a map's entries */
	/* the last get: where its key is or goes */
	uint32_t last_slot, last_hash;
	const void *last_key;
};

struct key_cache *key_cache_new(uint32_t key_size, uint32_t max_keys)
{
	struct key_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->key_size = key_size;
	c->capacity = 16;
	while (c->capacity < 2 * (uint64_t)max_keys)
		c->capacity *= 2;
	c->slots = lazy_array_alloc(&c->slots_mem, c->capacity, sizeof(*c->slots));
	c->keys = lazy_array_alloc(&c->keys_mem, c->capacity, key_size ? key_size : 1);
	if (!c->slots || !c->keys) {
		key_cache_free(c);
		return NULL;
	}
	return c;
}

void key_cache_clear(struct key_cache *c)
{
	memset(c->slots, 0, (size_t)c->capacity * sizeof(*c->slots));
	c->count = 0;
}

void key_cache_next_read(struct key_cache *c)
{
	c->reads++;
	if (c->count >= c->capacity / 2) /* keys churned: start over, stay bounded */
		key_cache_clear(c);
}

uint32_t key_cache_get(struct key_cache *c, const void *key)
{
	uint32_t h = bytes_hash32(key, c->key_size), i = h & (c->capacity - 1);

	for (;; i = (i + 1) & (c->capacity - 1)) {
		struct key_slot *s = &c->slots[i];

		if (!s->value || (s->hash == h && !memcmp(c->keys + (size_t)i * c->key_size, key, c->key_size)))
			break;
	}
	c->last_slot = i;
	c->last_hash = h;
	c->last_key = key;
	if (!c->slots[i].value || (i + c->reads) % KEY_CACHE_REFRESH == 0)
		return 0;
	return c->slots[i].value;
}

void key_cache_put(struct key_cache *c, uint32_t value)
{
	struct key_slot *s = &c->slots[c->last_slot];

	if (!s->value) {
		if (c->count + 1 >= c->capacity)
			return; /* full until the next read starts over */
		c->count++;
		memcpy(c->keys + (size_t)c->last_slot * c->key_size, c->last_key, c->key_size);
	}
	s->hash = c->last_hash;
	s->value = value;
}

void key_cache_free(struct key_cache *c)
{
	if (!c)
		return;
	lazy_array_free(&c->slots_mem);
	lazy_array_free(&c->keys_mem);
	free(c);
}

#define KEY_OTHER UINT32_MAX       /* in other: reclaimed */
#define KEY_WAITING (UINT32_MAX - 1) /* in other: found no room */
#define KEY_DROPPED (UINT32_MAX - 2) /* no series: a decoder dropped its label set */

/* What a key was named to (series + 1, or KEY_*): by its row for an array whose labels
 * never change (each row named once), else through the key cache (0: not known, or due). */
static uint32_t recall(struct series_reader *r, const uint8_t *key)
{
	uint32_t row;

	if (!r->row_series)
		return key_cache_get(r->keys, key);
	memcpy(&row, key, sizeof(row));
	return row < r->v->max_entries ? r->row_series[row] : KEY_DROPPED;
}

static void remember(struct series_reader *r, const uint8_t *key, uint32_t known)
{
	uint32_t row;

	if (!r->row_series) {
		key_cache_put(r->keys, known);
		return;
	}
	memcpy(&row, key, sizeof(row));
	if (row < r->v->max_entries)
		r->row_series[row] = known;
}

/* A new series' label ends (series.label_end); `other` has none. */
static struct series *with_ends(struct series_reader *r, struct series *s, const uint8_t *ends)
{
	if (s && s != &r->other)
		memcpy(s->label_end, ends, sizeof(s->label_end));
	return s;
}

/* The series of a key (not per CPU): decoded and named when the key is new (or due for a
 * refresh, key_cache.h), else as the last time; NULL for a key whose label set is dropped. */
static struct series *series_of_key(struct series_reader *r, const uint8_t *key)
{
	char name[LABEL_VALUE_MAX];
	uint32_t known = recall(r, key), waiting = r->waiting;
	uint8_t ends[SERIES_LABEL_SPANS];
	struct series *s;

	if (known == KEY_OTHER || known == KEY_WAITING) {
		r->folded++;
		r->waiting += known == KEY_WAITING;
		return &r->other;
	}
	if (known && known != KEY_DROPPED)
		return &r->series[known - 1];
	if (!known && series_name(r->v, key, -1, name, NULL, ends)) {
		if (r->v->group) {
			char local[LABEL_VALUE_MAX];

			memcpy(local, name, sizeof(local));
			series_name_in_group(r->group_text, local, name);
		}
		s = with_ends(r, series_place_for(r, name), ends);
		remember(r, key, s != &r->other ? (uint32_t)(s - r->series) + 1
			 : r->waiting != waiting ? KEY_WAITING : KEY_OTHER);
		return s;
	}
	if (!known)
		remember(r, key, KEY_DROPPED);
	r->unmatched++;
	return NULL;
}

/* With fresh labels or an entry hook: the key named at every read (no cache); NULL when a
 * decoder or the hook drops it. */
static struct series *series_of_fresh_key(struct series_reader *r, const uint8_t *key, const uint8_t *value)
{
	char name[LABEL_VALUE_MAX], decoded[SERIES_MAX_LABELS][DECODE_TEXT_MAX];
	const char *labels[SERIES_MAX_LABELS];
	uint8_t ends[SERIES_LABEL_SPANS];

	if (!series_name(r->v, key, -1, name, decoded, ends)) {
		r->unmatched++;
		return NULL;
	}
	for (int i = 0; i < r->v->nlabels; i++)
		labels[i] = decoded[i];
	if (r->v->entry && !r->v->entry(r->v->entry_ctx, key, value, labels))
		return NULL;
	return with_ends(r, series_place_for(r, name), ends);
}


/* The series of key's copy `cpu` (COPIES_APART, COPIES_APART_BY_LABEL: a series per CPU); NULL when a
 * decoder drops the key (counted once, at its first copy). */
static struct series *series_of_copy(struct series_reader *r, const uint8_t *key, int cpu)
{
	char name[LABEL_VALUE_MAX];
	uint8_t ends[SERIES_LABEL_SPANS] = { SERIES_ENDS_UNKNOWN };

	if (!series_name(r->v, key, cpu, name, NULL, ends)) {
		r->unmatched += cpu == 0;
		return NULL;
	}
	return with_ends(r, series_place_for(r, name), ends);
}

/* The "cpu<N>" series of copy cpu (COPIES_SUMMED_AND_APART): no label of the key (series_send.c reads
 * its CPU). */
static struct series *series_of_cpu(struct series_reader *r, int cpu)
{
	char name[LABEL_VALUE_MAX];
	uint8_t ends[SERIES_LABEL_SPANS] = { SERIES_ENDS_UNKNOWN };

	snprintf(name, sizeof(name), "cpu%d", cpu);
	return with_ends(r, series_place_for(r, name), ends);
}

struct series *series_of_summed(struct series_reader *r, const uint8_t *key, const uint8_t *value, struct series **to)
{
	struct series *s = r->keys || r->row_series ? series_of_key(r, key) : series_of_fresh_key(r, key, value);

	for (int cpu = 0; r->v->copies == COPIES_SUMMED_AND_APART && cpu < r->rd.copies; cpu++)
		to[cpu] = series_of_cpu(r, cpu);
	return s;
}

bool series_of_copies(struct series_reader *r, const uint8_t *key, struct series **to)
{
	struct series *s = NULL;
	bool any = false;

	if (r->v->copies == COPIES_ADDED && !(s = series_of_key(r, key))) /* else one per CPU */
		return false;
	for (int cpu = 0; cpu < r->rd.copies; cpu++)
		any |= (to[cpu] = s ? s : series_of_copy(r, key, cpu)) != NULL;
	return any;
}
