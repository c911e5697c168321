/* A series reader's values sent (series_state.h): each series' fields as counters, gauges
 * and histograms (their deltas tracked), a view's ratio, and `other`. */
#include "libcore/read/series_state.h"

#include "libcore/metric/metric.h"
#include "libcore/hist/ratio.h"

#include <stdio.h>
#include <string.h>

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

/* A series' labels taken apart from its name (series.label_end): the texts cut out of a
 * copy of the name. */
struct series_labels {
	struct metric_labels l;
	char text[LABEL_VALUE_MAX + 8];
};

static void add_label(struct metric_labels *l, const char *name, const char *value)
{
	if (l->n < METRIC_MAX_LABELS) {
		l->names[l->n] = name;
		l->values[l->n++] = value;
	}
}

/* "cpu<N>" at the end of text (text itself, or after a '-'): its N, else NULL. */
static const char *cpu_suffix(const char *text)
{
	const char *dash = strrchr(text, '-'), *c = dash ? dash + 1 : text;

	return !strncmp(c, "cpu", 3) && c[3] >= '0' && c[3] <= '9' && strspn(c + 3, "0123456789") == strlen(c + 3)
		       ? c + 3 : NULL;
}

/* The labels of series s (named name) of view v, NULL when its name cannot be taken apart
 * (then the instance is all). */
static const struct metric_labels *labels_of(const struct series_reader *r, const struct series *s,
					     const char *name, struct series_labels *b)
{
	const struct series_view *v = r->v;
	const char *slash = v->group ? strchr(name, '/') : NULL, *cpu;
	char *local = b->text;
	size_t start = 0, len;

	memset(&b->l, 0, sizeof(b->l));
	snprintf(b->text, sizeof(b->text), "%s", name);
	if (s == &r->other) { /* label sets beyond the cap: each label "other" */
		for (int i = 0; i < v->nlabels; i++)
			add_label(&b->l, v->labels[i].name, "other");
		return &b->l;
	}
	if (slash) {
		b->text[slash - name] = '\0';
		b->l.group = b->text;
		local = b->text + (slash - name) + 1;
	}
	if (v->copies == COPIES_SUMMED_AND_APART && !strncmp(local, "cpu", 3) && (cpu = cpu_suffix(local)) == local + 3) {
		add_label(&b->l, "cpu", cpu); /* a CPU's histogram beside the sum */
		return &b->l;
	}
	if (v->nlabels && s->label_end[0] == SERIES_ENDS_UNKNOWN)
		return NULL;
	cpu = v->copies == COPIES_APART ? cpu_suffix(local) : NULL;
	len = strlen(local);
	/* the spans cut out of the copy, each after the one before with a byte between them
	 * (a template that puts its labels otherwise keeps them in its instance only) */
	for (int i = 0; i < v->nlabels; i++) {
		size_t end = s->label_end[i], from = s->label_end[SERIES_MAX_LABELS + i];

		if (end == SERIES_ENDS_UNKNOWN || from < start || from > end || end > len)
			return NULL;
		local[end] = '\0';
		add_label(&b->l, v->labels[i].name, local + from);
		start = end + 1;
	}
	if (cpu)
		add_label(&b->l, "cpu", cpu);
	return &b->l;
}

/* id with labels l and, when the field has an instance prefix ("connect"), that as the
 * label "kind"; l NULL: id with no labels (the instance is all). */
static struct metric_id labelled(const struct metric_id *id, const struct metric_labels *l, const char *kind,
				 struct metric_labels *with)
{
	struct metric_id out = *id;

	out.labels = NULL;
	if (!l)
		return out;
	*with = *l;
	if (kind)
		add_label(with, "kind", kind);
	out.labels = with;
	return out;
}

/* Sends a histogram field; true when it changed in this read. */
static bool send_hist(const struct series_field *f, struct field_acc *a, const char *name,
		      const struct metric_labels *l, const struct metric_sink *sink)
{
	struct hist_interval h;
	char total[LABEL_VALUE_MAX + 8];
	struct metric_labels with;
	struct metric_id id = labelled(&f->id, l, f->instance_prefix, &with), count_id;
	uint64_t sum;

	if (!a->hist)
		return false; /* no events yet */
	sum = f->source && f->source->sum_to_unit ? f->source->sum_to_unit(f->source->ctx, a->sum) : a->sum;
	hist_advance(&a->hist->tracker, a->hist->slots, sum, &h);
	h.no_sum = f->no_sum;
	/* Every read once there were events: the SNMP tables keep the row and its buckets,
	 * collectd gets bucket rates of 0 rather than gaps. */
	if (h.total_count) {
		if (f->count_id && !f->count_named) {
			count_id = labelled(f->count_id, l, f->instance_prefix, &with);
			sink->counter(sink->ctx, &count_id, name, h.total_count);
		}
		sink->histogram(sink->ctx, &id, name, f->unit, &h);
	}
	if (f->count_id && f->count_named) {
		/* One histogram map gives the rate too: its event count (and sum) since start. */
		snprintf(total, sizeof(total), "%s-count", name);
		count_id = labelled(f->count_id, l, "count", &with);
		sink->counter(sink->ctx, &count_id, total, h.total_count);
		if (!f->no_sum) {
			snprintf(total, sizeof(total), "%s-sum", name);
			count_id = labelled(f->count_id, l, "sum", &with);
			sink->counter(sink->ctx, &count_id, total, h.total_sum);
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

/* keep_totals: the read's entries gave what they counted since the last read; the series'
 * totals are what it sent then and that (a histogram's slots sent then: its tracker's). */
static void add_totals(const struct series_reader *r, struct series *s)
{
	for (int i = 0; i < r->v->nfields; i++) {
		struct field_acc *a = &s->acc[i];

		if (r->v->fields[i].kind == VALUE_COUNTER)
			a->value += a->last_value;
		if (r->v->fields[i].kind != VALUE_HISTOGRAM || !a->hist)
			continue;
		for (unsigned int k = 0; k < HIST_NSLOTS(r->v->precision); k++)
			a->hist->slots[k] += a->hist->tracker.prev_slots[k];
		a->sum += a->last_value;
		a->last_value = a->sum;
	}
}

void series_send_one(struct series_reader *r, struct series *s, const char *name, const struct metric_sink *sink)
{
	const struct series_view *v = r->v;
	bool changed = false;
	double ratio;
	struct series_labels b;
	const struct metric_labels *l = labels_of(r, s, name, &b);

	if (v->keep_totals)
		add_totals(r, s);
	ratio = v->ratio ? ratio_of(v->ratio, s->acc) : -1;

	for (int i = 0; i < v->nfields; i++) {
		const struct series_field *f = &v->fields[i];
		struct field_acc *a = &s->acc[i];
		char buf[LABEL_VALUE_MAX + 64];
		const char *inst = prefixed(f, name, buf, sizeof(buf));
		struct metric_labels with;
		struct metric_id id;

		if (f->kind == VALUE_HISTOGRAM) {
			changed |= send_hist(f, a, inst, l, sink);
			continue;
		}
		changed |= a->value != a->last_value;
		a->last_value = a->value;
		if (!a->value && !f->send_zero)
			continue;
		id = labelled(&f->id, l, f->instance_prefix, &with);
		if (f->kind == VALUE_COUNTER)
			sink->counter(sink->ctx, &id, inst, a->value);
		else if (sink->gauge)
			sink->gauge(sink->ctx, &id, inst, (double)a->value);
	}
	if (ratio >= 0 && sink->gauge) /* after the values it is of */
		sink->gauge(sink->ctx, &v->ratio->id, v->ratio->instance, ratio);
	s->idle = changed ? 0 : s->idle + 1;
}

/* `other` less what the reclaimed series had when they were given up (a key that left the
 * map since takes its share with it: `other` then goes back, a discontinuity as any). */
static void uncarry(uint64_t *v, uint64_t carry)
{
	*v = *v > carry ? *v - carry : 0;
}

void series_send_other(struct series_reader *r, const struct metric_sink *sink)
{
	for (int f = 0; f < r->v->nfields; f++) {
		struct field_acc *a = &r->other.acc[f], *c = &r->carry[f];

		uncarry(&a->value, c->value);
		uncarry(&a->sum, c->sum);
		if (a->hist && c->hist)
			for (unsigned int k = 0; k < HIST_NSLOTS(r->v->precision); k++)
				uncarry(&a->hist->slots[k], c->hist->slots[k]);
	}
	series_send_one(r, &r->other, "other", sink);
}
