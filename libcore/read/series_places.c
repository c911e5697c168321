/* A series reader's places (series_state.h): the index of series by name, new series up to
 * max_series (then `other`), places given up (reclaim_after) or forgotten (a group's removed
 * keys) and what they carry. */
#include "libcore/read/series_state.h"

#include "base/text_hash.h"
#include "libcore/read/key_cache.h"

#include <bpf/bpf.h>
#include <errno.h>
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

/* A new series' fields: zero; a histogram with a source (a program's) gets its slots and
 * tracker now, so that a series without memory for them goes into `other`; a struct
 * hist_row's (a module's) at its first events, so that the rows that never see one (most
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
void series_own_fields(const struct series_reader *r, struct series *s)
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
			series_own_fields(r, &r->series[kept]);
			series_own_fields(r, s);
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

/* The series' carry added to what this read gave it (its only value in a read that gave
 * it nothing): what deleted entries left is never lost. */
void series_add_carry(struct series_reader *r, struct series *s)
{
	unsigned int nslots = HIST_NSLOTS(r->v->precision);

	for (int f = 0; f < r->v->nfields; f++) {
		struct field_acc *a = &s->acc[f];
		const struct field_acc *c = &s->carry[f];

		if (!s->seen) {
			a->value = 0;
			a->sum = 0;
			if (a->hist)
				memset(a->hist->slots, 0, nslots * sizeof(uint64_t));
		}
		a->value += c->value;
		a->sum += c->sum;
		if (!c->hist)
			continue;
		if (!a->hist && !(a->hist = series_hist_new(r)))
			continue; /* out of memory: the carry waits for the next read */
		for (unsigned int k = 0; k < nslots; k++)
			a->hist->slots[k] += c->hist->slots[k];
	}
}

/* After a group's read is sent: the carried entries taken from the map (map_read_take: with
 * what events added since the read, which the next read's values then hold) and their values
 * joined to their series' carries, the doomed entries deleted, and the series of gone keys
 * forgotten. */
void series_settle_group(struct series_reader *r)
{
	for (uint32_t i = 0; i < r->ncarried; i++) {
		struct series *s = &r->series[r->carried[i].series];
		struct series carry = { .seen = true };
		uint32_t e = r->carried[i].entry;
		int taken;

		if (!s->carry && !(s->carry = calloc(r->v->nfields, sizeof(*s->carry))))
			continue; /* out of memory: the entry stays, and is carried at a later read */
		taken = map_read_take(&r->rd, e);
		if (taken && taken != -ENOENT)
			continue; /* not deleted: met again at the next read, with all it holds */
		carry.acc = s->carry;
		series_add_entry(r, &carry, map_read_key(&r->rd, e), series_summed_value(r, e), NULL, false);
	}
	for (uint32_t i = 0; i < r->ndoomed; i++)
		bpf_map_delete_elem(r->v->fd, map_read_key(&r->rd, r->doomed[i]));
	drop_series(r, was_forgotten, NULL);
}
