#include "plugin/snapshot_record.h"

#include "base/text_append.h"
#include "libcore/programs/program_module.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A label name as the snapshot takes it (snapshot_label_name_ok()): what is not
 * [A-Za-z0-9_] as '_', a leading digit after '_'. */
static void label_name(const char *in, char out[SNAPSHOT_LABEL_NAME_MAX])
{
	size_t o = 0;

	if (*in >= '0' && *in <= '9')
		out[o++] = '_';
	for (; *in && o + 1 < SNAPSHOT_LABEL_NAME_MAX; in++)
		out[o++] = (*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') || (*in >= '0' && *in <= '9')
				   ? *in : '_';
	out[o] = '\0';
	if (!o)
		snprintf(out, SNAPSHOT_LABEL_NAME_MAX, "_");
}

/* The labels of the next record: the series' own (id->labels), else what its instance says
 * ("<cgroup>/<rest>": "cgroup", or "command" with By "command", and "kind"; else "kind"). A label that does not fit (a name
 * given twice) is left out: the instance still has it all. */
static void stage_labels(struct snapshot_module *sm, const struct metric_id *id, const char *instance)
{
	const struct metric_labels *l = id->labels;
	const char *slash = strchr(instance, '/');
	char name[SNAPSHOT_LABEL_NAME_MAX], group[128];

	/* The names its source gives it (ebpf_exporter's), for the Prometheus endpoint */
	if (id->family)
		(void)snapshot_module_label(sm, "@family", id->family);
	if (id->help)
		(void)snapshot_module_label(sm, "@help", id->help);

	if (!l) {
		if (slash) {
			snprintf(group, sizeof(group), "%.*s", (int)(slash - instance), instance);
			(void)snapshot_module_label(sm, sm->group_label ? sm->group_label : "cgroup", group);
		}
		if (*(slash ? slash + 1 : instance))
			(void)snapshot_module_label(sm, "kind", slash ? slash + 1 : instance);
		return;
	}
	if (l->group)
		(void)snapshot_module_label(sm, sm->group_label ? sm->group_label : "cgroup", l->group);
	for (int i = 0; i < l->n; i++) {
		label_name(l->names[i], name);
		(void)snapshot_module_label(sm, name, l->values[i]);
	}
}

/* The SNMP tables name a value by its metric_id's name (module.h): a user's program's counter
 * or gauge by its map, its histogram by its Type. */
static void sink_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	struct snapshot_module *sm = ctx;

	stage_labels(sm, id, instance);
	/* Out of memory drops this value from SNMP only; collectd still gets it. */
	(void)snapshot_module_add_counter(sm, id->name, instance, value);
}

static void sink_gauge(void *ctx, const struct metric_id *id, const char *instance, double value)
{
	struct snapshot_module *sm = ctx;

	if (!isfinite(value)) /* a ratio of nothing (NaN) has no row, as collectd has no value */
		return;
	stage_labels(sm, id, instance);
	(void)snapshot_module_add_gauge(sm, id->name, instance, value);
}

/* The histogram's own buckets (id->bounds): each one's count, the slots' up to its last.
 * The first that cannot be added ends them (the endpoint then has fewer, never wrong ones). */
static void add_bounds(struct snapshot_module *sm, const struct metric_id *id, const struct hist_interval *h)
{
	uint64_t below = 0;
	unsigned int slot = 0;

	for (int b = 0; b < id->nbounds; b++) {
		for (; slot <= id->bounds[b].slot && slot < h->nslots; slot++)
			below += h->total_slots[slot];
		if (snapshot_module_add_bound(sm, id->bounds[b].le, below))
			break;
	}
}

static void sink_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			   const struct hist_interval *h)
{
	struct snapshot_module *sm = ctx;
	struct snapshot_histogram *out;

	stage_labels(sm, id, instance);
	out = snapshot_module_add_histogram(sm, id->name, instance);

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
	add_bounds(sm, id, h);
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

/* A running program of an ebpf_exporter config: ebpf_exporter's ebpf_exporter_enabled_configs
 * for it, named as ebpf_exporter names a config (its YAML's file name without .yaml), for
 * the Prometheus endpoint. */
static void record_exporter_config(struct snapshot_module *sm, const struct module *m)
{
	const char *path = program_module_exporter_config(m), *base;
	char name[SNAPSHOT_LABEL_VALUE_MAX];
	size_t n;

	if (!path)
		return;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".yaml"))
		n -= 5;
	snprintf(name, sizeof(name), "%.*s", (int)n, base);
	(void)snapshot_module_label(sm, "@family", "ebpf_exporter_enabled_configs");
	(void)snapshot_module_label(sm, "@help", "The set of enabled configs");
	(void)snapshot_module_label(sm, "name", name);
	(void)snapshot_module_add_gauge(sm, "enabled_configs", name, 1);
}

void snapshot_record_state(struct snapshot_module *sm, const struct module *m, bool read_failed)
{
	bool running = m->state == MODULE_RUNNING || m->state == MODULE_DEGRADED;

	sm->state = read_failed && running ? SNAPSHOT_STATE_DEGRADED : state_of(m->state);
	snprintf(sm->label, sizeof(sm->label), "%s", m->label);
	text_printf_cut(sm->error, sizeof(sm->error), "%s", m->last_error);
	/* The attach methods are fixed once a module started: formatted for the first records
	 * (the plugin's and the store's, which trade places at every publish), not every read. */
	if (!running || !sm->methods_set) {
		describe_methods(m, sm->methods, sizeof(sm->methods));
		sm->methods_set = running;
	}
	if (running)
		record_exporter_config(sm, m);
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
