/* Map views (map_view.h) set up once the object is loaded: each view described as series
 * (series_view.h, by describe_view: rows as values, or keyed, an array's rows or a hash's
 * keys as instances, with its labels' decoders) and given its reader (series_read.h); each
 * ring buffer mapped; freed at stop. */
#include "libcore/read/map_view.h"

#include "include/hist_row.h"
#include "libcore/engine/module.h"
#include "libcore/read/series_read.h"
#include "libcore/engine/view_state.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool needs_met(const struct module *m, uint32_t needs)
{
	return (m->features & needs) == needs;
}

static int count_hist_fields(const struct map_view *v)
{
	int n = 0;

	for (int i = 0; i < v->nfields; i++)
		n += v->fields[i].kind == VALUE_HISTOGRAM;
	return n;
}

/* A view whose whole value is one histogram row: its map can be sized for the precision. */
static bool is_bare_row(const struct map_view *v)
{
	return v->nfields == 1 && v->fields[0].kind == VALUE_HISTOGRAM && v->fields[0].offset == 0 &&
	       v->value_size == sizeof(struct hist_row);
}

uint32_t views_hist_rows(const struct module *m)
{
	uint32_t rows = 0;

	for (int i = 0; i < m->ops->nviews; i++) {
		const struct map_view *v = &m->ops->views[i];

		if (needs_met(m, v->needs) && v->shape != VIEW_RINGBUF)
			rows += v->nrows * (uint32_t)count_hist_fields(v);
	}
	return rows;
}

int views_size_rows(struct module *m, struct bpf_object *obj)
{
	for (int i = 0; i < m->ops->nviews; i++) {
		const struct map_view *v = &m->ops->views[i];
		struct bpf_map *map;
		int e;

		if (!is_bare_row(v))
			continue;
		map = bpf_object__find_map_by_name(obj, v->map);
		/* A map declared with a BTF value type keeps its size: the kernel checks the
		 * two agree. Its rows are read whole; the slots past the precision stay 0. */
		if (!map || bpf_map__btf_value_type_id(map))
			continue;
		e = bpf_map__set_value_size(map, HIST_ROW_SIZE(m->precision));
		if (e)
			return e;
	}
	return 0;
}

/* A keyed view (an array's rows or a hash's keys as instances) as series: its labels'
 * chains, its copies summed and its packed rows unpacked, its fields whose needs are met,
 * room for every entry the map can hold (so nothing folds into `other` while the map keeps
 * its keys), and with the per-CPU feature each CPU's histograms as "cpu<N>". */
static void describe_keyed(struct module *m, const struct map_view *v, struct view_state *s, struct bpf_map *map)
{
	struct series_view *sv = &s->series_view;
	bool hash = v->shape == VIEW_HASH;
	uint32_t entries = v->nrows && !hash ? v->nrows : bpf_map__max_entries(map);
	bool cpu_series = v->per_cpu_feature && needs_met(m, v->per_cpu_feature);

	*sv = (struct series_view){
		.map = v->map, .fd = s->fd, .hash = hash, .key_size = hash ? v->key_size : sizeof(uint32_t),
		.value_size = bpf_map__value_size(map), .max_entries = entries,
		.copies = cpu_series ? COPIES_SUMMED_AND_APART : COPIES_SUMMED, .packed_head = v->packed_head,
		.packed_rows = v->packed_rows,
		.full_size = v->value_size, .precision = m->precision, .lone_name = "",
		.fresh_labels = v->fresh_labels, .fixed_labels = !hash, .entry = v->entry, .entry_ctx = m,
		.max_series = entries + (cpu_series ? (uint32_t)libbpf_num_possible_cpus() : 0),
	};
	sv->nlabels = view_labels_as_series(&s->labels, sv->labels);
	for (int i = 0; i < v->nfields && sv->nfields < SERIES_MAX_FIELDS; i++) {
		if (!needs_met(m, v->fields[i].needs))
			continue;
		view_field_as_series(&v->fields[i], &sv->fields[sv->nfields], &s->count_ids[sv->nfields]);
		sv->nfields++;
	}
}

/* A rows-as-values view as one series without labels: each row whose needs are met its
 * own counter field (its metric, and its instance as the field's), the copies summed; a
 * ratio between two of them. Each row is listed once. */
static int describe_rows(struct module *m, const struct map_view *v, struct view_state *s, struct bpf_map *map,
			 char *err, size_t errlen)
{
	struct series_view *sv = &s->series_view;
	uint32_t nrows = v->nrows ? v->nrows : bpf_map__max_entries(map);

	*sv = (struct series_view){
		.map = v->map, .fd = s->fd, .key_size = sizeof(uint32_t), .value_size = bpf_map__value_size(map),
		.max_entries = nrows, .copies = COPIES_SUMMED, .full_size = v->value_size, .precision = m->precision,
		.lone_name = "", .fixed_labels = true, .max_series = 1, .nrow_fields = nrows,
	};
	if (!(s->row_fields = malloc((nrows ? nrows : 1) * sizeof(*s->row_fields)))) {
		snprintf(err, errlen, "cannot set up map readers: %s", strerror(ENOMEM));
		return -1;
	}
	for (uint32_t row = 0; row < nrows; row++)
		s->row_fields[row] = -1;
	for (int i = 0; i < v->nrows_view && sv->nfields < SERIES_MAX_FIELDS; i++) {
		const struct view_row *r = &v->rows[i];

		if (!needs_met(m, r->needs) || r->row >= nrows)
			continue;
		s->row_fields[r->row] = sv->nfields;
		sv->fields[sv->nfields++] = (struct series_field){
			.kind = VALUE_COUNTER, .id = { .name = r->metric }, .width = sizeof(uint64_t),
			.send_zero = r->flags & VIEW_ALWAYS, .instance_prefix = r->instance[0] ? r->instance : NULL };
	}
	sv->row_fields = s->row_fields;
	if (v->ratio && v->ratio->total_row < nrows && v->ratio->miss_row < nrows &&
	    s->row_fields[v->ratio->total_row] >= 0 && s->row_fields[v->ratio->miss_row] >= 0) {
		s->ratio = (struct series_ratio){ .id = { .name = v->ratio->metric }, .instance = v->ratio->instance,
						  .total = s->row_fields[v->ratio->total_row],
						  .miss = s->row_fields[v->ratio->miss_row] };
		sv->ratio = &s->ratio;
	}
	return 0;
}

/* The one constructor of a map_view's series_view (series_view.h), and its reader. */
static int describe_view(struct module *m, const struct map_view *v, struct view_state *s, struct bpf_map *map,
			 char *err, size_t errlen)
{
	if (v->rows) {
		if (describe_rows(m, v, s, map, err, errlen))
			return -1;
	} else {
		describe_keyed(m, v, s, map);
	}
	s->series = series_reader_new(&s->series_view, err, errlen);
	return s->series ? 0 : -1;
}

static int start_view(struct module *m, const struct map_view *v, struct view_state *s, char *err, size_t errlen)
{
	struct bpf_map *map = bpf_object__find_map_by_name(m->obj, v->map);

	if (!map) {
		snprintf(err, errlen, "cannot set up map readers: the object has no map \"%s\"", v->map);
		return -1;
	}
	s->fd = bpf_map__fd(map);
	if (v->shape == VIEW_RINGBUF) {
		s->rb = ring_buffer__new(s->fd, v->record, m, NULL);
		if (!s->rb) {
			snprintf(err, errlen, "cannot map the %s ring buffer: %s", v->ring_name ? v->ring_name : v->map,
				 strerror(errno));
			return -1;
		}
		return 0;
	}
	if (view_labels_init(&s->labels, v, m->features, err, errlen))
		return -1;
	return describe_view(m, v, s, map, err, errlen);
}

int views_start(struct module *m, char *err, size_t errlen)
{
	const struct module_ops *ops = m->ops;

	if (!ops->nviews)
		return 0;
	m->views = calloc(ops->nviews, sizeof(*m->views));
	if (!m->views) {
		snprintf(err, errlen, "cannot set up map readers: %s", strerror(ENOMEM));
		return -1;
	}
	for (int i = 0; i < ops->nviews; i++) {
		if (!needs_met(m, ops->views[i].needs))
			continue;
		if (start_view(m, &ops->views[i], &m->views[i], err, errlen))
			return -1;
		m->views[i].active = true;
	}
	return 0;
}

int view_label_names(struct module *m, int view, int label, const char *const *names, uint32_t n, char *err,
		     size_t errlen)
{
	struct view_state *s = m->views ? &m->views[view] : NULL;

	if (!s || !s->active)
		return 0;
	return view_labels_set_names(&s->labels, label, names, n, err, errlen);
}

void views_free(struct module *m)
{
	for (int i = 0; m->views && i < m->ops->nviews; i++) {
		struct view_state *s = &m->views[i];

		ring_buffer__free(s->rb); /* NULL-safe; before the map it maps goes away */
		series_reader_free(s->series);
		view_labels_free(&s->labels);
		free(s->row_fields);
	}
	free(m->views);
	m->views = NULL;
}
