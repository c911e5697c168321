#include "libcore/read/series_read.h"

#include "base/label_value.h"
#include "include/hist_row.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/read/key_cache.h"
#include "libcore/read/map_read.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A histogram field's slots of this read and its previous cumulative ones: allocated for
 * histogram fields only, so that a counter view of 10,000 series stays small. */
struct field_hist {
	uint64_t slots[HIST_SLOTS];
	struct hist_tracker tracker;
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

/* One series: its name and its fields. */
struct series {
	char name[LABEL_VALUE_MAX];
	bool seen;           /* got an entry this read */
	uint32_t idle;       /* reads in a row without a change (reclaim_after) */
	struct field_acc *acc; /* nfields */
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
};

size_t series_reader_series_bytes(int nfields, int nhist)
{
	/* The index has at most 4 slots per series (a power of two, at least twice max_series). */
	return sizeof(struct series) + 4 * sizeof(struct name_slot) + sizeof(uint64_t) /* reclaimed name */ +
	       (size_t)nfields * sizeof(struct field_acc) + (size_t)nhist * sizeof(struct field_hist);
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

static void free_hists(const struct series_reader *r, struct series *s)
{
	for (int f = 0; s->acc && f < r->v->nfields; f++) {
		free(s->acc[f].hist);
		s->acc[f].hist = NULL;
	}
}

/* A new series' fields: zero, and a histogram's slots and tracker. False: out of memory. */
static bool fields_init(const struct series_reader *r, struct series *s)
{
	const struct series_view *v = r->v;

	for (int f = 0; f < v->nfields; f++) {
		s->acc[f] = (struct field_acc){ 0 };
		if (v->fields[f].kind != VALUE_HISTOGRAM)
			continue;
		if (!(s->acc[f].hist = calloc(1, sizeof(*s->acc[f].hist)))) {
			free_hists(r, s);
			return false;
		}
		hist_tracker_init(&s->acc[f].hist->tracker, 1, v->precision);
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
		if (r->nseries == r->v->max_series || !fields_init(r, s)) {
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

/* Appends text to buf (cap bytes, NUL kept), cut at the end: no printf per label, which
 * costs more than the decoding over 10,000 keys. */
static void append(char *buf, size_t cap, size_t *used, const char *text)
{
	size_t n = strlen(text);

	if (*used + n >= cap)
		n = cap - 1 - *used;
	memcpy(buf + *used, text, n);
	*used += n;
	buf[*used] = '\0';
}

/* The TypeInstance template with %{label} (and %{cpu}) replaced by the labels' texts. */
static void fill_template(const struct series_view *v, char texts[][LABEL_VALUE_MAX], const char *cpu_text,
			  char *raw, size_t cap)
{
	size_t used = 0;

	raw[0] = '\0';
	for (const char *p = v->type_instance; *p && used + 1 < cap;) {
		const char *end, *text = NULL;

		if (p[0] == '%' && p[1] == '{' && (end = strchr(p, '}'))) {
			size_t n = (size_t)(end - p - 2);

			for (int i = 0; i < v->nlabels; i++)
				if (strlen(v->labels[i].name) == n && !strncmp(v->labels[i].name, p + 2, n))
					text = texts[i];
			if (!text && n == 3 && !strncmp(p + 2, "cpu", 3) && cpu_text)
				text = cpu_text;
			if (text) {
				append(raw, cap, &used, text);
				p = end + 1;
				continue;
			}
		}
		raw[used++] = *p++;
		raw[used] = '\0';
	}
}

/* The series name of a key: TypeInstance with %{label} replaced, or the labels joined by
 * "-" (and "cpu<N>" last with a CPU label). Each label's value is made safe for collectd
 * on its own (the cgroup "/" is "root" wherever the label stands, a leading '/' is dropped
 * from each label, not only from the name's start); the whole name then only keeps to
 * collectd's length and to what the TypeInstance text itself holds. `decoded`, when not
 * NULL, gets each label's text as its chain made it (an entry hook's). False: the key's
 * label set is dropped (regexps). */
static bool series_name(struct series_reader *r, const uint8_t *key, int cpu, char *out,
			char (*decoded)[DECODE_TEXT_MAX])
{
	const struct series_view *v = r->v;
	char texts[SERIES_MAX_LABELS][LABEL_VALUE_MAX], raw[1024], cpu_text[16], text[DECODE_TEXT_MAX];
	size_t used = 0;

	for (int i = 0; i < v->nlabels; i++) {
		char *to = decoded ? decoded[i] : text;

		if (!decoder_chain_decode_kept(v->labels[i].chain, key + v->labels[i].offset, v->labels[i].size, to,
					       DECODE_TEXT_MAX))
			return false;
		label_value_safe(to, texts[i]);
	}
	if (cpu >= 0)
		snprintf(cpu_text, sizeof(cpu_text), "cpu%d", cpu);
	raw[0] = '\0';
	if (v->type_instance) {
		fill_template(v, texts, cpu >= 0 ? cpu_text : NULL, raw, sizeof(raw));
	} else {
		for (int i = 0; i < v->nlabels; i++) {
			if (i)
				append(raw, sizeof(raw), &used, "-");
			append(raw, sizeof(raw), &used, texts[i]);
		}
		if (cpu >= 0) {
			if (used)
				append(raw, sizeof(raw), &used, "-");
			append(raw, sizeof(raw), &used, cpu_text);
		}
	}
	if (!v->type_instance && !v->nlabels && cpu < 0) {
		snprintf(out, LABEL_VALUE_MAX, "%s", v->lone_name);
		return true;
	}
	label_value_safe(raw, out);
	return true;
}

/* Adds one value (one CPU's copy, or the copies summed) of an entry into series s. */
static void add_entry(struct series_reader *r, struct series *s, const uint8_t *key, const uint8_t *val)
{
	const struct series_view *v = r->v;

	s->seen = true;
	for (int i = 0; i < v->nfields; i++) {
		const struct series_field *f = &v->fields[i];
		struct field_acc *a = &s->acc[i];
		struct hist_row row;

		if (f->kind != VALUE_HISTOGRAM) {
			a->value += map_read_uint(val + f->offset, f->width);
			continue;
		}
		if (f->source) {
			f->source->add(f->source->ctx, key, val, a->hist->slots, &a->sum);
			continue;
		}
		memcpy(&row.sum, val + f->offset + offsetof(struct hist_row, sum), sizeof(row.sum));
		a->sum += row.sum;
		for (unsigned int k = 0; k < HIST_NSLOTS(v->precision); k++) {
			uint64_t c;

			memcpy(&c, val + f->offset + offsetof(struct hist_row, slots) + k * sizeof(c), sizeof(c));
			a->hist->slots[k] += c;
		}
	}
}

#define KEY_OTHER UINT32_MAX       /* in other: reclaimed */
#define KEY_WAITING (UINT32_MAX - 1) /* in other: found no room */
#define KEY_DROPPED (UINT32_MAX - 2) /* no series: a decoder dropped its label set */

/* The series of a key (not per CPU): decoded and named when the key is new (or due for a
 * refresh, key_cache.h), else as the last time; NULL for a key whose label set is dropped. */
static struct series *series_of_key(struct series_reader *r, const uint8_t *key)
{
	char name[LABEL_VALUE_MAX];
	uint32_t known = key_cache_get(r->keys, key), waiting = r->waiting;
	struct series *s;

	if (known == KEY_OTHER || known == KEY_WAITING) {
		r->folded++;
		r->waiting += known == KEY_WAITING;
		return &r->other;
	}
	if (known == KEY_DROPPED || (!known && !series_name(r, key, -1, name, NULL))) {
		if (!known)
			key_cache_put(r->keys, KEY_DROPPED);
		r->unmatched++;
		return NULL;
	}
	if (known)
		return &r->series[known - 1];
	s = series_for(r, name);
	key_cache_put(r->keys, s != &r->other ? (uint32_t)(s - r->series) + 1
		      : r->waiting != waiting ? KEY_WAITING : KEY_OTHER);
	return s;
}

/* With fresh labels or an entry hook: the key named at every read (no cache); NULL when a
 * decoder or the hook drops it. */
static struct series *series_of_fresh_key(struct series_reader *r, const uint8_t *key, const uint8_t *value)
{
	char name[LABEL_VALUE_MAX], decoded[SERIES_MAX_LABELS][DECODE_TEXT_MAX];
	const char *labels[SERIES_MAX_LABELS];

	if (!series_name(r, key, -1, name, decoded)) {
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

	map_read_sum(&r->rd, i, r->summed, r->rd.copy_size / 8);
	if (!v->packed_rows)
		return (const uint8_t *)r->summed;
	hist_rows_unpack(r->summed, r->unpacked, v->packed_head, v->packed_rows, v->precision);
	return (const uint8_t *)r->unpacked;
}

static void add_key(struct series_reader *r, uint32_t i)
{
	const uint8_t *key = map_read_key(&r->rd, i);
	char name[LABEL_VALUE_MAX];
	struct series *s = NULL;

	if (r->v->sum_copies) {
		const uint8_t *value = summed_value(r, i);

		s = r->keys ? series_of_key(r, key) : series_of_fresh_key(r, key, value);
		if (s)
			add_entry(r, s, key, value);
		return;
	}
	if (!r->v->cpu_label && !(s = series_of_key(r, key))) /* else one per CPU */
		return;
	for (int cpu = 0; cpu < r->rd.copies; cpu++) {
		struct series *to = s;

		if (!to) {
			if (!series_name(r, key, cpu, name, NULL)) {
				r->unmatched += cpu == 0;
				continue;
			}
			to = series_for(r, name);
		}
		add_entry(r, to, key, map_read_value(&r->rd, i, cpu));
	}
}

/* "connect" + "80" -> "connect-80", "connect" + "" -> "connect". */
static const char *prefixed(const struct series_field *f, const char *name, char *buf, size_t len)
{
	if (!f->instance_prefix)
		return name;
	snprintf(buf, len, "%s%s%s", f->instance_prefix, name[0] ? "-" : "", name);
	return buf;
}

/* Sends a histogram field; true when it changed in this read. */
static bool send_hist(const struct series_field *f, struct field_acc *a, const char *name,
		      const struct metric_sink *sink)
{
	struct hist_interval h;
	char total[LABEL_VALUE_MAX + 8];
	uint64_t sum = f->source && f->source->sum_to_unit ? f->source->sum_to_unit(f->source->ctx, a->sum) : a->sum;

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

static void send_series(struct series_reader *r, struct series *s, const char *name, const struct metric_sink *sink)
{
	const struct series_view *v = r->v;
	bool changed = false;

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
	s->idle = changed ? 0 : s->idle + 1;
}

/* Only the slots a series of this layout uses, and only where a series is (the reader walks
 * its dense series, never the index): at 1,089 slots a row, clearing more would cost more
 * than the read. */
static void clear_read(const struct series_reader *r, struct series *s)
{
	s->seen = false;
	for (int f = 0; f < r->v->nfields; f++) {
		s->acc[f].value = 0;
		s->acc[f].sum = 0;
		if (s->acc[f].hist)
			memset(s->acc[f].hist->slots, 0, HIST_NSLOTS(r->v->precision) * sizeof(uint64_t));
	}
}

/* Walks the whole last read into the series (and `other`). */
static void add_dump(struct series_reader *r)
{
	for (uint32_t i = 0; i < r->nseries; i++)
		clear_read(r, &r->series[i]);
	clear_read(r, &r->other);
	r->folded = 0;
	r->waiting = 0;
	r->unmatched = 0;
	for (int f = 0; f < r->v->nfields; f++)
		if (r->v->fields[f].source && r->v->fields[f].source->begin)
			r->v->fields[f].source->begin(r->v->fields[f].source->ctx);
	for (uint32_t i = 0; i < r->rd.dump.count; i++)
		add_key(r, i);
}

/* What a series given up leaves in `other`'s carry. */
static void carry_series(struct series_reader *r, const struct series *s)
{
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

static void rebuild_index(struct series_reader *r)
{
	memset(r->index, 0, r->capacity * sizeof(*r->index));
	for (uint32_t i = 0; i < r->nseries; i++) {
		uint32_t hash = name_hash(r->series[i].name), j = hash & (r->capacity - 1);

		while (r->index[j].series)
			j = (j + 1) & (r->capacity - 1);
		r->index[j] = (struct name_slot){ .hash = hash, .series = i + 1 };
	}
	key_cache_clear(r->keys);
}

/* Gives up to r->waiting series idle for reclaim_after reads to the label sets waiting for
 * room: each goes into `other` with what it has now carried, so `other` only grows by what
 * it adds from now on, and its name is kept out of the series. The index and the key cache
 * are rebuilt (series move; a place's fields move with it). The number given up. */
static uint32_t reclaim_idle(struct series_reader *r)
{
	uint32_t given = 0, kept = 0;

	for (uint32_t i = 0; i < r->nseries; i++) {
		struct series *s = &r->series[i], tmp;

		if (given < r->waiting && s->idle >= r->v->reclaim_after) {
			if (r->nreclaimed == r->v->max_series)
				r->nreclaimed = 0; /* forgotten: they may take a place again */
			r->reclaimed[r->nreclaimed++] = name_hash64(s->name);
			carry_series(r, s);
			free_hists(r, s);
			given++;
			continue;
		}
		if (kept != i) {
			tmp = r->series[kept];
			r->series[kept] = *s;
			*s = tmp;
		}
		kept++;
	}
	if (!given)
		return 0;
	r->nseries = kept;
	rebuild_index(r);
	return given;
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
		if (a->hist)
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

		if (s->seen)
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
}

/* The fields of `other` and of the carry: made once, at start. */
static bool spare_fields_init(struct series_reader *r)
{
	struct series carry = { .acc = r->carry };

	r->other.acc = r->accs + (size_t)r->v->max_series * r->v->nfields;
	return fields_init(r, &r->other) && fields_init(r, &carry);
}

static int reader_alloc(struct series_reader *r)
{
	const struct series_view *v = r->v;
	size_t value_bytes = r->rd.copy_size > v->full_size ? r->rd.copy_size : v->full_size;

	r->capacity = 16;
	while (r->capacity < 2 * v->max_series)
		r->capacity *= 2;
	r->index = calloc(r->capacity, sizeof(*r->index));
	r->series = calloc(v->max_series ? v->max_series : 1, sizeof(*r->series));
	r->reclaimed = calloc(v->max_series ? v->max_series : 1, sizeof(*r->reclaimed));
	r->accs = calloc(((size_t)v->max_series + 2) * (v->nfields ? v->nfields : 1), sizeof(*r->accs));
	if (!r->index || !r->series || !r->reclaimed || !r->accs)
		return -ENOMEM;
	r->carry = r->accs + ((size_t)v->max_series + 1) * v->nfields;
	for (uint32_t i = 0; i < v->max_series; i++)
		r->series[i].acc = r->accs + (size_t)i * v->nfields;
	if (!spare_fields_init(r))
		return -ENOMEM;
	if (!v->fresh_labels && !v->entry && !(r->keys = key_cache_new(v->key_size, v->max_entries)))
		return -ENOMEM;
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
	struct series_reader *r = calloc(1, sizeof(*r));
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
	key_cache_free(r->keys);
	map_read_free(&r->rd);
	free(r);
}
