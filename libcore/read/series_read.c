#include "libcore/read/series_read.h"

#include "base/label_value.h"
#include "include/hist_row.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/hist/ratio.h"
#include "libcore/read/key_cache.h"
#include "libcore/read/map_read.h"
#include "libcore/read/series_name.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A histogram field's slots of this read and its previous cumulative ones: allocated for
 * histogram fields only, so that a counter view of 10,000 series stays small, and its
 * slots as many as the view's precision has. */
struct field_hist {
	struct hist_tracker tracker;
	uint64_t slots[]; /* HIST_NSLOTS(the view's precision) */
};

/* One field of one series: what this read added up. */
struct field_acc {
	uint64_t value;      /* counters and gauges */
	uint64_t sum;        /* histograms */
	uint64_t last_value; /* counters and gauges: the value sent at the last read */
	struct field_hist *hist;
};

/* A slot of the index of series by name: (name hash, series + 1; 0 free). */
struct name_slot {
	uint32_t hash, series;
};

/* One series: its fields and its name. What an entry touches (seen, its fields) leads, in
 * one cache line with the one field of a view of one (a program block's, at 10,000 series
 * each entry's a line apart in a random order): acc points at acc_one then, else at a
 * block of nfields; the name, needed only for a new key and at send, trails. */
struct series {
	_Alignas(64) bool seen; /* got an entry this read */
	bool forget;         /* a group's last read (SERIES_LAST): forgotten once sent */
	uint32_t idle;       /* reads in a row without a change (reclaim_after) */
	struct field_acc *acc; /* nfields */
	struct field_acc *carry; /* nfields, or NULL: what deleted entries left (SERIES_CARRY) */
	struct field_acc acc_one;
	char name[LABEL_VALUE_MAX];
};

/* An entry whose value its series keeps once the entry is deleted (SERIES_CARRY). */
struct carried {
	uint32_t entry, series;
};

struct series_reader {
	const struct series_view *v;
	struct map_read rd;          /* every entry of the last read */
	/* The series in the order they came (dense: a read walks them in memory order), and
	 * an open-addressing index of them by name. Each place's fields are a block of accs;
	 * places move by swapping, so that no block is lost. */
	struct series *series;
	uint32_t nseries;
	struct field_acc *accs;      /* (max_series + 2) x nfields: the places', other's, the carry */
	struct name_slot *index;
	uint32_t capacity;           /* of the index: a power of two, at least 2 x max_series */
	struct key_cache *keys;      /* raw key -> series + 1 (KEY_OTHER: `other`) */
	uint32_t *row_series;        /* or, fixed_labels arrays: row -> series + 1 */
	struct series other;         /* label sets beyond max_series */
	uint32_t folded;             /* label sets in `other` this read */
	uint32_t waiting;            /* of them, new ones that found no room (not reclaimed ones) */
	bool ever_folded;
	bool may_drop;               /* a label's decoders may drop a key (regexps) */
	uint32_t unmatched;          /* keys dropped so this read: gauge "unmatched-<map>" */
	/* reclaim_after: the series given up for newcomers are added into `other`, less what
	 * they had when they were given up (the carry), so that `other` goes on from where it
	 * was; their names (64-bit hashes) stay out of the series until max_series of them were
	 * given up. */
	uint64_t *reclaimed;
	uint32_t nreclaimed;
	struct field_acc *carry;     /* nfields */
	/* sum_copies: an entry's copies summed (packed: as the map holds them), then unpacked */
	uint64_t *summed, *unpacked;
	/* A group's (series_view.group): the group's text of the entry being named; this
	 * read's entries to delete once sent, and those whose series carry their values. */
	const char *group_text;
	uint32_t *doomed, ndoomed;
	struct carried *carried;
	uint32_t ncarried;
};

size_t series_reader_series_bytes(int nfields, int nhist)
{
	/* The index has at most 4 slots per series (a power of two, at least twice max_series). */
	return sizeof(struct series) + 4 * sizeof(struct name_slot) + sizeof(uint64_t) /* reclaimed name */ +
	       (size_t)nfields * sizeof(struct field_acc) + (size_t)nhist * (sizeof(struct field_hist) + HIST_SLOTS * sizeof(uint64_t));
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static uint64_t name_hash64(const char *s)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool was_reclaimed(const struct series_reader *r, const char *name)
{
	uint64_t h;

	if (!r->nreclaimed)
		return false;
	h = name_hash64(name);
	for (uint32_t i = 0; i < r->nreclaimed; i++)
		if (r->reclaimed[i] == h)
			return true;
	return false;
}

/* A series' histograms' slots and its carry, given back (its place is reused). */
static void free_hists(const struct series_reader *r, struct series *s)
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
static struct field_hist *hist_new(const struct series_reader *r)
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
static bool fields_init(const struct series_reader *r, struct series *s, bool all_hists)
{
	const struct series_view *v = r->v;

	for (int f = 0; f < v->nfields; f++) {
		s->acc[f] = (struct field_acc){ 0 };
		if (v->fields[f].kind != VALUE_HISTOGRAM || (!v->fields[f].source && !all_hists))
			continue;
		if (!(s->acc[f].hist = hist_new(r))) {
			free_hists(r, s);
			return false;
		}
	}
	return true;
}

/* The series named `name`: an existing one, a new one while there is room, else `other`. */
static struct series *series_for(struct series_reader *r, const char *name)
{
	uint32_t hash = name_hash(name), i = hash & (r->capacity - 1);

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
		s = &r->series[r->nseries];
		if (r->nseries == r->v->max_series || !fields_init(r, s, false)) {
			r->folded++; /* beyond max_series (or out of memory): counted, never lost */
			r->waiting++;
			return &r->other;
		}
		s->seen = false;
		s->idle = 0;
		snprintf(s->name, sizeof(s->name), "%s", name);
		*slot = (struct name_slot){ .hash = hash, .series = ++r->nseries };
		return s;
	}
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
		if (!(a->hist = hist_new(r)))
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

/* Adds one value (one CPU's copy, or the copies summed) of an entry into series s: the first
 * entry of a read is copied (nothing is cleared between reads), the others added. */
static void add_entry(struct series_reader *r, struct series *s, const uint8_t *key, const uint8_t *val,
		      bool hists_only)
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
			uint64_t x = map_read_uint(val + f->offset, f->width);

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
		f->source->add(f->source->ctx, key, val, a->hist->slots, &a->sum);
	}
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

/* The series of a key (not per CPU): decoded and named when the key is new (or due for a
 * refresh, key_cache.h), else as the last time; NULL for a key whose label set is dropped. */
static struct series *series_of_key(struct series_reader *r, const uint8_t *key)
{
	char name[LABEL_VALUE_MAX];
	uint32_t known = recall(r, key), waiting = r->waiting;
	struct series *s;

	if (known == KEY_OTHER || known == KEY_WAITING) {
		r->folded++;
		r->waiting += known == KEY_WAITING;
		return &r->other;
	}
	if (known == KEY_DROPPED || (!known && !series_name(r->v, key, -1, name, NULL))) {
		if (!known)
			remember(r, key, KEY_DROPPED);
		r->unmatched++;
		return NULL;
	}
	if (known)
		return &r->series[known - 1];
	if (r->v->group) {
		char local[LABEL_VALUE_MAX];

		memcpy(local, name, sizeof(local));
		series_name_in_group(r->group_text, local, name);
	}
	s = series_for(r, name);
	remember(r, key, s != &r->other ? (uint32_t)(s - r->series) + 1
		 : r->waiting != waiting ? KEY_WAITING : KEY_OTHER);
	return s;
}

/* With fresh labels or an entry hook: the key named at every read (no cache); NULL when a
 * decoder or the hook drops it. */
static struct series *series_of_fresh_key(struct series_reader *r, const uint8_t *key, const uint8_t *value)
{
	char name[LABEL_VALUE_MAX], decoded[SERIES_MAX_LABELS][DECODE_TEXT_MAX];
	const char *labels[SERIES_MAX_LABELS];

	if (!series_name(r->v, key, -1, name, decoded)) {
		r->unmatched++;
		return NULL;
	}
	for (int i = 0; i < r->v->nlabels; i++)
		labels[i] = decoded[i];
	if (r->v->entry && !r->v->entry(r->v->entry_module, key, value, labels))
		return NULL;
	return series_for(r, name);
}

/* Entry i's copies added up word by word, its packed rows unpacked: a module's value. */
static const uint8_t *summed_value(struct series_reader *r, uint32_t i)
{
	const struct series_view *v = r->v;

	/* One copy, read as it is (a hash of structs: block's, the per-cgroup tables): nothing
	 * to add up, and no field past the copy (full_size) to read as 0. */
	if (r->rd.copies == 1 && !v->packed_rows && v->full_size <= r->rd.copy_size)
		return map_read_value(&r->rd, i, 0);
	map_read_sum(&r->rd, i, r->summed, r->rd.copy_size / 8);
	if (!v->packed_rows)
		return (const uint8_t *)r->summed;
	hist_rows_unpack(r->summed, r->unpacked, v->packed_head, v->packed_rows, v->precision);
	return (const uint8_t *)r->unpacked;
}

/* A group's entry: its fate (series_view.group), and the entry kept in mind for after the
 * send when it is to be deleted. */
static enum series_fate group_fate(struct series_reader *r, uint32_t i, const uint8_t *key)
{
	const struct series_group *g = r->v->group;
	enum series_fate fate;

	if (!g)
		return SERIES_SEND;
	fate = g->fate(g->ctx, key, &r->group_text);
	if (fate != SERIES_SEND && fate != SERIES_SKIP)
		r->doomed[r->ndoomed++] = i;
	return fate;
}

/* What a group's entry does to its series besides adding to it: its last read, or its
 * value carried once the entry is deleted. */
static void group_mark(struct series_reader *r, struct series *s, uint32_t i, enum series_fate fate)
{
	if (s == &r->other)
		return; /* a group's view has room for every series */
	if (fate == SERIES_LAST)
		s->forget = true;
	else if (fate == SERIES_CARRY)
		r->carried[r->ncarried++] = (struct carried){ .entry = i, .series = (uint32_t)(s - r->series) };
}

static void add_key(struct series_reader *r, uint32_t i)
{
	const uint8_t *key = map_read_key(&r->rd, i);
	char name[LABEL_VALUE_MAX];
	struct series *s = NULL;

	if (r->v->sum_copies) {
		const uint8_t *value;
		enum series_fate fate = group_fate(r, i, key);

		if (fate == SERIES_SKIP || fate == SERIES_DELETE || (r->v->row_fields && row_field(r->v, key) < 0))
			return;
		value = summed_value(r, i);
		s = r->keys || r->row_series ? series_of_key(r, key) : series_of_fresh_key(r, key, value);
		if (s) {
			add_entry(r, s, key, value, false);
			group_mark(r, s, i, fate);
		}
		for (int cpu = 0; r->v->cpu_series && cpu < r->rd.copies; cpu++) {
			snprintf(name, sizeof(name), "cpu%d", cpu);
			add_entry(r, series_for(r, name), key, map_read_value(&r->rd, i, cpu), true);
		}
		return;
	}
	if (!r->v->cpu_label && !(s = series_of_key(r, key))) /* else one per CPU */
		return;
	for (int cpu = 0; cpu < r->rd.copies; cpu++) {
		struct series *to = s;

		if (!to) {
			if (!series_name(r->v, key, cpu, name, NULL)) {
				r->unmatched += cpu == 0;
				continue;
			}
			to = series_for(r, name);
		}
		add_entry(r, to, key, map_read_value(&r->rd, i, cpu), false);
	}
}

/* "connect" + "80" -> "connect-80", "connect" + "" -> "connect"; in a group after its
 * '/' (no label holds one): "<group>/connect-80". */
static const char *prefixed(const struct series_field *f, const char *name, char *buf, size_t len)
{
	const char *slash, *labels;

	if (!f->instance_prefix)
		return name;
	slash = strchr(name, '/');
	labels = slash ? slash + 1 : name;
	snprintf(buf, len, "%.*s%s%s%s", slash ? (int)(labels - name) : 0, name, f->instance_prefix,
		 labels[0] ? "-" : "", labels);
	return buf;
}

/* Sends a histogram field; true when it changed in this read. */
static bool send_hist(const struct series_field *f, struct field_acc *a, const char *name,
		      const struct metric_sink *sink)
{
	struct hist_interval h;
	char total[LABEL_VALUE_MAX + 8];
	uint64_t sum;

	if (!a->hist)
		return false; /* no events yet */
	sum = f->source && f->source->sum_to_unit ? f->source->sum_to_unit(f->source->ctx, a->sum) : a->sum;
	hist_advance(&a->hist->tracker, a->hist->slots, sum, &h);
	h.no_sum = f->no_sum;
	/* Every read once there were events: the SNMP tables keep the row and its buckets,
	 * collectd gets bucket rates of 0 rather than gaps. */
	if (h.total_count) {
		if (f->count_id && !f->count_named)
			sink->counter(sink->ctx, f->count_id, name, h.total_count);
		sink->histogram(sink->ctx, &f->id, name, f->unit, &h);
	}
	if (f->count_id && f->count_named) {
		/* One histogram map gives the rate too: its event count (and sum) since start. */
		snprintf(total, sizeof(total), "%s-count", name);
		sink->counter(sink->ctx, f->count_id, total, h.total_count);
		if (!f->no_sum) {
			snprintf(total, sizeof(total), "%s-sum", name);
			sink->counter(sink->ctx, f->count_id, total, h.total_sum);
		}
	}
	return h.count || h.reset;
}

/* The view's ratio over this read's interval (from the fields' last values, before they
 * move on); -1: none. */
static double ratio_of(const struct series_ratio *ratio, const struct field_acc *acc)
{
	const struct field_acc *total = &acc[ratio->total], *miss = &acc[ratio->miss];

	return hit_ratio_percent(counter_delta(total->value, total->last_value),
				 counter_delta(miss->value, miss->last_value));
}

static void send_series(struct series_reader *r, struct series *s, const char *name, const struct metric_sink *sink)
{
	const struct series_view *v = r->v;
	bool changed = false;
	double ratio = v->ratio ? ratio_of(v->ratio, s->acc) : -1;

	for (int i = 0; i < v->nfields; i++) {
		const struct series_field *f = &v->fields[i];
		struct field_acc *a = &s->acc[i];
		char buf[LABEL_VALUE_MAX + 64];
		const char *inst = prefixed(f, name, buf, sizeof(buf));

		if (f->kind == VALUE_HISTOGRAM) {
			changed |= send_hist(f, a, inst, sink);
			continue;
		}
		changed |= a->value != a->last_value;
		a->last_value = a->value;
		if (!a->value && !f->send_zero)
			continue;
		if (f->kind == VALUE_COUNTER)
			sink->counter(sink->ctx, &f->id, inst, a->value);
		else if (sink->gauge)
			sink->gauge(sink->ctx, &f->id, inst, (double)a->value);
	}
	if (ratio >= 0 && sink->gauge) /* after the values it is of */
		sink->gauge(sink->ctx, &v->ratio->id, v->ratio->instance, ratio);
	s->idle = changed ? 0 : s->idle + 1;
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
	for (uint32_t i = 0; i < r->rd.dump.count; i++)
		add_key(r, i);
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
		uint32_t hash = name_hash(r->series[i].name), j = hash & (r->capacity - 1);

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
			free_hists(r, s);
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
 * counts them): each goes into `other` with what it has now carried, so `other` only grows
 * by what it adds from now on, and its name is kept out of the series. */
static bool gives_up_idle(struct series_reader *r, struct series *s, void *arg)
{
	uint32_t *given = arg;

	if (*given == r->waiting || s->idle < r->v->reclaim_after)
		return false;
	if (r->nreclaimed == r->v->max_series)
		r->nreclaimed = 0; /* forgotten: they may take a place again */
	r->reclaimed[r->nreclaimed++] = name_hash64(s->name);
	carry_series(r, s);
	(*given)++;
	return true;
}

static uint32_t reclaim_idle(struct series_reader *r)
{
	uint32_t given = 0;

	return drop_series(r, gives_up_idle, &given);
}

/* A group's series whose keys are gone (SERIES_LAST), forgotten once sent. */
static bool was_last(struct series_reader *r, struct series *s, void *arg)
{
	(void)r;
	(void)arg;
	return s->forget;
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
		if (!a->hist && !(a->hist = hist_new(r)))
			continue; /* out of memory: the carry waits for the next read */
		for (unsigned int k = 0; k < nslots; k++)
			a->hist->slots[k] += c->hist->slots[k];
	}
}

/* After a group's read is sent: the carried entries' values join their series' carries,
 * the doomed entries are deleted from the map, and the series of gone keys are forgotten. */
static void settle_group(struct series_reader *r)
{
	for (uint32_t i = 0; i < r->ncarried; i++) {
		struct series *s = &r->series[r->carried[i].series];
		struct series carry = { .seen = true };
		uint32_t e = r->carried[i].entry;

		if (!s->carry && !(s->carry = calloc(r->v->nfields, sizeof(*s->carry))))
			continue; /* out of memory: its share leaves with the entry */
		carry.acc = s->carry;
		add_entry(r, &carry, map_read_key(&r->rd, e), summed_value(r, e), false);
	}
	for (uint32_t i = 0; i < r->ndoomed; i++)
		bpf_map_delete_elem(r->v->fd, map_read_key(&r->rd, r->doomed[i]));
	drop_series(r, was_last, NULL);
}

/* `other` less what the reclaimed series had when they were given up (a key that left the
 * map since takes its share with it: `other` then goes back, a discontinuity as any). */
static void uncarry(uint64_t *v, uint64_t carry)
{
	*v = *v > carry ? *v - carry : 0;
}

static void send_other(struct series_reader *r, const struct metric_sink *sink)
{
	for (int f = 0; f < r->v->nfields; f++) {
		struct field_acc *a = &r->other.acc[f], *c = &r->carry[f];

		uncarry(&a->value, c->value);
		uncarry(&a->sum, c->sum);
		if (a->hist && c->hist)
			for (unsigned int k = 0; k < HIST_NSLOTS(r->v->precision); k++)
				uncarry(&a->hist->slots[k], c->hist->slots[k]);
	}
	send_series(r, &r->other, "other", sink);
}

int series_reader_read(struct series_reader *r)
{
	if (r->keys)
		key_cache_next_read(r->keys);
	return map_read_read(&r->rd);
}

void series_reader_send(struct series_reader *r, const struct metric_sink *sink)
{
	const struct series_view *v = r->v;

	add_dump(r);
	/* Newcomers found no room and some series did not change for reclaim_after reads: the
	 * newcomers take their places in this same read (the dump walked again). */
	if (v->reclaim_after && r->waiting && reclaim_idle(r))
		add_dump(r);
	for (uint32_t i = 0; i < r->nseries; i++) {
		struct series *s = &r->series[i];

		if (s->carry)
			add_carry(r, s);
		if (s->seen || s->carry)
			send_series(r, s, s->name, sink);
		else
			s->idle++;
	}
	if (r->other.seen)
		send_other(r, sink);
	r->ever_folded |= r->folded > 0;
	if (sink->gauge && ((v->folded_when_full && r->nseries == v->max_series) || r->nreclaimed ||
			    (!v->folded_when_full && r->ever_folded)))
		sink->gauge(sink->ctx, METRIC("folded"), v->map, r->folded);
	if (sink->gauge && r->may_drop) /* ebpf_exporter drops them without a trace */
		sink->gauge(sink->ctx, METRIC("unmatched"), v->map, r->unmatched);
	if (v->group)
		settle_group(r);
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

/* The fields of `other` (as a series': a module's views never fold, and their histograms
 * in `other` would be memory never used) and of the carry (with reclaim_after only): made
 * once, at start. */
static bool spare_fields_init(struct series_reader *r)
{
	struct series carry = { .acc = r->carry };

	r->other.acc = r->accs + spare_base(r->v) * r->v->nfields;
	return fields_init(r, &r->other, false) && (!r->v->reclaim_after || fields_init(r, &carry, true));
}

static int reader_alloc(struct series_reader *r)
{
	const struct series_view *v = r->v;
	size_t value_bytes = r->rd.copy_size > v->full_size ? r->rd.copy_size : v->full_size;

	r->capacity = 16;
	while (r->capacity < 2 * v->max_series)
		r->capacity *= 2;
	r->index = calloc(r->capacity, sizeof(*r->index));
	r->series = zalloc_lines((v->max_series ? v->max_series : 1) * sizeof(*r->series));
	r->reclaimed = calloc(v->max_series ? v->max_series : 1, sizeof(*r->reclaimed));
	r->accs = calloc((spare_base(v) + 2) * (v->nfields ? v->nfields : 1), sizeof(*r->accs));
	if (!r->index || !r->series || !r->reclaimed || !r->accs)
		return -ENOMEM;
	r->carry = r->accs + (spare_base(v) + 1) * v->nfields;
	for (uint32_t i = 0; i < v->max_series; i++) {
		if (v->nfields == 1)
			own_fields(r, &r->series[i]);
		else
			r->series[i].acc = r->accs + (size_t)i * v->nfields;
	}
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
		r->doomed = calloc(v->max_entries ? v->max_entries : 1, sizeof(*r->doomed));
		r->carried = calloc(v->max_entries ? v->max_entries : 1, sizeof(*r->carried));
		if (!r->doomed || !r->carried)
			return -ENOMEM;
	}
	if (v->sum_copies) {
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
		free_hists(r, &r->series[i]);
	free_hists(r, &r->other);
	carry = (struct series){ .acc = r->carry };
	free_hists(r, &carry);
	free(r->reclaimed);
	free(r->index);
	free(r->series);
	free(r->accs);
	free(r->summed);
	free(r->unpacked);
	free(r->doomed);
	free(r->carried);
	key_cache_free(r->keys);
	free(r->row_series);
	map_read_free(&r->rd);
	free(r);
}
