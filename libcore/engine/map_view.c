/* Map views (map_view.h): readers set up once at start, every view read once per
 * interval, rows decoded and sent. */
#include "libcore/engine/map_view.h"

#include "include/hist_row.h"
#include "libcore/decode/syscall_names.h"
#include "base/log.h"
#include "libcore/engine/module.h"
#include "libcore/engine/percpu_read.h"
#include "libcore/hist/ratio.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct view_state {
	bool active;               /* its `needs` are met and its map was found */
	int fd;
	uint32_t nrows;
	struct percpu_reader reader; /* VIEW_PERCPU_ARRAY */
	struct map_dump array;       /* VIEW_ARRAY */
	uint64_t *values;          /* nrows * value_size bytes, summed over CPUs */
	uint64_t *prev;            /* the rows of the previous read, for a ratio */
	int nhist;                 /* histogram fields per row */
	struct hist_tracker *trackers;     /* nrows * nhist */
	struct hist_tracker *cpu_trackers; /* ncpus * nhist, with the per-CPU feature */
	struct ring_buffer *rb;    /* VIEW_RINGBUF */
};

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

static int start_ringbuf(struct module *m, const struct map_view *v, struct view_state *s)
{
	s->rb = ring_buffer__new(s->fd, v->record, m, NULL);
	return s->rb ? 0 : -errno;
}

static int start_array(struct module *m, const struct map_view *v, struct view_state *s, struct bpf_map *map)
{
	int e = 0;

	s->nrows = v->nrows ? v->nrows : bpf_map__max_entries(map);
	s->values = calloc(s->nrows ? s->nrows : 1, v->value_size);
	s->nhist = count_hist_fields(v);
	s->trackers = calloc((size_t)s->nrows * s->nhist + 1, sizeof(*s->trackers));
	if (s->trackers)
		hist_tracker_init(s->trackers, (size_t)s->nrows * s->nhist, m->precision);
	if (v->ratio)
		s->prev = calloc(s->nrows ? s->nrows : 1, v->value_size);
	if (!s->values || !s->trackers || (v->ratio && !s->prev))
		return -ENOMEM;
	/* A bare row sized for its precision is read into the prefix of a full struct. */
	if (v->shape == VIEW_PERCPU_ARRAY)
		e = percpu_reader_init(&s->reader, s->fd, s->nrows, bpf_map__value_size(map), v->value_size);
	else
		e = map_dump_init(&s->array, s->fd, false, sizeof(uint32_t), bpf_map__value_size(map), s->nrows);
	if (!e && v->per_cpu_feature && needs_met(m, v->per_cpu_feature)) {
		s->cpu_trackers = calloc((size_t)s->reader.ncpus * s->nhist + 1, sizeof(*s->cpu_trackers));
		if (!s->cpu_trackers)
			e = -ENOMEM;
		else
			hist_tracker_init(s->cpu_trackers, (size_t)s->reader.ncpus * s->nhist, m->precision);
	}
	return e;
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
		const struct map_view *v = &ops->views[i];
		struct view_state *s = &m->views[i];
		struct bpf_map *map;
		int e = 0;

		if (!needs_met(m, v->needs))
			continue;
		map = bpf_object__find_map_by_name(m->obj, v->map);
		if (!map) {
			snprintf(err, errlen, "cannot set up map readers: the object has no map \"%s\"", v->map);
			return -1;
		}
		s->fd = bpf_map__fd(map);
		switch (v->shape) {
		case VIEW_RINGBUF:
			e = start_ringbuf(m, v, s);
			break;
		case VIEW_PERCPU_ARRAY:
		case VIEW_ARRAY:
			e = start_array(m, v, s, map);
			break;
		case VIEW_HASH:
		case VIEW_PERCPU_HASH:
			break; /* open key sets: the module's read hook walks them */
		}
		if (e && v->shape == VIEW_RINGBUF) {
			snprintf(err, errlen, "cannot map the %s ring buffer: %s", v->ring_name ? v->ring_name : v->map,
				 strerror(-e));
			return -1;
		}
		if (e) {
			snprintf(err, errlen, "cannot set up map readers: %s", strerror(-e));
			return -1;
		}
		s->active = true;
	}
	return 0;
}

/* A plain array, by the one map walker. A bare row sized for its precision fills the
 * prefix of its full-size place. */
static int read_array(const struct map_view *v, struct view_state *s)
{
	int e = map_dump_read(&s->array);

	for (uint32_t i = 0; !e && i < s->array.count; i++) {
		uint32_t row;

		memcpy(&row, s->array.keys + (size_t)i * sizeof(row), sizeof(row));
		if (row < s->nrows)
			memcpy((char *)s->values + (size_t)row * v->value_size,
			       s->array.values + (size_t)i * s->array.value_size, s->array.value_size);
	}
	return e;
}

int views_read(struct module *m)
{
	for (int i = 0; m->views && i < m->ops->nviews; i++) {
		const struct map_view *v = &m->ops->views[i];
		struct view_state *s = &m->views[i];
		int e = 0;

		if (!s->active)
			continue;
		switch (v->shape) {
		case VIEW_RINGBUF:
			/* Records first (a ring view is listed before the counts): the log line of
			 * an event precedes the count that includes it. A failure is said, and the
			 * counts are still read. */
			e = ring_buffer__consume(s->rb);
			if (e < 0)
				ebpf_log(EBPF_LOG_ERROR, "%s: reading the %s ring buffer failed: %s", m->label,
					 v->ring_name ? v->ring_name : v->map, strerror(-e));
			e = 0;
			break;
		case VIEW_PERCPU_ARRAY:
			e = percpu_reader_read(&s->reader, s->values);
			break;
		case VIEW_ARRAY:
			e = read_array(v, s);
			break;
		case VIEW_HASH:
		case VIEW_PERCPU_HASH:
			break;
		}
		if (e)
			return e;
	}
	return 0;
}

static bool histogram_interval(struct hist_tracker *t, const void *row, struct hist_interval *iv)
{
	const struct hist_row *h = row;

	hist_advance(t, (const uint64_t *)h->slots, h->sum, iv);
	return iv->total_count != 0;
}

void emit_hist_row(const struct metric_sink *sink, const char *metric, const char *instance, enum hist_unit unit,
		   struct hist_tracker *t, const void *row)
{
	struct hist_interval iv;

	if (histogram_interval(t, row, &iv))
		sink->histogram(sink->ctx, metric, instance, unit, &iv);
}

static void emit_ratio(const struct view_ratio *r, struct view_state *s, const struct metric_sink *sink)
{
	uint64_t total = counter_delta(s->values[r->total_row], s->prev[r->total_row]);
	uint64_t misses = counter_delta(s->values[r->miss_row], s->prev[r->miss_row]);
	double ratio = hit_ratio_percent(total, misses);

	memcpy(s->prev, s->values, (size_t)s->nrows * sizeof(uint64_t));
	if (ratio >= 0 && sink->gauge)
		sink->gauge(sink->ctx, r->metric, r->instance, ratio);
}

static void emit_rows_as_values(const struct module *m, const struct map_view *v, struct view_state *s,
				const struct metric_sink *sink)
{
	for (int i = 0; i < v->nrows_view; i++) {
		const struct view_row *r = &v->rows[i];
		uint64_t value;

		if (!needs_met(m, r->needs) || r->row >= s->nrows)
			continue;
		value = s->values[r->row];
		if (!value && !(r->flags & VIEW_ALWAYS))
			continue;
		sink->counter(sink->ctx, r->metric, r->instance, value);
	}
	if (v->ratio)
		emit_ratio(v->ratio, s, sink);
}

/* A row's instance label, decoded only when a value of the row is sent (most of the
 * syscall rows are zero at any read). */
struct lazy_instance {
	const struct module *m;
	int view;
	uint32_t row;
	bool decoded;
	const char *text; /* NULL: the module skips the row */
	char buf[64];
};

static const char *instance_text(struct lazy_instance *li)
{
	const struct map_view *v;

	/* Per-CPU instances come decoded and without a module (UBSan: no member access
	 * through a null module). */
	if (li->decoded)
		return li->text;
	v = &li->m->ops->views[li->view];
	li->decoded = true;
	switch (v->key) {
	case KEY_ROW_NAMES:
		li->text = v->row_names[li->row];
		break;
	case KEY_SYSCALL_NR:
		li->text = syscall_name(li->row, li->buf, sizeof(li->buf));
		break;
	case KEY_MODULE:
		li->text = li->m->ops->row_instance(li->m, li->view, li->row, li->buf, sizeof(li->buf));
		break;
	}
	return li->text;
}

/* "connect" + "80" -> "connect-80", "connect" + "" -> "connect". */
static const char *prefixed(const struct view_field *f, const char *instance, char *buf, size_t len)
{
	if (!f->instance_prefix)
		return instance;
	snprintf(buf, len, "%s%s%s", f->instance_prefix, instance[0] ? "-" : "", instance);
	return buf;
}

static void emit_field(const struct metric_sink *sink, const struct view_field *f, struct lazy_instance *li,
		       const char *value, struct hist_tracker *t)
{
	char buf[128];
	const char *instance;
	uint64_t u = 0;
	struct hist_interval iv;

	if (f->kind == VALUE_HISTOGRAM) {
		if (!histogram_interval(t, value + f->offset, &iv))
			return;
	} else {
		memcpy(&u, value + f->offset, sizeof(u));
		if (!u && !(f->flags & VIEW_ALWAYS))
			return;
	}
	instance = instance_text(li);
	if (!instance)
		return;
	instance = prefixed(f, instance, buf, sizeof(buf));
	switch (f->kind) {
	case VALUE_COUNTER:
		sink->counter(sink->ctx, f->metric, instance, u);
		break;
	case VALUE_GAUGE:
		if (sink->gauge)
			sink->gauge(sink->ctx, f->metric, instance, (double)u);
		break;
	case VALUE_HISTOGRAM:
		if (f->count_metric)
			sink->counter(sink->ctx, f->count_metric, instance, iv.total_count);
		sink->histogram(sink->ctx, f->metric, instance, f->unit, &iv);
		break;
	}
}

/* Each CPU's own row, as "cpu<N>" (histograms only: what PerCPU asks for). */
static void emit_per_cpu(const struct module *m, const struct map_view *v, struct view_state *s,
			 const struct metric_sink *sink)
{
	for (int cpu = 0; cpu < s->reader.ncpus; cpu++) {
		const char *value = (const char *)(s->reader.raw + (size_t)cpu * s->reader.words);
		struct lazy_instance li = { .decoded = true };
		int h = 0;

		snprintf(li.buf, sizeof(li.buf), "cpu%d", cpu);
		li.text = li.buf;
		for (int i = 0; i < v->nfields; i++) {
			const struct view_field *f = &v->fields[i];

			if (f->kind != VALUE_HISTOGRAM)
				continue;
			if (needs_met(m, f->needs))
				emit_field(sink, f, &li, value, &s->cpu_trackers[(size_t)cpu * s->nhist + h]);
			h++;
		}
	}
}

static void emit_rows_as_instances(const struct module *m, int view, struct view_state *s,
				   const struct metric_sink *sink)
{
	const struct map_view *v = &m->ops->views[view];

	for (uint32_t row = 0; row < s->nrows; row++) {
		const char *value = (const char *)s->values + (size_t)row * v->value_size;
		struct lazy_instance li = { .m = m, .view = view, .row = row };
		int h = 0;

		for (int i = 0; i < v->nfields; i++) {
			const struct view_field *f = &v->fields[i];
			struct hist_tracker *t = NULL;

			if (f->kind == VALUE_HISTOGRAM)
				t = &s->trackers[(size_t)row * s->nhist + h++];
			if (needs_met(m, f->needs))
				emit_field(sink, f, &li, value, t);
		}
	}
	if (s->cpu_trackers)
		emit_per_cpu(m, v, s, sink);
}

void views_emit(struct module *m, const struct metric_sink *sink)
{
	for (int i = 0; m->views && i < m->ops->nviews; i++) {
		const struct map_view *v = &m->ops->views[i];
		struct view_state *s = &m->views[i];

		if (!s->active || !s->values)
			continue;
		if (v->rows)
			emit_rows_as_values(m, v, s, sink);
		else
			emit_rows_as_instances(m, i, s, sink);
	}
}

void views_free(struct module *m)
{
	for (int i = 0; m->views && i < m->ops->nviews; i++) {
		struct view_state *s = &m->views[i];

		ring_buffer__free(s->rb); /* NULL-safe; before the map it maps goes away */
		percpu_reader_free(&s->reader);
		map_dump_free(&s->array);
		free(s->values);
		free(s->prev);
		free(s->trackers);
		free(s->cpu_trackers);
	}
	free(m->views);
	m->views = NULL;
}
