#include "tests/support/recording_sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct recorded_value *append(struct recording *r, enum recorded_kind kind, const struct metric_id *id,
				     const char *instance)
{
	struct recorded_value *v;

	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 64;
		struct recorded_value *grown = realloc(r->values, (size_t)cap * sizeof(*grown));

		if (!grown) {
			r->failed = true;
			return NULL;
		}
		r->values = grown;
		r->cap = cap;
	}
	v = &r->values[r->n++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	snprintf(v->metric, sizeof(v->metric), "%s", id->name);
	snprintf(v->type, sizeof(v->type), "%s", id->type ? id->type : "");
	snprintf(v->instance, sizeof(v->instance), "%s", instance);
	return v;
}

static void on_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	struct recorded_value *v = append(ctx, RECORDED_COUNTER, id, instance);

	if (v)
		v->counter = value;
}

static void on_gauge(void *ctx, const struct metric_id *id, const char *instance, double value)
{
	struct recorded_value *v = append(ctx, RECORDED_GAUGE, id, instance);

	if (v)
		v->gauge = value;
}

static void on_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			 const struct hist_interval *h)
{
	struct recording *r = ctx;
	struct recorded_value *v = append(r, RECORDED_HISTOGRAM, id, instance);

	if (!v)
		return;
	v->unit = unit;
	v->hist = malloc(sizeof(*v->hist));
	if (!v->hist) {
		r->failed = true;
		r->n--;
		return;
	}
	*v->hist = *h;
	v->hist->total_slots = NULL; /* the tracker's, valid only during this call */
}

struct metric_sink recording_sink(struct recording *r)
{
	return (struct metric_sink){ .ctx = r, .counter = on_counter, .histogram = on_histogram, .gauge = on_gauge };
}

void recording_clear(struct recording *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->values[i].hist);
	r->n = 0;
	r->failed = false;
}

int recording_read(struct recording *r, struct module *m)
{
	struct metric_sink sink = recording_sink(r);

	recording_clear(r);
	return module_read(m, &sink);
}

void recording_free(struct recording *r)
{
	recording_clear(r);
	free(r->values);
	r->values = NULL;
	r->cap = 0;
}

static bool matches(const struct recorded_value *v, enum recorded_kind kind, const char *metric, const char *instance)
{
	return v->kind == kind && (!metric || !strcmp(v->metric, metric)) && (!instance || !strcmp(v->instance, instance));
}

const struct recorded_value *recorded(const struct recording *r, enum recorded_kind kind, const char *metric,
				      const char *instance)
{
	for (int i = r->n - 1; i >= 0; i--)
		if (matches(&r->values[i], kind, metric, instance))
			return &r->values[i];
	return NULL;
}

int recorded_count(const struct recording *r, enum recorded_kind kind, const char *metric, const char *instance)
{
	int n = 0;

	for (int i = 0; i < r->n; i++)
		n += matches(&r->values[i], kind, metric, instance);
	return n;
}

uint64_t recorded_counter(const struct recording *r, const char *metric, const char *instance)
{
	const struct recorded_value *v = recorded(r, RECORDED_COUNTER, metric, instance);

	return v ? v->counter : 0;
}

bool recorded_gauge(const struct recording *r, const char *metric, const char *instance, double *value)
{
	const struct recorded_value *v = recorded(r, RECORDED_GAUGE, metric, instance);

	if (v)
		*value = v->gauge;
	return v != NULL;
}

const struct hist_interval *recorded_histogram(const struct recording *r, const char *metric, const char *instance,
					       enum hist_unit unit)
{
	for (int i = r->n - 1; i >= 0; i--)
		if (matches(&r->values[i], RECORDED_HISTOGRAM, metric, instance) && r->values[i].unit == unit)
			return r->values[i].hist;
	return NULL;
}
