/* Map views (map_view.h) read once per interval and sent: keyed views (an array's rows or a
 * hash's keys as instances) as series (series_read.h), as a program's maps are; rows as
 * values through map_read.h, with their ratio; ring buffers drained. */
#include "libcore/read/map_view.h"

#include "base/log.h"
#include "libcore/engine/module.h"
#include "libcore/hist/ratio.h"
#include "libcore/read/series_read.h"
#include "libcore/read/view_state.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool needs_met(const struct module *m, uint32_t needs)
{
	return (m->features & needs) == needs;
}

/* Every row of a rows-as-values array, summed over the CPUs. */
static int read_array(const struct map_view *v, struct view_state *s)
{
	size_t words = s->rd.copy_size / 8;

	if (s->rd.dump.count != s->nrows)
		return -EIO; /* an array has every row */
	for (uint32_t i = 0; i < s->rd.dump.count; i++) {
		uint32_t row;

		memcpy(&row, map_read_key(&s->rd, i), sizeof(row)); /* batches come with their keys */
		if (row < s->nrows)
			map_read_sum(&s->rd, i, (uint64_t *)((char *)s->values + (size_t)row * v->value_size), words);
	}
	return 0;
}

static int read_view(struct module *m, const struct map_view *v, struct view_state *s)
{
	int e;

	if (v->shape == VIEW_RINGBUF) {
		/* Records first (a ring view is listed before the counts): the log line of an
		 * event precedes the count that includes it. A failure is said, and the counts
		 * are still read. */
		e = ring_buffer__consume(s->rb);
		if (e < 0)
			ebpf_log(EBPF_LOG_ERROR, "%s: reading the %s ring buffer failed: %s", m->label,
				 v->ring_name ? v->ring_name : v->map, strerror(-e));
		return 0;
	}
	if (v->before_read)
		v->before_read(m);
	view_labels_next_read(&s->labels);
	if (s->series)
		return series_reader_read(s->series); /* its entries are summed as they are sent */
	e = map_read_read(&s->rd);
	return e ? e : read_array(v, s);
}

int views_read(struct module *m)
{
	for (int i = 0; m->views && i < m->ops->nviews; i++) {
		int e;

		if (!m->views[i].active)
			continue;
		e = read_view(m, &m->ops->views[i], &m->views[i]);
		if (e)
			return e;
	}
	return 0;
}

static void emit_ratio(const struct view_ratio *r, struct view_state *s, const struct metric_sink *sink)
{
	uint64_t total = counter_delta(s->values[r->total_row], s->prev[r->total_row]);
	uint64_t misses = counter_delta(s->values[r->miss_row], s->prev[r->miss_row]);
	double ratio = hit_ratio_percent(total, misses);

	memcpy(s->prev, s->values, (size_t)s->nrows * sizeof(uint64_t));
	if (ratio >= 0 && sink->gauge)
		sink->gauge(sink->ctx, METRIC(r->metric), r->instance, ratio);
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
		sink->counter(sink->ctx, METRIC(r->metric), r->instance, value);
	}
	if (v->ratio)
		emit_ratio(v->ratio, s, sink);
}

void views_emit(struct module *m, const struct metric_sink *sink)
{
	for (int i = 0; m->views && i < m->ops->nviews; i++) {
		const struct map_view *v = &m->ops->views[i];
		struct view_state *s = &m->views[i];

		if (!s->active || (!s->values && !s->series))
			continue;
		if (s->series)
			series_reader_send(s->series, sink);
		else
			emit_rows_as_values(m, v, s, sink);
	}
}
