#include "libcore/read/program_read.h"

#include "base/label_value.h"
#include "libcore/read/map_read.h"
#include "libcore/engine/module.h"
#include "libcore/hist/hist.h"
#include "libcore/read/key_cache.h"
#include "libcore/read/slot_map.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A histogram series' slots of this read and its previous cumulative ones: allocated for
 * histogram views only, so that a counter view of 10,000 series stays small. */
struct series_hist {
	uint64_t slots[HIST_SLOTS];
	struct hist_tracker tracker;
};

/* A slot of the index of series by name: (name hash, series + 1; 0 free). */
struct name_slot {
	uint32_t hash, series;
};

/* One series: its name and what this read added up. */
struct series {
	char name[LABEL_VALUE_MAX];
	bool seen;      /* got an entry this read */
	uint64_t value; /* counters and gauges */
	uint64_t sum;
	struct series_hist *hist;
	uint64_t last_value; /* counters and gauges: the value sent at the last read */
	uint32_t idle;       /* reads in a row without a change (ReclaimAfter) */
};

struct program_reader {
	struct program_view *v;
	const struct view_layout *l;
	struct map_read rd;          /* every entry of the last read */
	/* The series in the order they came (dense: a read walks them in memory order), and
	 * an open-addressing index of them by name: slot = (name hash, series + 1; 0 free). */
	struct series *series;
	uint32_t nseries;
	struct name_slot *index;
	uint32_t capacity;           /* of the index: a power of two, at least 2 x MaxSeries */
	struct key_cache *keys;      /* raw key -> series + 1 (KEY_OTHER: `other`) */
	struct series other;         /* label sets beyond MaxSeries */
	uint32_t folded;             /* label sets in `other` this read */
	uint32_t waiting;            /* of them, new ones that found no room (not reclaimed ones) */
	bool may_drop;               /* a label's decoders may drop a key (regexps) */
	uint32_t unmatched;          /* keys dropped so this read: gauge "unmatched-<map>" */
	uint64_t unlisted;           /* ListedKeysOnly: events in bucket values not listed, the
	                              * map's whole (cumulative) count: counter "unlisted-<map>" */
	/* ReclaimAfter: the series given up for newcomers are added into `other`, less what they
	 * had when they were given up, so that `other` goes on from where it was; their names
	 * (64-bit hashes) stay out of the series until MaxSeries of them were given up. */
	uint64_t *reclaimed;
	uint32_t nreclaimed;
	uint64_t carry_value, carry_sum;
	uint64_t *carry_slots;       /* histograms */
	struct metric_id id;       /* the map's values (module.h): a counter's or gauge's name is
	                            * the map, a histogram's its Type */
	struct metric_id count_id; /* a histogram's count and sum: derive, named by the map */
	enum hist_unit unit;
	/* Histograms: the program's slots onto the engine's (slot_map.h), in whose layout
	 * (precision) the series' slots are kept; Layout "value": each slot's engine slot. */
	struct slot_map map;
	unsigned int precision;
	unsigned int *slot_of;
};

size_t program_reader_series_bytes(enum program_view_kind kind)
{
	/* The index has at most 4 slots per series (a power of two, at least twice MaxSeries). */
	return sizeof(struct series) + 4 * sizeof(struct name_slot) + sizeof(uint64_t) /* reclaimed name */ +
	       (kind == VIEW_KIND_HISTOGRAM ? sizeof(struct series_hist) : 0);
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

static bool was_reclaimed(const struct program_reader *r, const char *name)
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

/* The series named `name`: an existing one, a new one while there is room, else `other`. */
static struct series *series_for(struct program_reader *r, const char *name)
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
		s = &r->series[r->nseries];
		if (was_reclaimed(r, name)) {
			r->folded++; /* given up for a newcomer: stays in other */
			return &r->other;
		}
		if (r->nseries == r->v->max_series ||
		    (r->v->kind == VIEW_KIND_HISTOGRAM && !(s->hist = calloc(1, sizeof(*s->hist))))) {
			r->folded++; /* beyond MaxSeries (or out of memory): counted, never lost */
			r->waiting++;
			return &r->other;
		}
		memset(s, 0, offsetof(struct series, hist));
		s->last_value = 0;
		s->idle = 0;
		snprintf(s->name, sizeof(s->name), "%s", name);
		if (s->hist)
			hist_tracker_init(&s->hist->tracker, 1, r->precision);
		*slot = (struct name_slot){ .hash = hash, .series = ++r->nseries };
		return s;
	}
}

static uint64_t read_uint(const void *p, uint32_t width)
{
	if (width == 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	if (width == 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	if (width == 2) {
		uint16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	return *(const uint8_t *)p;
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

/* The series name of a key: TypeInstance with %{label} replaced, or the labels joined by
 * "-" (and "cpu<N>" last with PerCPU "label"). Each label's value is made safe for collectd
 * on its own (the cgroup "/" is "root" wherever the label stands, a leading '/' is dropped
 * from each label, not only from the name's start); the whole name then only keeps to
 * collectd's length and to what the TypeInstance text itself holds. */
static bool series_name(struct program_reader *r, const uint8_t *key, int cpu, char *out)
{
	struct program_view *v = r->v;
	char texts[PROGRAM_MAX_LABELS + 1][LABEL_VALUE_MAX], raw[1024], cpu_text[16], decoded[DECODE_TEXT_MAX];
	size_t used = 0;

	for (int i = 0; i < v->nlabels; i++) {
		if (!decoder_chain_decode_kept(&v->labels[i].decoders, key + v->labels[i].offset, v->labels[i].size,
					       decoded, sizeof(decoded)))
			return false; /* the key's label set is dropped (regexps) */
		label_value_safe(decoded, texts[i]);
	}
	if (cpu >= 0)
		snprintf(cpu_text, sizeof(cpu_text), "cpu%d", cpu);
	raw[0] = '\0';
	if (v->type_instance[0]) {
		for (const char *p = v->type_instance; *p && used + 1 < sizeof(raw);) {
			const char *end;
			const char *text = NULL;

			if (p[0] == '%' && p[1] == '{' && (end = strchr(p, '}'))) {
				size_t n = (size_t)(end - p - 2);

				for (int i = 0; i < v->nlabels; i++)
					if (strlen(v->labels[i].name) == n && !strncmp(v->labels[i].name, p + 2, n))
						text = texts[i];
				if (!text && n == 3 && !strncmp(p + 2, "cpu", 3) && cpu >= 0)
					text = cpu_text;
				if (text) {
					append(raw, sizeof(raw), &used, text);
					p = end + 1;
					continue;
				}
			}
			raw[used++] = *p++;
			raw[used] = '\0';
		}
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
	if (!v->type_instance[0] && !v->nlabels && cpu < 0)
		snprintf(raw, sizeof(raw), "%s", v->map); /* one series: named by its map */
	label_value_safe(raw, out);
	return true;
}

/* Whether bucket is one of the view's fixed bounds exactly (ebpf_exporter's bucket_keys). */
static bool fixed_bound_listed(const struct program_view *v, uint64_t bucket)
{
	for (int i = 0; i < v->nfixed_bounds; i++)
		if ((double)bucket == v->fixed_bounds[i])
			return true;
	return false;
}

/* Adds one CPU's value of one entry into series s. */
static void add_entry(struct program_reader *r, struct series *s, const uint8_t *key, const uint8_t *val)
{
	const struct view_layout *l = r->l;

	s->seen = true;
	if (r->v->kind != VIEW_KIND_HISTOGRAM) {
		s->value += read_uint(val + l->value_offset, l->value_width);
		return;
	}
	if (r->v->layout == HIST_LAYOUT_KEY) {
		uint64_t bucket = read_uint(key + l->bucket_offset, l->bucket_width);
		uint64_t count = read_uint(val + l->value_offset, l->value_width);

		if (r->v->key_range && (bucket < r->v->key_min || bucket > r->v->key_max)) {
			if (bucket == r->v->key_max + 1) /* ebpf_exporter's sum key: not events */
				s->sum += count;
			return;
		}
		if (r->v->key_listed_only && !fixed_bound_listed(r->v, bucket)) {
			r->unlisted += count; /* no event, as in ebpf_exporter, but never out of sight */
			return;
		}
		s->hist->slots[slot_map_slot(&r->map, bucket)] += count;
		return;
	}
	for (uint32_t k = 0; k < l->nslots; k++) {
		uint64_t c = read_uint(val + l->slots_offset + (size_t)k * l->slot_width, l->slot_width);
		if (c)
			s->hist->slots[r->slot_of[k]] += c;
	}
	if (l->has_sum)
		s->sum += read_uint(val + l->sum_offset, 8);
}

#define KEY_OTHER UINT32_MAX       /* in other: reclaimed */
#define KEY_WAITING (UINT32_MAX - 1) /* in other: found no room */
#define KEY_DROPPED (UINT32_MAX - 2) /* no series: a decoder dropped its label set */

/* The series of a key (not per CPU): decoded and named when the key is new (or due for a
 * refresh, key_cache.h), else as the last time; NULL for a key whose label set is dropped. */
static struct series *series_of_key(struct program_reader *r, const uint8_t *key)
{
	char name[LABEL_VALUE_MAX];
	uint32_t known = key_cache_get(r->keys, key);
	struct series *s;

	uint32_t waiting = r->waiting;

	if (known == KEY_OTHER || known == KEY_WAITING) {
		r->folded++;
		r->waiting += known == KEY_WAITING;
		return &r->other;
	}
	if (known == KEY_DROPPED || (!known && !series_name(r, key, -1, name))) {
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

static void add_key(struct program_reader *r, const uint8_t *key, const uint8_t *value)
{
	char name[LABEL_VALUE_MAX];
	int ncpus = r->rd.copies;
	struct series *s = NULL;

	if (!(r->l->percpu && r->v->percpu == PERCPU_LABEL) && !(s = series_of_key(r, key))) /* else one per CPU */
		return;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct series *to = s;

		if (!to) {
			if (!series_name(r, key, cpu, name)) {
				r->unmatched += cpu == 0;
				continue;
			}
			to = series_for(r, name);
		}
		add_entry(r, to, key, value + (size_t)cpu * r->rd.copy_size);
	}
}

static void send_series(struct program_reader *r, struct series *s, const char *name, const struct metric_sink *sink)
{
	if (r->v->kind != VIEW_KIND_HISTOGRAM) {
		s->idle = s->value == s->last_value ? s->idle + 1 : 0;
		s->last_value = s->value;
	}
	if (r->v->kind == VIEW_KIND_COUNTER)
		sink->counter(sink->ctx, &r->id, name, s->value);
	else if (r->v->kind == VIEW_KIND_GAUGE) {
		if (sink->gauge)
			sink->gauge(sink->ctx, &r->id, name, (double)s->value);
	} else {
		struct hist_interval h;

		char total[LABEL_VALUE_MAX + 8];

		hist_advance(&s->hist->tracker, s->hist->slots, slot_map_sum(&r->map, s->sum), &h);
		s->idle = h.count || h.reset ? 0 : s->idle + 1;
		h.no_sum = !r->l->has_sum; /* no mean rather than a made-up 0 */
		/* Every read once there were events, as the modules do: the SNMP tables keep the
		 * row and its buckets, collectd gets bucket rates of 0 rather than gaps. */
		if (h.total_count)
			sink->histogram(sink->ctx, &r->id, name, r->unit, &h);
		/* One histogram map gives the rate too: its event count (and sum) since start. */
		snprintf(total, sizeof(total), "%s-count", name);
		sink->counter(sink->ctx, &r->count_id, total, h.total_count);
		if (r->l->has_sum) {
			snprintf(total, sizeof(total), "%s-sum", name);
			sink->counter(sink->ctx, &r->count_id, total, h.total_sum);
		}
	}
}

/* Only the slots a series of this layout uses, and only where a series is (the reader walks
 * its dense series, never the index): at 1,089 slots a row, clearing more would cost more
 * than the read. */
static void clear_read(const struct program_reader *r, struct series *s)
{
	s->seen = false;
	s->value = 0;
	s->sum = 0;
	if (s->hist)
		memset(s->hist->slots, 0, HIST_NSLOTS(r->precision) * sizeof(s->hist->slots[0]));
}

/* Walks the whole last dump into the series (and `other`). */
static void add_dump(struct program_reader *r)
{
	for (uint32_t i = 0; i < r->nseries; i++)
		clear_read(r, &r->series[i]);
	clear_read(r, &r->other);
	r->folded = 0;
	r->waiting = 0;
	r->unmatched = 0;
	r->unlisted = 0;
	for (uint32_t i = 0; i < r->rd.dump.count; i++)
		add_key(r, map_read_key(&r->rd, i), map_read_value(&r->rd, i, 0));
}

/* Gives up to r->waiting series idle for ReclaimAfter reads to the label sets waiting for
 * room: each goes into `other` with what it has now carried, so `other` only grows by what
 * it adds from now on, and its name is kept out of the series. The index and the key cache
 * are rebuilt (series move). The number given up. */
static uint32_t reclaim_idle(struct program_reader *r)
{
	uint32_t given = 0, kept = 0;

	for (uint32_t i = 0; i < r->nseries; i++) {
		struct series *s = &r->series[i];

		if (given < r->waiting && s->idle >= r->v->reclaim_after) {
			if (r->nreclaimed == r->v->max_series)
				r->nreclaimed = 0; /* forgotten: they may take a place again */
			r->reclaimed[r->nreclaimed++] = name_hash64(s->name);
			if (r->v->kind == VIEW_KIND_COUNTER) /* a gauge is no total: nothing to carry */
				r->carry_value += s->value;
			r->carry_sum += s->sum;
			if (s->hist)
				for (unsigned int k = 0; k < HIST_NSLOTS(r->precision); k++)
					r->carry_slots[k] += s->hist->slots[k];
			free(s->hist);
			given++;
			continue;
		}
		if (kept != i)
			r->series[kept] = *s;
		kept++;
	}
	if (!given)
		return 0;
	r->nseries = kept;
	memset(r->index, 0, r->capacity * sizeof(*r->index));
	for (uint32_t i = 0; i < r->nseries; i++) {
		uint32_t hash = name_hash(r->series[i].name), j = hash & (r->capacity - 1);

		while (r->index[j].series)
			j = (j + 1) & (r->capacity - 1);
		r->index[j] = (struct name_slot){ .hash = hash, .series = i + 1 };
	}
	key_cache_clear(r->keys);
	return given;
}

/* `other` less what the reclaimed series had when they were given up (a key that left the
 * map since takes its share with it: `other` then goes back, a discontinuity as any). */
static void uncarry(uint64_t *v, uint64_t carry)
{
	*v = *v > carry ? *v - carry : 0;
}

int program_reader_read(struct program_reader *r, const struct metric_sink *sink)
{
	int e;

	key_cache_next_read(r->keys);
	e = map_read_read(&r->rd);
	if (e)
		return e;
	add_dump(r);
	/* Newcomers found no room and some series did not change for ReclaimAfter reads: the
	 * newcomers take their places in this same read (the dump walked again). */
	if (r->v->reclaim_after && r->waiting && reclaim_idle(r))
		add_dump(r);
	for (uint32_t i = 0; i < r->nseries; i++) {
		struct series *s = &r->series[i];

		if (s->seen)
			send_series(r, s, s->name, sink);
		else
			s->idle++;
	}
	if (r->other.seen) {
		uncarry(&r->other.value, r->carry_value);
		uncarry(&r->other.sum, r->carry_sum);
		if (r->other.hist)
			for (unsigned int k = 0; k < HIST_NSLOTS(r->precision); k++)
				uncarry(&r->other.hist->slots[k], r->carry_slots[k]);
		send_series(r, &r->other, "other", sink);
	}
	if (sink->gauge && (r->nseries == r->v->max_series || r->nreclaimed))
		sink->gauge(sink->ctx, METRIC("folded"), r->v->map, r->folded);
	if (sink->gauge && r->may_drop) /* ebpf_exporter drops them without a trace */
		sink->gauge(sink->ctx, METRIC("unmatched"), r->v->map, r->unmatched);
	if (r->v->key_listed_only) /* the same */
		sink->counter(sink->ctx, METRIC("unlisted"), r->v->map, r->unlisted);
	return 0;
}

struct program_reader *program_reader_new(struct program_view *v, const struct view_layout *l, int map_fd,
					  unsigned int precision, char *err, size_t errlen)
{
	struct program_reader *r;

	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->v = v;
	r->l = l;
	for (int i = 0; i < v->nlabels; i++)
		r->may_drop |= decoder_chain_may_drop(&v->labels[i].decoders);
	r->capacity = 16;
	while (r->capacity < 2 * v->max_series)
		r->capacity *= 2;
	r->index = calloc(r->capacity, sizeof(*r->index));
	r->series = calloc(v->max_series, sizeof(*r->series));
	r->reclaimed = calloc(v->max_series, sizeof(*r->reclaimed));
	if (v->kind == VIEW_KIND_HISTOGRAM) {
		r->other.hist = calloc(1, sizeof(*r->other.hist));
		r->carry_slots = calloc(HIST_SLOTS, sizeof(*r->carry_slots));
	}
	r->keys = key_cache_new(l->key_size, l->max_entries);
	if (map_fd < 0 || !r->index || !r->series || !r->reclaimed || !r->keys ||
	    (v->kind == VIEW_KIND_HISTOGRAM && (!r->other.hist || !r->carry_slots)) ||
	    map_read_init(&r->rd, map_fd, l->hash, l->key_size, l->value_size, l->max_entries)) {
		snprintf(err, errlen, "cannot set up the reader of map \"%s\": out of memory, or the map was not created", v->map);
		program_reader_free(r);
		return NULL;
	}
	/* The SNMP tables name a counter or gauge by its map, a histogram by its Type; the
	 * counts since start of a histogram are derive, named by the map. */
	r->id = (struct metric_id){ .name = v->kind == VIEW_KIND_HISTOGRAM ? v->type : v->map, .type = v->type,
				    .map = v->map };
	r->count_id = (struct metric_id){ .name = v->map, .type = "derive", .map = v->map };
	slot_map_init(&r->map, v, precision);
	r->unit = r->map.unit;
	r->precision = r->map.precision;
	if (v->kind == VIEW_KIND_HISTOGRAM && v->layout == HIST_LAYOUT_VALUE) {
		r->slot_of = calloc(l->nslots ? l->nslots : 1, sizeof(*r->slot_of));
		if (!r->slot_of) {
			snprintf(err, errlen, "cannot set up the reader of map \"%s\": out of memory", v->map);
			program_reader_free(r);
			return NULL;
		}
		for (uint32_t k = 0; k < l->nslots; k++)
			r->slot_of[k] = slot_map_slot(&r->map, k);
	}
	if (r->other.hist)
		hist_tracker_init(&r->other.hist->tracker, 1, r->precision);
	return r;
}

void program_reader_set_batch(struct program_reader *r, bool batch)
{
	r->rd.dump.no_batch = !batch;
}

void program_reader_free(struct program_reader *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; r->series && i < r->nseries; i++)
		free(r->series[i].hist);
	free(r->other.hist);
	free(r->carry_slots);
	free(r->reclaimed);
	free(r->index);
	free(r->series);
	key_cache_free(r->keys);
	free(r->slot_of);
	map_read_free(&r->rd);
	free(r);
}
