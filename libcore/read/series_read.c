/* A series reader (series_read.h), a straight pipeline: set up; a read's entries walked
 * (read), each entry's series asked of series_places.c (place, naming a new key through
 * series_name.c), its values added here, the series sent by series_send.c (series_state.h);
 * after the send, a group's carried and deleted entries settled. Nothing below calls back. */
#include "libcore/read/series_read.h"

#include "include/hist_row.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/read/key_cache.h"
#include "libcore/read/series_state.h"
#include "base/text_hash.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t series_reader_series_bytes(int nfields, int nhist)
{
	/* The index has at most 4 slots per series (a power of two, at least twice max_series). */
	return sizeof(struct series) + 4 * sizeof(struct name_slot) + sizeof(uint64_t) /* reclaimed name */ +
	       (size_t)nfields * sizeof(struct field_acc) + (size_t)nhist * (sizeof(struct field_hist) + HIST_SLOTS * sizeof(uint64_t));
}

static bool row_is_zero(const uint8_t *row, unsigned int nslots)
{
	uint64_t w;

	for (unsigned int k = 0; k <= nslots; k++) { /* the sum, then the slots */
		memcpy(&w, row + k * sizeof(w), sizeof(w));
		if (w)
			return false;
	}
	return true;
}

/* A struct hist_row into a field: the first entry of the read copied, the others added. */
static void add_row(const struct series_reader *r, struct field_acc *a, const uint8_t *row, bool first)
{
	unsigned int nslots = HIST_NSLOTS(r->v->precision);
	const uint8_t *slots = row + offsetof(struct hist_row, slots);
	uint64_t sum;

	if (!a->hist) {
		if (row_is_zero(row, nslots))
			return; /* no events yet: the slots wait for them */
		if (!(a->hist = series_hist_new(r)))
			return; /* out of memory: the row waits for the next read */
		first = true; /* the earlier entries of this read were empty */
	}
	memcpy(&sum, row + offsetof(struct hist_row, sum), sizeof(sum));
	if (first) {
		memcpy(a->hist->slots, slots, nslots * sizeof(uint64_t));
		a->sum = sum;
		return;
	}
	a->sum += sum;
	for (unsigned int k = 0; k < nslots; k++) {
		uint64_t c;

		memcpy(&c, slots + k * sizeof(c), sizeof(c));
		a->hist->slots[k] += c;
	}
}

/* The field a key's row is (row_fields), or -1: none. */
static int row_field(const struct series_view *v, const uint8_t *key)
{
	uint32_t row;

	memcpy(&row, key + v->row_offset, sizeof(row));
	return row < v->nrow_fields ? v->row_fields[row] : -1;
}

/* A histogram field with a source (series_hist_source): an entry into slots and *sum: with prev (keep_totals), what it
 * counted since then (all of it when a slot went back: a new entry). */
static void add_source(struct series_reader *r, const struct series_field *f, const uint8_t *key,
		       const uint8_t *val, const uint8_t *prev, uint64_t *slots, uint64_t *sum)
{
	unsigned int nslots = HIST_NSLOTS(r->v->precision);
	uint64_t now = 0, then = 0;
	bool back = false;

	if (!prev) {
		f->source->add(f->source->ctx, key, val, slots, sum, false);
		return;
	}
	memset(r->slots_now, 0, nslots * sizeof(uint64_t));
	memset(r->slots_then, 0, nslots * sizeof(uint64_t));
	f->source->add(f->source->ctx, key, val, r->slots_now, &now, false);
	f->source->add(f->source->ctx, key, prev, r->slots_then, &then, true);
	for (unsigned int k = 0; k < nslots && !back; k++)
		back = r->slots_now[k] < r->slots_then[k];
	for (unsigned int k = 0; k < nslots; k++)
		slots[k] += r->slots_now[k] - (back ? 0 : r->slots_then[k]);
	*sum += now - (back ? 0 : then); /* unsigned: modulo 2^64, as the sum wraps */
}

/* Adds one value (one CPU's copy, or the copies summed) of an entry into series s: the first
 * entry of a read is copied (nothing is cleared between reads), the others added. With prev
 * (keep_totals), what the entry counted since its previous read is added instead. */
static void add_entry(struct series_reader *r, struct series *s, const uint8_t *key, const uint8_t *val,
		      const uint8_t *prev, bool hists_only)
{
	const struct series_view *v = r->v;
	bool first = !s->seen;
	int only = v->row_fields ? row_field(v, key) : -1;

	s->seen = true;
	if (v->row_fields && first) { /* each entry adds one field: the others start at 0 */
		for (int i = 0; i < v->nfields; i++)
			s->acc[i].value = 0;
		first = false;
	}
	for (int i = 0; i < v->nfields; i++) {
		const struct series_field *f = &v->fields[i];
		struct field_acc *a = &s->acc[i];

		if (v->row_fields && i != only)
			continue;
		if (f->kind != VALUE_HISTOGRAM) {
			uint64_t x = map_read_uint(val + f->offset, f->width), then;

			if (v->keep_totals && f->kind == VALUE_COUNTER) { /* counted since prev (all: went back) */
				then = prev ? map_read_uint(prev + f->offset, f->width) : 0;
				x = x >= then ? x - then : x;
			}
			if (!hists_only)
				a->value = first ? x : a->value + x;
			continue;
		}
		if (!f->source) {
			add_row(r, a, val + f->offset, first);
			continue;
		}
		if (first) {
			memset(a->hist->slots, 0, HIST_NSLOTS(v->precision) * sizeof(uint64_t));
			a->sum = 0;
		}
		add_source(r, f, key, val, prev, a->hist->slots, &a->sum);
	}
}

/* keep_totals: key's entry + 1 in the previous read, or 0: it had none. */
static uint32_t prev_entry(const struct series_reader *r, const uint8_t *key)
{
	uint32_t ks = r->v->key_size, mask = r->prev_cap - 1;

	for (uint32_t j = bytes_hash32(key, ks) & mask; r->prev_index[j]; j = (j + 1) & mask)
		if (!memcmp(r->prev_keys + (size_t)(r->prev_index[j] - 1) * ks, key, ks))
			return r->prev_index[j];
	return 0;
}

/* keep_totals, after a read is sent: its entries become the previous read's (the dump's
 * buffers swapped, so that the next read fills the older ones), indexed by key. */
static void keep_entries(struct series_reader *r)
{
	uint8_t *keys = r->rd.dump.keys, *values = r->rd.dump.values;
	uint32_t ks = r->v->key_size, mask = r->prev_cap - 1;

	r->rd.dump.keys = r->prev_keys;
	r->rd.dump.values = r->prev_values;
	r->prev_keys = keys;
	r->prev_values = values;
	r->prev_count = r->rd.dump.count;
	memset(r->prev_index, 0, r->prev_cap * sizeof(*r->prev_index));
	for (uint32_t i = 0; i < r->prev_count; i++) {
		uint32_t j = bytes_hash32(keys + (size_t)i * ks, ks) & mask;

		while (r->prev_index[j])
			j = (j + 1) & mask;
		r->prev_index[j] = i + 1;
	}
}

/* keep_totals: key's value (its copies) at the previous read, or NULL: it had none. */
static const uint8_t *prev_value(const struct series_reader *r, const uint8_t *key)
{
	uint32_t e = r->v->keep_totals ? prev_entry(r, key) : 0;

	return e ? r->prev_values + (size_t)(e - 1) * r->rd.dump.value_size : NULL;
}

/* An entry's copies added up word by word, its packed rows unpacked (summed copies). */
static const uint8_t *summed_value(struct series_reader *r, const uint8_t *copies)
{
	const struct series_view *v = r->v;
	const uint64_t *src = (const uint64_t *)copies;
	size_t words = r->rd.copy_size / 8;

	/* One copy, read as it is (a hash of structs: block's, the per-cgroup tables): nothing
	 * to add up, and no field past the copy (full_size) to read as 0. */
	if (r->rd.copies == 1 && !v->packed_rows && v->full_size <= r->rd.copy_size)
		return copies;
	memcpy(r->summed, src, words * sizeof(*r->summed));
	for (int c = 1; c < r->rd.copies; c++)
		for (size_t w = 0; w < words; w++)
			r->summed[w] += src[(size_t)c * words + w];
	if (!v->packed_rows)
		return (const uint8_t *)r->summed;
	hist_rows_unpack(r->summed, r->unpacked, v->packed_head, v->packed_rows, v->precision);
	return (const uint8_t *)r->unpacked;
}

/* A group's entry: its fate (series_view.group). */
static enum series_fate group_fate(struct series_reader *r, const uint8_t *key)
{
	const struct series_group *g = r->v->group;

	return g ? g->fate(g->ctx, key, &r->group_text, &r->group_token) : SERIES_SEND;
}

/* What a group's entry does to its series (NULL: none) besides adding to it: the group's
 * token; an entry to delete kept in mind for after the send, carried by its series (taken
 * then: map_read_take) or deleted with nothing kept (no series: a decoder dropped it). */
static void group_mark(struct series_reader *r, struct series *s, uint32_t i, enum series_fate fate)
{
	if (s && s != &r->other) /* a group's view has room for every series */
		s->group_token = r->group_token;
	if (fate == SERIES_CARRY && s && s != &r->other)
		r->carried[r->ncarried++] = (struct carried){ .entry = i, .series = (uint32_t)(s - r->series) };
	else if (fate == SERIES_CARRY || fate == SERIES_DELETE)
		r->doomed[r->ndoomed++] = i;
}

/* An entry whose copies are summed: into its series, and each copy into its "cpu<N>"
 * series (COPIES_SUMMED_AND_APART). */
static void add_summed(struct series_reader *r, uint32_t i, const uint8_t *key, const uint8_t *copies)
{
	enum series_fate fate = group_fate(r, key);
	const uint8_t *value;
	struct series *s;

	if (fate == SERIES_SKIP)
		return;
	if (fate == SERIES_DELETE || (r->v->row_fields && row_field(r->v, key) < 0)) {
		group_mark(r, NULL, i, fate);
		return;
	}
	value = summed_value(r, copies);
	s = series_of_summed(r, key, value, r->to);
	if (s)
		add_entry(r, s, key, value, NULL, false);
	group_mark(r, s, i, fate);
	for (int cpu = 0; r->v->copies == COPIES_SUMMED_AND_APART && cpu < r->rd.copies; cpu++)
		add_entry(r, r->to[cpu], key, copies + (size_t)cpu * r->rd.copy_size, NULL, true);
}

/* An entry whose copies are added on their own: into their series (series_of_copies); keep_totals: what each
 * counted since the previous read. */
static void add_copies(struct series_reader *r, const uint8_t *key, const uint8_t *copies)
{
	const uint8_t *prev;

	if (!series_of_copies(r, key, r->to))
		return;
	prev = prev_value(r, key);
	for (int cpu = 0; cpu < r->rd.copies; cpu++) {
		size_t at = (size_t)cpu * r->rd.copy_size;

		if (r->to[cpu])
			add_entry(r, r->to[cpu], key, copies + at, prev ? prev + at : NULL, false);
	}
}

/* A read starts with no series seen: each one's first entry then overwrites what the last
 * read left (add_entry), so nothing is cleared, and a series not seen is never sent. */
static void clear_read(struct series *s)
{
	s->seen = false;
}

/* Walks the whole last read into the series (and `other`). */
static void add_dump(struct series_reader *r)
{
	const uint8_t *key = r->rd.dump.keys, *copies = r->rd.dump.values;

	for (uint32_t i = 0; i < r->nseries; i++)
		clear_read(&r->series[i]);
	clear_read(&r->other);
	r->folded = 0;
	r->waiting = 0;
	r->unmatched = 0;
	r->ndoomed = 0;
	r->ncarried = 0;
	for (int f = 0; f < r->v->nfields; f++)
		if (r->v->fields[f].source && r->v->fields[f].source->begin)
			r->v->fields[f].source->begin(r->v->fields[f].source->ctx);
	for (uint32_t i = 0; i < r->rd.dump.count; i++, key += r->rd.dump.key_size, copies += r->rd.dump.value_size) {
		if (r->summed) /* summed copies */
			add_summed(r, i, key, copies);
		else
			add_copies(r, key, copies);
	}
}

/* The series' carry added to what this read gave it (its only value in a read that gave
 * it nothing): what deleted entries left is never lost. */
static void add_carry(struct series_reader *r, struct series *s)
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
static void settle_group(struct series_reader *r)
{
	uint32_t ks = r->rd.dump.key_size;
	size_t vs = r->rd.dump.value_size;

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
		add_entry(r, &carry, r->rd.dump.keys + (size_t)e * ks, summed_value(r, r->rd.dump.values + e * vs), NULL,
			  false);
	}
	for (uint32_t i = 0; i < r->ndoomed; i++)
		bpf_map_delete_elem(r->v->fd, r->rd.dump.keys + (size_t)r->doomed[i] * ks);
	series_drop_forgotten(r);
}

int series_reader_read(struct series_reader *r)
{
	/* Once per read, before decoding, for a module's views and a program's alike: decoders
	 * that remember what the system said (an interface's name, a disk's) ask it again. */
	for (int i = 0; i < r->v->nlabels; i++)
		if (r->v->labels[i].chain)
			decoder_chain_next_read(r->v->labels[i].chain);
	if (r->keys)
		key_cache_next_read(r->keys);
	return map_dump_read(&r->rd.dump);
}

void series_reader_send(struct series_reader *r, const struct metric_sink *sink)
{
	const struct series_view *v = r->v;

	add_dump(r);
	/* Newcomers found no room and some series did not change for reclaim_after reads: the
	 * newcomers take their places in this same read (the dump walked again). */
	if (v->reclaim_after && r->waiting && series_reclaim_idle(r))
		add_dump(r);
	for (uint32_t i = 0; i < r->nseries; i++) {
		struct series *s = &r->series[i];

		/* Only carried, and its group gave its name up: forgotten, not sent again. */
		if (s->carry && !s->seen && v->group && v->group->holds && !v->group->holds(v->group->ctx, s->group_token)) {
			s->forget = true;
			continue;
		}
		if (s->carry)
			add_carry(r, s);
		if (s->seen || s->carry)
			series_send_one(r, s, s->name, sink);
		else
			s->idle++;
	}
	if (r->other.seen)
		series_send_other(r, sink);
	r->ever_folded |= r->folded > 0;
	if (sink->gauge && ((v->folded_when_full && r->nseries == v->max_series) || r->nreclaimed ||
			    (!v->folded_when_full && r->ever_folded)))
		sink->gauge(sink->ctx, METRIC("folded"), v->map, r->folded);
	if (sink->gauge && r->may_drop) /* ebpf_exporter drops them without a trace */
		sink->gauge(sink->ctx, METRIC("unmatched"), v->map, r->unmatched);
	if (v->group)
		settle_group(r);
	if (v->keep_totals)
		keep_entries(r);
}

/* Zeroed memory on cache lines (struct series is aligned to one). */
static void *zalloc_lines(size_t bytes)
{
	size_t rounded = (bytes + 63) / 64 * 64;
	void *p = aligned_alloc(64, rounded);

	if (p)
		memset(p, 0, rounded);
	return p;
}

/* Where `other`'s and the carry's fields start in the block of accs: after the places',
 * unless a place keeps its one field in itself (acc_one). */
static size_t spare_base(const struct series_view *v)
{
	return v->nfields == 1 ? 0 : v->max_series;
}

/* The fields of `other` (as a series', its histograms at their first events: a view with
 * room for every entry never folds, and histograms in `other` would be memory never used)
 * and of the carry (with reclaim_after only): made once, at start. */
static bool spare_fields_init(struct series_reader *r)
{
	struct series carry = { .acc = r->carry };

	r->other.acc = r->accs + spare_base(r->v) * r->v->nfields;
	return series_fields_init(r, &r->other, false) && (!r->v->reclaim_after || series_fields_init(r, &carry, true));
}

static int reader_alloc(struct series_reader *r)
{
	const struct series_view *v = r->v;
	size_t value_bytes = r->rd.copy_size > v->full_size ? r->rd.copy_size : v->full_size;

	r->capacity = 16;
	while (r->capacity < 2 * v->max_series)
		r->capacity *= 2;
	r->index = lazy_array_alloc(&r->index_mem, r->capacity, sizeof(*r->index));
	r->series = lazy_array_alloc(&r->series_mem, v->max_series ? v->max_series : 1, sizeof(*r->series));
	/* the names given up, with reclaim_after only */
	if (v->reclaim_after && !(r->reclaimed = calloc(v->max_series ? v->max_series : 1, sizeof(*r->reclaimed))))
		return -ENOMEM;
	r->accs = lazy_array_alloc(&r->accs_mem, (spare_base(v) + 2) * (v->nfields ? v->nfields : 1), sizeof(*r->accs));
	if (!r->index || !r->series || !r->accs)
		return -ENOMEM;
	r->carry = r->accs + (spare_base(v) + 1) * v->nfields;
	if (!spare_fields_init(r))
		return -ENOMEM;
	if (!v->fresh_labels && !v->entry) { /* else named at every read */
		if (v->fixed_labels && !v->hash)
			r->row_series = calloc(v->max_entries ? v->max_entries : 1, sizeof(*r->row_series));
		else
			r->keys = key_cache_new(v->key_size, v->max_entries);
		if (!r->row_series && !r->keys)
			return -ENOMEM;
	}
	if (v->group) {
		r->doomed = lazy_array_alloc(&r->doomed_mem, v->max_entries, sizeof(*r->doomed));
		r->carried = lazy_array_alloc(&r->carried_mem, v->max_entries, sizeof(*r->carried));
		if (!r->doomed || !r->carried)
			return -ENOMEM;
	}
	if (v->keep_totals) {
		r->prev_cap = 16;
		while (r->prev_cap < 2 * (uint64_t)v->max_entries)
			r->prev_cap *= 2;
		r->prev_index = calloc(r->prev_cap, sizeof(*r->prev_index));
		r->prev_keys = malloc((size_t)r->rd.dump.room * v->key_size);
		r->prev_values = malloc((size_t)r->rd.dump.room * r->rd.dump.value_size);
		r->slots_now = calloc(HIST_NSLOTS(v->precision), sizeof(uint64_t));
		r->slots_then = calloc(HIST_NSLOTS(v->precision), sizeof(uint64_t));
		if (!r->prev_index || !r->prev_keys || !r->prev_values || !r->slots_now || !r->slots_then)
			return -ENOMEM;
	}
	if (!(r->to = calloc(r->rd.copies, sizeof(*r->to))))
		return -ENOMEM;
	if (v->copies == COPIES_SUMMED || v->copies == COPIES_SUMMED_AND_APART) {
		r->summed = calloc(1, value_bytes + 8);
		r->unpacked = calloc(1, value_bytes + 8);
		if (!r->summed || !r->unpacked)
			return -ENOMEM;
	}
	return 0;
}

struct series_reader *series_reader_new(const struct series_view *v, char *err, size_t errlen)
{
	struct series_reader *r = zalloc_lines(sizeof(*r));
	int e;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->v = v;
	for (int i = 0; i < v->nlabels; i++)
		r->may_drop |= decoder_chain_may_drop(v->labels[i].chain);
	e = v->fd < 0 ? -EBADF : map_read_init(&r->rd, v->fd, v->hash, v->key_size, v->value_size, v->max_entries);
	if (!e)
		e = reader_alloc(r);
	if (e) {
		snprintf(err, errlen, "cannot set up the reader of map \"%s\": out of memory, or the map was not created",
			 v->map);
		series_reader_free(r);
		return NULL;
	}
	return r;
}

void series_reader_set_batch(struct series_reader *r, bool batch)
{
	r->rd.dump.no_batch = !batch;
}

void series_reader_free(struct series_reader *r)
{
	struct series carry;

	if (!r)
		return;
	for (uint32_t i = 0; r->series && i < r->nseries; i++)
		series_free_hists(r, &r->series[i]);
	series_free_hists(r, &r->other);
	carry = (struct series){ .acc = r->carry };
	series_free_hists(r, &carry);
	free(r->reclaimed);
	lazy_array_free(&r->index_mem);
	lazy_array_free(&r->series_mem);
	lazy_array_free(&r->accs_mem);
	free(r->summed);
	free(r->unpacked);
	free(r->to);
	free(r->prev_index);
	free(r->prev_keys);
	free(r->prev_values);
	free(r->slots_now);
	free(r->slots_then);
	lazy_array_free(&r->doomed_mem);
	lazy_array_free(&r->carried_mem);
	key_cache_free(r->keys);
	free(r->row_series);
	map_read_free(&r->rd);
	free(r);
}
