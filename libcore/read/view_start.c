/* Map views (map_view.h) set up once the object is loaded: each view's reader (map_read.h),
 * its series' histogram trackers, its labels' decoders, and freed at stop. */
#include "libcore/read/map_view.h"

#include "include/hist_row.h"
#include "libcore/engine/module.h"
#include "libcore/read/key_cache.h"
#include "libcore/read/view_state.h"

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

static struct hist_tracker *new_trackers(size_t n, unsigned int precision)
{
	struct hist_tracker *t = calloc(n + 1, sizeof(*t));

	if (t)
		hist_tracker_init(t, n, precision);
	return t;
}

/* The series of a keys-as-instances view: slots, their trackers, labels kept for the entry
 * hook, and for a hash the keys met and their cache. */
static int start_series(struct module *m, const struct map_view *v, struct view_state *s)
{
	s->nhist = count_hist_fields(v);
	s->trackers = new_trackers((size_t)s->nrows * s->nhist, m->precision);
	s->slots = calloc(s->nrows ? s->nrows : 1, sizeof(*s->slots));
	if (v->entry)
		s->texts = calloc(s->nrows ? s->nrows : 1, sizeof(*s->texts));
	if (s->hash) {
		s->slot_keys = calloc(s->nrows ? s->nrows : 1, v->key_size);
		s->keys = key_cache_new(v->key_size, s->nrows);
		s->packed = calloc(1, s->rd.copy_size + 8);
	}
	if (!s->trackers || !s->slots || (v->entry && !s->texts) ||
	    (s->hash && (!s->slot_keys || !s->keys || !s->packed)))
		return -ENOMEM;
	if (v->per_cpu_feature && needs_met(m, v->per_cpu_feature)) {
		s->cpu_trackers = new_trackers((size_t)s->rd.copies * s->nhist, m->precision);
		if (!s->cpu_trackers)
			return -ENOMEM;
	}
	return 0;
}

/* A bare row sized for its precision is read into the prefix of its full-size place. */
static int start_map(struct module *m, const struct map_view *v, struct view_state *s, struct bpf_map *map)
{
	int e;

	s->hash = v->shape == VIEW_HASH;
	s->nrows = v->nrows && !s->hash ? v->nrows : bpf_map__max_entries(map);
	e = map_read_init(&s->rd, s->fd, s->hash, s->hash ? v->key_size : sizeof(uint32_t),
			  bpf_map__value_size(map), s->nrows);
	if (e)
		return e;
	s->values = calloc(s->hash ? 1 : (s->nrows ? s->nrows : 1), v->value_size);
	if (v->ratio)
		s->prev = calloc(s->nrows ? s->nrows : 1, v->value_size);
	if (!s->values || (v->ratio && !s->prev))
		return -ENOMEM;
	return v->rows ? 0 : start_series(m, v, s);
}

static int start_view(struct module *m, const struct map_view *v, struct view_state *s, char *err, size_t errlen)
{
	struct bpf_map *map = bpf_object__find_map_by_name(m->obj, v->map);
	int e;

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
	e = start_map(m, v, s, map);
	if (e) {
		snprintf(err, errlen, "cannot set up map readers: %s", strerror(-e));
		return -1;
	}
	return 0;
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
		map_read_free(&s->rd);
		view_labels_free(&s->labels);
		key_cache_free(s->keys);
		free(s->values);
		free(s->packed);
		free(s->prev);
		free(s->trackers);
		free(s->cpu_trackers);
		free(s->slots);
		free(s->texts);
		free(s->slot_keys);
	}
	free(m->views);
	m->views = NULL;
}
