/* A user's program's block as a series view (series_view.h), read by series_read.h: its
 * labels and TypeInstance, one field (the counter's or gauge's value, or the histogram), and
 * what only a program's histograms have: their slot conventions (slot_map.h), the bucket in
 * the key, and ebpf_exporter's listed keys. */
#include "libcore/programs/program_read.h"

#include "libcore/metric/metric.h"
#include "libcore/programs/exporter_le.h"
#include "libcore/read/map_read.h"
#include "libcore/read/series_read.h"
#include "libcore/programs/slot_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct program_reader {
	struct program_view *v;
	const struct view_layout *l;
	struct series_view view;
	struct series_reader *series;
	struct series_hist_source source;
	struct metric_id count_id; /* a histogram's count and sum: derive, named by the map */
	/* Histograms: the program's slots onto the engine's (slot_map.h), in whose layout
	 * (precision) the series' slots are kept; Layout "value": each slot's engine slot. */
	struct slot_map map;
	unsigned int *slot_of;
	uint64_t unlisted; /* ListedKeysOnly: events in bucket values not listed, the map's whole
	                    * (cumulative) count: counter "unlisted-<map>" */
	/* A histogram of ebpf_exporter's YAML: its buckets over the engine's slots (metric_id's
	 * bounds, own_bounds()), NULL when there are too many. */
	struct metric_bound *bounds;
	int nbounds;
};

/* Whether bucket is one of the view's fixed bounds exactly (ebpf_exporter's bucket_keys). */
static bool fixed_bound_listed(const struct program_view *v, uint64_t bucket)
{
	for (int i = 0; i < v->nfixed_bounds; i++)
		if ((double)bucket == v->fixed_bounds[i])
			return true;
	return false;
}

static void begin_walk(void *ctx)
{
	struct program_reader *r = ctx;

	r->unlisted = 0;
}

/* One CPU's copy of an entry into a series' engine slots and sum (again: its previous value,
 * not counted in `unlisted`). */
static void add_hist(void *ctx, const uint8_t *key, const uint8_t *val, uint64_t *slots, uint64_t *sum, bool again)
{
	struct program_reader *r = ctx;
	const struct program_view *v = r->v;
	const struct view_layout *l = r->l;

	if (v->layout == HIST_LAYOUT_KEY) {
		uint64_t bucket = map_read_uint(key + l->bucket_offset, l->bucket_width);
		uint64_t count = map_read_uint(val + l->value_offset, l->value_width);

		if (v->key_range && (bucket < v->key_min || bucket > v->key_max)) {
			if (bucket == v->key_max + 1) /* ebpf_exporter's sum key: not events */
				*sum += count;
			return;
		}
		if (v->key_listed_only && !fixed_bound_listed(v, bucket)) {
			r->unlisted += again ? 0 : count; /* no event, as in ebpf_exporter, but never out of sight */
			return;
		}
		slots[slot_map_slot(&r->map, bucket)] += count;
		return;
	}
	for (uint32_t k = 0; k < l->nslots; k++) {
		uint64_t c = map_read_uint(val + l->slots_offset + (size_t)k * l->slot_width, l->slot_width);
		if (c)
			slots[r->slot_of[k]] += c;
	}
	if (l->has_sum)
		*sum += map_read_uint(val + l->sum_offset, 8);
}

static uint64_t sum_to_unit(void *ctx, uint64_t sum)
{
	struct program_reader *r = ctx;

	return slot_map_sum(&r->map, sum);
}

static const enum view_value_kind field_kind[] = {
	[VIEW_KIND_COUNTER] = VALUE_COUNTER,
	[VIEW_KIND_GAUGE] = VALUE_GAUGE,
	[VIEW_KIND_HISTOGRAM] = VALUE_HISTOGRAM,
};

/* The view's one field. The SNMP tables name a counter or gauge by its map, a histogram by
 * its Type; the counts since start of a histogram are derive, named by the map. */
static void describe_field(struct program_reader *r, struct series_field *f)
{
	const struct program_view *v = r->v;

	*f = (struct series_field){
		.kind = field_kind[v->kind],
		.id = { .name = v->kind == VIEW_KIND_HISTOGRAM ? v->type : v->map, .type = v->type, .map = v->map,
			.family = v->family[0] ? v->family : NULL, .help = v->family[0] ? v->help : NULL,
			.bounds = r->bounds, .nbounds = r->nbounds },
		.offset = r->l->value_offset,
		.width = r->l->value_width,
		.send_zero = true,
	};
	if (v->kind != VIEW_KIND_HISTOGRAM)
		return;
	r->count_id = (struct metric_id){ .name = v->map, .type = "derive", .map = v->map };
	r->source = (struct series_hist_source){ .ctx = r, .begin = begin_walk, .add = add_hist,
						 .sum_to_unit = sum_to_unit };
	f->unit = r->map.unit;
	f->source = &r->source;
	f->no_sum = !r->l->has_sum;
	f->count_id = &r->count_id;
	f->count_named = true;
}

/* ebpf_exporter's buckets of the view over the engine's slots. A bucket that shares its
 * slot with the next one is left out: its count cannot be told from the next one's, which
 * holds both (exp2zero's 0 and 1 share the slot [0, 1]). Slots that go down (none of the
 * conventions does) leave the view without buckets of its own: the endpoint then shows the
 * engine's. -1 when out of memory. */
static int own_bounds(struct program_reader *r)
{
	struct exporter_bucket b[EXPORTER_MAX_BUCKETS];
	unsigned int slot[EXPORTER_MAX_BUCKETS];
	int n = exporter_buckets(r->v, b, EXPORTER_MAX_BUCKETS);

	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		if ((slot[i] = slot_map_slot(&r->map, b[i].key)) < (i ? slot[i - 1] : 0))
			return 0;
	if (!(r->bounds = calloc((size_t)n, sizeof(*r->bounds))))
		return -1;
	for (int i = 0; i < n; i++) {
		if (i + 1 < n && slot[i + 1] == slot[i])
			continue;
		r->bounds[r->nbounds].slot = slot[i];
		exporter_float_text(b[i].le, r->bounds[r->nbounds].le, sizeof(r->bounds[r->nbounds].le));
		r->nbounds++;
	}
	return 0;
}

/* The one constructor of a program_view's series_view (series_view.h): what the reader
 * works from. */
static void describe_view(struct program_reader *r, int map_fd)
{
	struct program_view *v = r->v;
	const struct view_layout *l = r->l;
	struct series_view *sv = &r->view;

	*sv = (struct series_view){
		.map = v->map,
		.fd = map_fd,
		.hash = l->hash,
		.key_size = l->key_size,
		.value_size = l->value_size,
		.max_entries = l->max_entries,
		.precision = r->map.precision,
		.type_instance = v->type_instance[0] ? v->type_instance : NULL,
		.copies = l->percpu && v->percpu == PERCPU_LABEL ? COPIES_APART : COPIES_ADDED,
		.lone_name = v->map, /* one series: named by its map */
		.nfields = 1,
		.max_series = v->max_series,
		.reclaim_after = v->reclaim_after,
		.folded_when_full = true,
		.keep_totals = true,
	};
	for (int i = 0; i < v->nlabels; i++) {
		sv->labels[i] = (struct series_label){ .name = v->labels[i].name, .offset = v->labels[i].offset,
						       .size = v->labels[i].size, .chain = &v->labels[i].decoders,
						       .cpu_index = v->labels[i].reads_cpu };
		if (v->labels[i].reads_cpu)
			sv->copies = COPIES_APART_BY_LABEL;
	}
	sv->nlabels = v->nlabels;
	describe_field(r, &sv->fields[0]);
}

struct program_reader *program_reader_new(struct program_view *v, const struct view_layout *l, int map_fd,
					  unsigned int precision, char *err, size_t errlen)
{
	struct program_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->v = v;
	r->l = l;
	slot_map_init(&r->map, v, precision);
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
	if (v->kind == VIEW_KIND_HISTOGRAM && v->family[0] && v->layout == HIST_LAYOUT_KEY && own_bounds(r)) {
		snprintf(err, errlen, "cannot set up the reader of map \"%s\": out of memory", v->map);
		program_reader_free(r);
		return NULL;
	}
	describe_view(r, map_fd);
	r->series = series_reader_new(&r->view, err, errlen);
	if (!r->series) {
		program_reader_free(r);
		return NULL;
	}
	return r;
}

int program_reader_read(struct program_reader *r)
{
	return series_reader_read(r->series);
}

void program_reader_send(struct program_reader *r, const struct metric_sink *sink)
{
	series_reader_send(r->series, sink);
	if (r->v->key_listed_only) /* ebpf_exporter drops them without a trace */
		sink->counter(sink->ctx, METRIC("unlisted"), r->v->map, r->unlisted);
}

void program_reader_set_batch(struct program_reader *r, bool batch)
{
	series_reader_set_batch(r->series, batch);
}

void program_reader_free(struct program_reader *r)
{
	if (!r)
		return;
	series_reader_free(r->series);
	free(r->slot_of);
	free(r->bounds);
	free(r);
}
