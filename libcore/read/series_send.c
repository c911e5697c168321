/* A series reader's values sent (series_state.h): each series' fields as counters, gauges
 * and histograms (their deltas tracked), a view's ratio, and `other`. */
#include "libcore/read/series_state.h"

#include "libcore/engine/module.h"
#include "libcore/hist/ratio.h"

#include <stdio.h>
#include <stdlib.h>
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

/* keep_totals (series_view.h): the series' carry, made at its first need; NULL: out of
 * memory (what left is then lost, as without keep_totals). */
static struct field_acc *kept(const struct series_reader *r, struct series *s, int field)
{
	if (!s->carry)
		s->carry = calloc(r->v->nfields, sizeof(*s->carry));
	return s->carry ? &s->carry[field] : NULL;
}

/* keep_totals: a counter whose entries left the map goes on from what it had sent. */
static void keep_counter(const struct series_reader *r, struct series *s, int field)
{
	struct field_acc *a = &s->acc[field], *c = s->carry ? &s->carry[field] : NULL;
	uint64_t now = a->value + (c ? c->value : 0);

	if ((s->absent || now < a->last_value) && (c = kept(r, s, field)))
		c->value = s->absent ? a->last_value : a->last_value - a->value;
	if (c)
		a->value += c->value;
}

/* keep_totals: a histogram whose entries left the map. After a read without entries, all it
 * has is new: the tracker starts again and what it had counted goes into the carry. Else the
 * slots that went back count nothing in this interval (their shortfall into the carry's
 * count, the sum's into its sum), and the interval has no sum. True: a discontinuity of the
 * slots (what SNMP's cumulative buckets show). */
static bool keep_hist(const struct series_reader *r, struct series *s, int field, uint64_t sum, bool *no_sum)
{
	struct field_hist *fh = s->acc[field].hist;
	struct hist_tracker *t = &fh->tracker;
	struct field_acc *c;
	uint64_t lost = 0;

	if (s->absent) {
		if (!t->prev_count || !(c = kept(r, s, field)))
			return false;
		c->value += t->prev_count;
		c->sum += t->prev_sum;
		hist_tracker_init(t, 1, t->precision);
		return true;
	}
	for (unsigned int k = 0; k < HIST_NSLOTS(r->v->precision); k++)
		if (fh->slots[k] < t->prev_slots[k]) {
			lost += t->prev_slots[k] - fh->slots[k];
			t->prev_slots[k] = fh->slots[k];
		}
	if (!lost || !(c = kept(r, s, field)))
		return false;
	t->prev_count -= lost;
	c->value += lost;
	if (sum < t->prev_sum)
		c->sum += t->prev_sum - sum;
	t->prev_sum = sum;
	*no_sum = true;
	return true;
}

/* Sends a histogram field; true when it changed in this read. */
static bool send_hist(const struct series_reader *r, struct series *s, int field, const char *name,
		      const struct metric_sink *sink)
{
	const struct series_field *f = &r->v->fields[field];
	struct field_acc *a = &s->acc[field];
	struct hist_interval h;
	char total[LABEL_VALUE_MAX + 8];
	uint64_t sum, kept_count = 0, kept_sum = 0;
	bool restarted = false, no_sum = f->no_sum;

	if (!a->hist)
		return false; /* no events yet */
	sum = f->source && f->source->sum_to_unit ? f->source->sum_to_unit(f->source->ctx, a->sum) : a->sum;
	if (r->v->keep_totals)
		restarted = keep_hist(r, s, field, sum, &no_sum);
	hist_advance(&a->hist->tracker, a->hist->slots, sum, &h);
	h.no_sum = no_sum;
	h.reset |= restarted;
	if (s->carry && r->v->keep_totals) {
		kept_count = s->carry[field].value;
		kept_sum = s->carry[field].sum;
	}
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
		sink->counter(sink->ctx, f->count_id, total, kept_count + h.total_count);
		if (!f->no_sum) {
			snprintf(total, sizeof(total), "%s-sum", name);
			sink->counter(sink->ctx, f->count_id, total, kept_sum + h.total_sum);
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

void series_send_one(struct series_reader *r, struct series *s, const char *name, const struct metric_sink *sink)
{
	const struct series_view *v = r->v;
	bool changed = false;
	double ratio;

	for (int i = 0; v->keep_totals && i < v->nfields; i++)
		if (v->fields[i].kind == VALUE_COUNTER)
			keep_counter(r, s, i);
	ratio = v->ratio ? ratio_of(v->ratio, s->acc) : -1;
	for (int i = 0; i < v->nfields; i++) {
		const struct series_field *f = &v->fields[i];
		struct field_acc *a = &s->acc[i];
		char buf[LABEL_VALUE_MAX + 64];
		const char *inst = prefixed(f, name, buf, sizeof(buf));

		if (f->kind == VALUE_HISTOGRAM) {
			changed |= send_hist(r, s, i, inst, sink);
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
