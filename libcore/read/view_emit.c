/* Map views (map_view.h) read once per interval and sent: arrays' rows through map_read.h,
 * each row a series (labels decoded by their chains), each histogram through its series'
 * tracker; hashes as series (series_read.h), as a program's maps are. */
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

/* Every row of an array, summed over the CPUs (a bare row sized for its precision fills
 * the prefix of its full-size place). */
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

static bool histogram_interval(struct hist_tracker *t, const void *row, struct hist_interval *iv)
{
	const struct hist_row *h = row;

	hist_advance(t, (const uint64_t *)h->slots, h->sum, iv);
	return iv->total_count != 0;
}

void emit_hist_row(const struct metric_sink *sink, const char *metric, const char *count_metric, const char *instance,
		   enum hist_unit unit, struct hist_tracker *t, const void *row)
{
	struct hist_interval iv;

	if (!histogram_interval(t, row, &iv))
		return;
	if (count_metric)
		sink->counter(sink->ctx, METRIC(count_metric), instance, iv.total_count);
	sink->histogram(sink->ctx, METRIC(metric), instance, unit, &iv);
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

/* A row's labels, decoded when a value of it is first sent (most syscall rows are zero at
 * any read); with fresh_labels at every read. */
struct lazy_instance {
	const struct map_view *v;
	struct view_state *s;
	uint32_t slot;
	const void *key;
	const char *fixed; /* per-CPU series: "cpu<N>", no labels */
	bool fresh;        /* decoded this read already */
};

static const char *instance_text(struct lazy_instance *li)
{
	struct view_slot *sl;
	char texts[VIEW_MAX_LABELS][VIEW_LABEL_TEXT];

	if (li->fixed)
		return li->fixed;
	sl = &li->s->slots[li->slot];
	if (!sl->decoded || (li->v->fresh_labels && !li->fresh)) {
		li->fresh = true;
		view_labels_decode(&li->s->labels, li->key, texts, sl->instance, sizeof(sl->instance));
		sl->decoded = true;
	}
	return sl->instance;
}

/* "connect" + "80" -> "connect-80", "connect" + "" -> "connect". */
static const char *prefixed(const struct view_field *f, const char *instance, char *buf, size_t len)
{
	if (!f->instance_prefix)
		return instance;
	snprintf(buf, len, "%s%s%s", f->instance_prefix, instance[0] ? "-" : "", instance);
	return buf;
}

static void send_field(const struct metric_sink *sink, const struct view_field *f, const char *instance,
		       uint64_t u, const struct hist_interval *iv)
{
	switch (f->kind) {
	case VALUE_COUNTER:
		sink->counter(sink->ctx, METRIC(f->metric), instance, u);
		break;
	case VALUE_GAUGE:
		if (sink->gauge)
			sink->gauge(sink->ctx, METRIC(f->metric), instance, (double)u);
		break;
	case VALUE_HISTOGRAM:
		if (f->count_metric)
			sink->counter(sink->ctx, METRIC(f->count_metric), instance, iv->total_count);
		sink->histogram(sink->ctx, METRIC(f->metric), instance, f->unit, iv);
		break;
	}
}

/* A field with data (a histogram with events this interval, a non-zero count unless
 * VIEW_ALWAYS) under its series' instance. */
static void emit_field(const struct metric_sink *sink, const struct view_field *f, struct lazy_instance *li,
		       const char *value, struct hist_tracker *t)
{
	char buf[VIEW_INSTANCE_MAX + 64];
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
	send_field(sink, f, prefixed(f, instance_text(li), buf, sizeof(buf)), u, &iv);
}

static void emit_fields(const struct module *m, const struct map_view *v, struct lazy_instance *li,
			const char *value, struct hist_tracker *trackers, const struct metric_sink *sink)
{
	int h = 0;

	for (int i = 0; i < v->nfields; i++) {
		const struct view_field *f = &v->fields[i];
		struct hist_tracker *t = f->kind == VALUE_HISTOGRAM ? &trackers[h++] : NULL;

		if (needs_met(m, f->needs))
			emit_field(sink, f, li, value, t);
	}
}

/* Each CPU's own row, as "cpu<N>" (histograms only: what PerCPU asks for; a view of one
 * row, runqueue's). */
static void emit_per_cpu(const struct module *m, const struct map_view *v, struct view_state *s,
			 const struct metric_sink *sink)
{
	for (int cpu = 0; cpu < s->rd.copies; cpu++) {
		const char *value = (const char *)map_read_value(&s->rd, 0, cpu);
		char name[32];
		struct lazy_instance li = { .fixed = name };
		struct hist_tracker *t = &s->cpu_trackers[(size_t)cpu * s->nhist];

		snprintf(name, sizeof(name), "cpu%d", cpu);
		for (int i = 0; i < v->nfields; i++) {
			const struct view_field *f = &v->fields[i];

			if (f->kind != VALUE_HISTOGRAM)
				continue;
			if (needs_met(m, f->needs))
				emit_field(sink, f, &li, value, t);
			t++;
		}
	}
}

static void emit_array(const struct module *m, const struct map_view *v, struct view_state *s,
		       const struct metric_sink *sink)
{
	for (uint32_t row = 0; row < s->nrows; row++) {
		struct lazy_instance li = { .v = v, .s = s, .slot = row, .key = &row };

		emit_fields(m, v, &li, (const char *)s->values + (size_t)row * v->value_size,
			    &s->trackers[(size_t)row * s->nhist], sink);
	}
	if (s->cpu_trackers)
		emit_per_cpu(m, v, s, sink);
}

void views_emit(struct module *m, const struct metric_sink *sink)
{
	for (int i = 0; m->views && i < m->ops->nviews; i++) {
		const struct map_view *v = &m->ops->views[i];
		struct view_state *s = &m->views[i];

		if (!s->active || (!s->values && !s->series))
			continue;
		if (v->rows)
			emit_rows_as_values(m, v, s, sink);
		else if (s->series)
			series_reader_send(s->series, sink);
		else
			emit_array(m, v, s, sink);
	}
}
