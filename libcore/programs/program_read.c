#include "libcore/programs/program_read.h"

#include "libcore/decode/label_value.h"
#include "libcore/engine/module.h"
#include "libcore/hist/hist.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One series: its name, what this read added up, and the previous cumulative histogram. */
struct series {
	char name[LABEL_VALUE_MAX];
	bool used;      /* holds a series */
	bool seen;      /* got an entry this read */
	uint64_t value; /* counters and gauges */
	uint64_t slots[HIST_SLOTS];
	uint64_t sum;
	struct hist_tracker tracker;
};

struct program_reader {
	struct program_view *v;
	const struct view_layout *l;
	int fd;
	int ncpus;
	size_t cpu_stride;           /* bytes per CPU in a per-CPU value */
	void *key, *next_key, *value;
	struct series *table;        /* open addressing, capacity a power of two */
	uint32_t capacity, nseries;
	struct series other;         /* label sets beyond MaxSeries */
	uint32_t folded;             /* label sets in `other` this read */
	char metric[PROGRAM_NAME_MAX + 1];
	enum hist_unit unit;
	/* The layout the series' slots are kept in: the program's own for "native" (its
	 * hist_precision), 0 (power-of-two slots) for the foreign conventions. */
	unsigned int precision;
};

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The series named `name`: an existing one, a new one while there is room, else `other`. */
static struct series *series_for(struct program_reader *r, const char *name)
{
	uint32_t i = name_hash(name) & (r->capacity - 1);

	for (;; i = (i + 1) & (r->capacity - 1)) {
		struct series *s = &r->table[i];

		if (s->used && !strcmp(s->name, name))
			return s;
		if (s->used)
			continue;
		if (r->nseries == r->v->max_series) {
			r->folded++;
			return &r->other;
		}
		s->used = true;
		snprintf(s->name, sizeof(s->name), "%s", name);
		hist_tracker_init(&s->tracker, 1, r->precision);
		r->nseries++;
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

/* The series name of a key: TypeInstance with %{label} replaced, or the labels joined by
 * "-" (and "cpu<N>" last with PerCPU "label"); then made safe for collectd. */
static void series_name(struct program_reader *r, const uint8_t *key, int cpu, char *out)
{
	struct program_view *v = r->v;
	char texts[PROGRAM_MAX_LABELS + 1][DECODE_TEXT_MAX], raw[1024], cpu_text[16];
	size_t used = 0;

	for (int i = 0; i < v->nlabels; i++)
		decoder_chain_decode(&v->labels[i].decoders, key + v->labels[i].offset, v->labels[i].size, texts[i],
				     sizeof(texts[i]));
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
					used += (size_t)snprintf(raw + used, sizeof(raw) - used, "%s", text);
					if (used >= sizeof(raw))
						used = sizeof(raw) - 1;
					p = end + 1;
					continue;
				}
			}
			raw[used++] = *p++;
			raw[used] = '\0';
		}
	} else {
		for (int i = 0; i < v->nlabels && used + 1 < sizeof(raw); i++) {
			used += (size_t)snprintf(raw + used, sizeof(raw) - used, "%s%s", i ? "-" : "", texts[i]);
			if (used >= sizeof(raw))
				used = sizeof(raw) - 1;
		}
		if (cpu >= 0 && used + 1 < sizeof(raw))
			snprintf(raw + used, sizeof(raw) - used, "%s%s", used ? "-" : "", cpu_text);
	}
	if (!v->type_instance[0] && !v->nlabels && cpu < 0)
		snprintf(raw, sizeof(raw), "%s", v->map); /* one series: named by its map */
	label_value_safe(raw, out);
}

/* Slot of a foreign convention's slot k in the reader's layout (power-of-two slots,
 * precision 0, for all but "native"), or -1 for a convention that cannot be read. */
static int native_slot(enum slot_convention c, unsigned int precision, uint64_t k)
{
	uint64_t n;

	switch (c) {
	case SLOTS_NATIVE:
	case SLOTS_EXP2: n = k; break;                    /* up to 2^k == (2^(k-1), 2^k] */
	case SLOTS_EXP2ZERO: n = k ? k - 1 : 0; break;    /* slot 0 is 0, slot k up to 2^(k-1) */
	case SLOTS_LOG2: n = k + 1; break;                /* [2^k, 2^(k+1)) as (2^k, 2^(k+1)] */
	case SLOTS_BCC_LOG2: n = k; break;                /* [2^(k-1), 2^k) as (2^(k-1), 2^k] */
	default: return -1;
	}
	return n < HIST_NSLOTS(precision) ? (int)n : (int)HIST_LAST_SLOT(precision);
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
		int n = native_slot(r->v->buckets, r->precision, read_uint(key + l->bucket_offset, l->bucket_width));

		if (n >= 0)
			s->slots[n] += read_uint(val + l->value_offset, l->value_width);
		return;
	}
	for (uint32_t k = 0; k < l->nslots; k++) {
		uint64_t c = read_uint(val + l->slots_offset + (size_t)k * l->slot_width, l->slot_width);
		int n = c ? native_slot(r->v->buckets, r->precision, k) : -1;

		if (n >= 0)
			s->slots[n] += c;
	}
	if (l->has_sum)
		s->sum += read_uint(val + l->sum_offset, 8);
}

static void add_key(struct program_reader *r, const uint8_t *key, const uint8_t *value)
{
	char name[LABEL_VALUE_MAX];
	int ncpus = r->l->percpu ? r->ncpus : 1;
	bool by_cpu = r->l->percpu && r->v->percpu == PERCPU_LABEL;

	if (!by_cpu)
		series_name(r, key, -1, name);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		if (by_cpu)
			series_name(r, key, cpu, name);
		add_entry(r, series_for(r, name), key, value + (size_t)cpu * r->cpu_stride);
	}
}

static void send_series(struct program_reader *r, struct series *s, const char *name, const struct metric_sink *sink)
{
	if (r->v->kind == VIEW_KIND_COUNTER)
		sink->counter(sink->ctx, r->metric, name, s->value);
	else if (r->v->kind == VIEW_KIND_GAUGE) {
		if (sink->gauge)
			sink->gauge(sink->ctx, r->metric, name, (double)s->value);
	} else {
		struct hist_interval h;

		char total[LABEL_VALUE_MAX + 8];

		hist_advance(&s->tracker, s->slots, s->sum, &h);
		if (h.count)
			sink->histogram(sink->ctx, r->metric + 1, name, r->unit, &h);
		/* One histogram map gives the rate too: its event count (and sum) since start. */
		snprintf(total, sizeof(total), "%s-count", name);
		sink->counter(sink->ctx, "=derive", total, h.total_count);
		if (r->l->has_sum) {
			snprintf(total, sizeof(total), "%s-sum", name);
			sink->counter(sink->ctx, "=derive", total, h.total_sum);
		}
	}
}

/* Only the slots a series of this layout uses, and only where a series is: at 1,089 slots
 * a row, clearing every free place of the table would cost more than the read. */
static void clear_read(const struct program_reader *r, struct series *s)
{
	s->seen = false;
	s->value = 0;
	s->sum = 0;
	if (r->v->kind == VIEW_KIND_HISTOGRAM && (s->used || s == &r->other))
		memset(s->slots, 0, HIST_NSLOTS(r->precision) * sizeof(s->slots[0]));
}

int program_reader_read(struct program_reader *r, const struct metric_sink *sink)
{
	const struct view_layout *l = r->l;
	int e;

	for (uint32_t i = 0; i < r->capacity; i++)
		clear_read(r, &r->table[i]);
	clear_read(r, &r->other);
	r->folded = 0;
	if (l->hash) {
		void *prev = NULL;

		while (!(e = bpf_map_get_next_key(r->fd, prev, r->next_key))) {
			memcpy(r->key, r->next_key, l->key_size);
			prev = r->key;
			if (bpf_map_lookup_elem(r->fd, r->key, r->value))
				continue; /* deleted since: its events are gone from the map */
			add_key(r, r->key, r->value);
		}
		if (errno != ENOENT)
			return -errno;
	} else {
		for (uint32_t i = 0; i < l->max_entries; i++) {
			memset(r->key, 0, l->key_size);
			memcpy(r->key, &i, l->key_size < 4 ? l->key_size : 4);
			if (bpf_map_lookup_elem(r->fd, r->key, r->value))
				return -errno;
			add_key(r, r->key, r->value);
		}
	}
	for (uint32_t i = 0; i < r->capacity; i++)
		if (r->table[i].seen)
			send_series(r, &r->table[i], r->table[i].name, sink);
	if (r->other.seen)
		send_series(r, &r->other, "other", sink);
	if (sink->gauge && r->nseries == r->v->max_series)
		sink->gauge(sink->ctx, "folded", r->v->map, r->folded);
	return 0;
}

struct program_reader *program_reader_new(struct program_view *v, const struct view_layout *l,
					  struct bpf_object *obj, unsigned int precision, char *err, size_t errlen)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, v->map);
	struct program_reader *r;
	size_t stride = (l->value_size + 7) & ~(size_t)7;

	if (v->kind == VIEW_KIND_HISTOGRAM && native_slot(v->buckets, 0, 0) < 0) {
		snprintf(err, errlen, "<Histogram \"%s\">: Buckets \"%s\" cannot be read yet (native, exp2, exp2zero, "
				      "log2 and bcc_log2 can)", v->map, slot_convention_name(v->buckets));
		return NULL;
	}
	if (v->kind == VIEW_KIND_HISTOGRAM && v->multiplier != 1 && v->multiplier != 1e-9) {
		snprintf(err, errlen, "<Histogram \"%s\">: Multiplier %g: only 0.000000001 (nanoseconds to seconds) "
				      "and 1 (bytes, counts) are supported yet", v->map, v->multiplier);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->v = v;
	r->l = l;
	r->fd = map ? bpf_map__fd(map) : -1;
	r->ncpus = libbpf_num_possible_cpus();
	r->cpu_stride = l->percpu ? stride : l->value_size;
	r->capacity = 16;
	while (r->capacity < 2 * v->max_series)
		r->capacity *= 2;
	r->table = calloc(r->capacity, sizeof(*r->table));
	r->key = calloc(1, l->key_size + 8);
	r->next_key = calloc(1, l->key_size + 8);
	r->value = calloc(l->percpu ? (size_t)r->ncpus : 1, stride);
	if (r->fd < 0 || r->ncpus <= 0 || !r->table || !r->key || !r->next_key || !r->value) {
		snprintf(err, errlen, "cannot set up the reader of map \"%s\": out of memory, or the map was not created", v->map);
		program_reader_free(r);
		return NULL;
	}
	/* Counters and gauges carry their collectd type ("=derive"); histograms their type as
	 * the metric (name_histogram: "latency" is its own type). */
	snprintf(r->metric, sizeof(r->metric), "=%s", v->type);
	r->unit = v->multiplier == 1 ? HIST_UNIT_BYTES : HIST_UNIT_NANOSECONDS;
	r->precision = v->buckets == SLOTS_NATIVE ? precision : 0;
	hist_tracker_init(&r->other.tracker, 1, r->precision);
	return r;
}

void program_reader_free(struct program_reader *r)
{
	if (!r)
		return;
	free(r->table);
	free(r->key);
	free(r->next_key);
	free(r->value);
	free(r);
}
