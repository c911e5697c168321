#include "plugin/snapshot_record.h"

#include "base/text_append.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The SNMP tables name a value by its metric_id's name (module.h): a user's program's counter
 * or gauge by its map, its histogram by its Type. */
static void sink_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	struct snapshot_module *sm = ctx;

	/* Out of memory drops this value from SNMP only; collectd still gets it. */
	(void)snapshot_module_add_counter(sm, id->name, instance, value);
}

static void sink_gauge(void *ctx, const struct metric_id *id, const char *instance, double value)
{
	struct snapshot_module *sm = ctx;

	if (isfinite(value)) /* a ratio of nothing (NaN) has no row, as collectd has no value */
		(void)snapshot_module_add_gauge(sm, id->name, instance, value);
}

static void sink_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			   const struct hist_interval *h)
{
	struct snapshot_module *sm = ctx;
	struct snapshot_histogram *out = snapshot_module_add_histogram(sm, id->name, instance);

	if (!out)
		return;
	out->unit = unit == HIST_UNIT_NANOSECONDS ? SNAPSHOT_UNIT_NANOSECONDS : SNAPSHOT_UNIT_BYTES;
	out->precision = h->precision;
	out->count = h->total_count;
	out->sum = h->total_sum;
	out->interval_count = h->count;
	out->mean = hist_mean(h);
	out->p50 = hist_percentile(h, 50);
	out->p95 = hist_percentile(h, 95);
	out->p99 = hist_percentile(h, 99);
	/* The slots as the engine has them: index and count; the reader knows the layout. */
	for (unsigned int i = 0; i < h->nslots && h->total_count; i++)
		if (h->total_slots[i] && snapshot_module_add_bucket(sm, i, h->total_slots[i]))
			break; /* out of memory: fewer buckets in SNMP only */
	if (h->reset)
		sm->discontinuity_us = snapshot_now_us();
}

void snapshot_sink_init(struct metric_sink *sink, struct snapshot_module *sm)
{
	snapshot_module_clear_values(sm);
	*sink = (struct metric_sink){ .ctx = sm, .counter = sink_counter, .histogram = sink_histogram,
				      .gauge = sink_gauge };
}

static void describe_methods(const struct module *m, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < m->probes.npoints; i++) {
		const struct probe_point *p = &m->probes.points[i];
		char method[64];

		if (!p->enabled || p->chosen < 0)
			continue;
		text_appendf(buf, len, &used, "%s%s=%s", used ? "," : "", p->name,
			     probe_point_method(p, method, sizeof(method)));
	}
}

static enum snapshot_state state_of(enum module_state s)
{
	switch (s) {
	case MODULE_RUNNING: return SNAPSHOT_STATE_RUNNING;
	case MODULE_DEGRADED: return SNAPSHOT_STATE_DEGRADED;
	case MODULE_FAILED: return SNAPSHOT_STATE_FAILED;
	case MODULE_UNSUPPORTED: return SNAPSHOT_STATE_UNSUPPORTED;
	case MODULE_CONFIGURED: break;
	}
	return SNAPSHOT_STATE_CONFIGURED;
}

void snapshot_record_state(struct snapshot_module *sm, const struct module *m, bool read_failed)
{
	bool running = m->state == MODULE_RUNNING || m->state == MODULE_DEGRADED;

	sm->state = read_failed && running ? SNAPSHOT_STATE_DEGRADED : state_of(m->state);
	snprintf(sm->label, sizeof(sm->label), "%s", m->label);
	snprintf(sm->error, sizeof(sm->error), "%s", m->last_error);
	/* The attach methods are fixed once a module started: formatted for the first records
	 * (the plugin's and the store's, which trade places at every publish), not every read. */
	if (!running || !sm->methods_set) {
		describe_methods(m, sm->methods, sizeof(sm->methods));
		sm->methods_set = running;
	}
}

void snapshot_record_disabled(struct snapshot_module *sm, const struct module_ops *ops, int64_t since_us)
{
	snprintf(sm->label, sizeof(sm->label), "%s", ops->name);
	sm->state = SNAPSHOT_STATE_DISABLED;
	snprintf(sm->error, sizeof(sm->error), "not enabled: add <Module \"%s\"> to <Plugin ebpf>", ops->name);
	sm->methods[0] = '\0';
	sm->discontinuity_us = since_us;
	snapshot_module_clear_values(sm);
}
