/* collectd plugin "ebpf": configuration, one complex read callback per module, dispatch.
 *
 *   LoadPlugin ebpf
 *   <Plugin ebpf>
 *     SnapshotFile "/run/collectd-ebpf/snapshot"
 *     SnapshotGroup "ebpf-snmp"
 *     CollectCost false
 *     CostPeriod 60
 *     <Module "syscalls">
 *       Latency "fsync" "fdatasync"
 *       Percentile 99
 *     </Module>
 *   </Plugin>
 *
 * Every module has its own read callback ("ebpf-<module>"), so a module whose read
 * fails is suspended by collectd alone and never delays the others. All BPF work is in
 * libcore/; this file only translates. After each read the module's values and state also
 * go to the snapshot file the SNMP subagent serves (plugin/snapshot_store.h); modules
 * that could not start, and those not enabled, are published with their state too.
 * Events (an OOM kill, a module going off, drops beginning) become collectd notifications
 * (plugin/notifications.c) and event lines of the snapshot, which the subagent sends as
 * SNMP notifications.
 */
#include "plugin/collectd_api.h"

#include "base/log.h"
#include "libcore/engine/memory_plan.h"
#include "libcore/engine/module.h"
#include "libcore/engine/module_cgroup.h"
#include "libcore/kernel/privileges.h"
#include "libcore/programs/program_module.h"
#include "libcore/engine/cost_window.h"
#include "libcore/engine/cost_control.h"
#include "libcore/engine/cpu_budget.h"
#include "libcore/engine/self_metrics.h"
#include "plugin/snapshot_options.h"
#include "plugin/snapshot_record.h"
#include "plugin/snapshot_store.h"
#include "plugin/notifications.h"
#include "plugin/presentation.h"
#include "plugin/series_seen.h"
#include "base/value_naming.h"
#include "base/label_value.h"
#include "base/text_rule.h"
#include "base/err_max.h"

#include <math.h>
#include <stdarg.h>
#include <time.h>

#define PLUGIN_NAME "ebpf"
#define MAX_MODULES 16

/* What one read of a module dispatches to collectd: its values' common part and times. */
struct dispatch_ctx {
	struct plugin_module *pm;
	value_list_t vl;
	double interval_s; /* since the previous read */
	cdtime_t zero_time; /* where a counter series seen for the first time gets its 0; 0: none */
};

/* One read feeds collectd and the snapshot: a sink that hands every value to both. */
struct tee_ctx {
	struct metric_sink a, b;
};

struct plugin_module {
	struct module *m;
	/* The sink its reads go into, built once when it starts: collectd's, or with a snapshot
	 * the tee into collectd's and the snapshot record's. */
	struct dispatch_ctx d;
	struct tee_ctx tee;
	struct metric_sink sink;
	struct presentation_set pres; /* its Percentile, Bucket, BucketType: one set, or a program's per map */
	cdtime_t last_read; /* monotonic_now(): bucket rates are events per second of real interval */
	struct snapshot_module record; /* this module's part of the snapshot file */
	int64_t discontinuity_us;      /* wall clock of the module's start: counters began at 0 */
	cdtime_t prev_time;            /* cdtime() of the previous read; 0 before the first */
	cdtime_t start_time;           /* cdtime() of the module's start: every counter was 0 */
	struct series_seen seen;       /* the counter series sent so far */
};

/* A module or program configured but not yet handed to a read callback (which then owns
 * it), with how the plugin presents its histograms. */
struct configured_module {
	struct module *m;
	struct presentation_set pres;
};
static struct configured_module configured[MAX_MODULES];
static int nconfigured;
static bool config_seen;
static bool collect_cost; /* CollectCost: each module's programs' run count and time */
static uint64_t kernel_memory_limit = KERNEL_MEMORY_LIMIT_DEFAULT; /* KernelMemoryLimit */
static double cpu_budget = CPU_BUDGET_DEFAULT_NS; /* CpuBudget of <Plugin ebpf>: each module's default */

static bool test_run; /* collectd -T: modules are read, nothing is dispatched */
static struct snapshot_config snapshot_cfg;
static struct snapshot_store *snapshot_store; /* NULL: SnapshotFile "" */

static void log_to_collectd(enum ebpf_log_level level, const char *msg)
{
	static const int map[] = { [EBPF_LOG_ERROR] = LOG_ERR, [EBPF_LOG_WARNING] = LOG_WARNING,
				   [EBPF_LOG_NOTICE] = LOG_NOTICE, [EBPF_LOG_INFO] = LOG_INFO,
				   [EBPF_LOG_DEBUG] = LOG_DEBUG };

	plugin_log(map[level], PLUGIN_NAME " plugin: %s", msg);
}

/* The plugin's own messages reach collectd's log under base/text_rule.h's rule, every one: a
 * configuration error quotes what a user wrote (a <Program>'s YAML key, a module's option),
 * and one call left out would be one forged log line, or a terminal's title set by whoever
 * wrote the file. TEXT_SHOW: what the user wrote keeps its backslashes (a regexp's \d). */
__attribute__((format(printf, 2, 3))) static void plugin_log_escaped(int level, const char *fmt, ...)
{
	char escaped[2048];
	va_list ap;

	va_start(ap, fmt);
	log_vformat(escaped, sizeof(escaped), TEXT_SHOW, fmt, ap);
	va_end(ap);
	plugin_log(level, "%s", escaped);
}
#undef ERROR
#undef WARNING
#undef NOTICE
#undef INFO
#define ERROR(...) plugin_log_escaped(LOG_ERR, __VA_ARGS__)
#define WARNING(...) plugin_log_escaped(LOG_WARNING, __VA_ARGS__)
#define NOTICE(...) plugin_log_escaped(LOG_NOTICE, __VA_ARGS__)
#define INFO(...) plugin_log_escaped(LOG_INFO, __VA_ARGS__)

/* An event: a notification for collectd's consumers, and a line of the snapshot for the
 * subagent's SNMP notifications. */
static void on_event(const struct ebpf_event *e)
{
	notify_collectd(e);
	snapshot_store_add_event(snapshot_store, e);
}

/* ---- configuration -------------------------------------------------------------------- */

static int to_option(const oconfig_item_t *ci, struct option *o, struct opt_value *vals, int max)
{
	if (ci->values_num > max) {
		ERROR(PLUGIN_NAME " plugin: option \"%s\" has %d values, at most %d are accepted", ci->key,
		      ci->values_num, max);
		return -1;
	}
	for (int i = 0; i < ci->values_num; i++) {
		const oconfig_value_t *v = &ci->values[i];

		vals[i] = (struct opt_value){ 0 };
		if (v->type == OCONFIG_TYPE_STRING) {
			vals[i].type = OPT_STRING;
			vals[i].string = v->value.string;
		} else if (v->type == OCONFIG_TYPE_NUMBER) {
			vals[i].type = OPT_NUMBER;
			vals[i].number = v->value.number;
		} else {
			vals[i].type = OPT_BOOLEAN;
			vals[i].boolean = v->value.boolean;
		}
	}
	*o = (struct option){ .key = ci->key, .values = vals, .nvalues = ci->values_num };
	return 0;
}

static bool already_configured(const char *label)
{
	for (int i = 0; i < nconfigured; i++)
		if (!strcasecmp(configured[i].m->label, label))
			return true;
	return false;
}

/* <Module "name"> or <Module "name" "instance">: the instance through *instance (NULL
 * without one). */
static int module_block_names(const oconfig_item_t *ci, const char **instance)
{
	*instance = NULL;
	if (ci->values_num < 1 || ci->values_num > 2 || ci->values[0].type != OCONFIG_TYPE_STRING ||
	    (ci->values_num == 2 && ci->values[1].type != OCONFIG_TYPE_STRING)) {
		ERROR(PLUGIN_NAME " plugin: <Module> takes a quoted module name and optionally an instance name, "
		      "e.g. <Module \"syscalls\"> or <Module \"syscalls\" \"app\">");
		return -1;
	}
	if (ci->values_num == 2) {
		*instance = ci->values[1].value.string;
		/* It becomes part of the plugin instance ("syscalls-app"): a '/' would split
		 * collectd's identifier host/plugin-instance/type-instance, and an empty name would
		 * leave a dangling '-'. */
		if (!(*instance)[0] || strchr(*instance, '/')) {
			ERROR(PLUGIN_NAME " plugin: <Module \"%s\" \"%s\">: the instance name must be non-empty "
			      "and have no '/' (it becomes part of collectd's plugin instance); leave it out or use "
			      "e.g. \"app\"", ci->values[0].value.string, *instance);
			return -1;
		}
	}
	return 0;
}

static const struct module_ops *find_module_ops(const char *name)
{
	const struct module_ops *ops = module_find(name);
	char names[256];

	if (!ops) {
		module_names(names, sizeof(names));
		ERROR(PLUGIN_NAME " plugin: unknown module \"%s\"; valid modules: %s", name, names);
	}
	return ops;
}

/* The module's slot in configured[], or NULL when they are all taken or the label is
 * taken already. */
static struct configured_module *add_configured_module(const struct module_ops *ops, const char *instance)
{
	struct configured_module *c;
	struct module *m;

	if (nconfigured == MAX_MODULES || !(m = module_new(ops, instance))) {
		ERROR(PLUGIN_NAME " plugin: cannot set up module \"%s\" (at most %d <Module> blocks)", ops->name,
		      MAX_MODULES);
		return NULL;
	}
	if (already_configured(m->label)) {
		ERROR(PLUGIN_NAME " plugin: module \"%s\" is configured twice; merge the two <Module> blocks or "
		      "give the second an instance name: <Module \"%s\" \"other\">", m->label, ops->name);
		module_free(m);
		return NULL;
	}
	c = &configured[nconfigured++];
	c->m = m;
	presentation_set_init(&c->pres);
	return c;
}

static int set_module_options(struct configured_module *c, const oconfig_item_t *ci)
{
	for (int i = 0; i < ci->children_num; i++) {
		const oconfig_item_t *child = &ci->children[i];
		struct opt_value vals[64];
		struct option o;
		char err[ERR_MAX];

		if (child->children_num > 0) {
			ERROR(PLUGIN_NAME " plugin: module \"%s\": unexpected block <%s> (modules take options only)",
			      c->m->label, child->key);
			return -1;
		}
		if (to_option(child, &o, vals, 64))
			return -1;
		if (presentation_module_option(&c->pres.all, c->m, &o, err, sizeof(err))) {
			ERROR(PLUGIN_NAME " plugin: module \"%s\": %s", c->m->label, err);
			return -1;
		}
	}
	return 0;
}

/* Options that contradict each other are a configuration error like a bad value, not a
 * module that starts and then stays off. */
static int check_module_options(const struct configured_module *c)
{
	char err[ERR_MAX];

	if (module_check_config(c->m, err, sizeof(err)) || presentation_check(&c->pres.all, err, sizeof(err))) {
		ERROR(PLUGIN_NAME " plugin: module \"%s\": %s", c->m->label, err);
		return -1;
	}
	return 0;
}

static int config_module(const oconfig_item_t *ci)
{
	const struct module_ops *ops;
	const char *instance;
	struct configured_module *c;

	if (module_block_names(ci, &instance))
		return -1;
	ops = find_module_ops(ci->values[0].value.string);
	if (!ops)
		return -1;
	c = add_configured_module(ops, instance);
	if (!c || set_module_options(c, ci))
		return -1;
	return check_module_options(c);
}

/* collectd's block as the core's conf_node tree (values point into collectd's config, which
 * lives until the config callback returns). NULL on a value count over the limit. */
static struct conf_node *to_conf_tree(const oconfig_item_t *ci, struct conf_node *n)
{
	struct opt_value *vals = calloc(ci->values_num ? ci->values_num : 1, sizeof(*vals));
	struct conf_node *kids = calloc(ci->children_num ? ci->children_num : 1, sizeof(*kids));

	if (!vals || !kids || to_option(ci, &n->opt, vals, ci->values_num)) {
		free(vals);
		free(kids);
		return NULL;
	}
	n->children = kids;
	n->nchildren = ci->children_num;
	for (int i = 0; i < ci->children_num; i++)
		if (!to_conf_tree(&ci->children[i], &kids[i]))
			return NULL;
	return n;
}

static void free_conf_tree(struct conf_node *n)
{
	for (int i = 0; i < n->nchildren; i++)
		free_conf_tree((struct conf_node *)&n->children[i]);
	free((void *)n->opt.values);
	free((void *)n->children);
}

static bool collectd_test_run(void);

/* <Program "name">: a user's BPF object, checked now so that collectd -T reports it. The
 * core gets the block without the plugin's keys of its <Histogram> blocks, and refuses any
 * key of neither. */
static int config_program(const oconfig_item_t *ci)
{
	struct conf_node tree = { 0 }, core_tree;
	struct presentation_set pres;
	struct module *m = NULL;
	char err[ERR_MAX];

	if (nconfigured == MAX_MODULES) {
		ERROR(PLUGIN_NAME " plugin: at most %d <Module> and <Program> blocks", MAX_MODULES);
		return -1;
	}
	if (!to_conf_tree(ci, &tree))
		snprintf(err, sizeof(err), "<Program>: cannot read the block");
	else if (!presentation_take_program(&tree, &core_tree, &pres, err, sizeof(err))) {
		m = program_module_new(&core_tree, err, sizeof(err));
		presentation_program_free(&core_tree);
		if (!m) {
			presentation_add_keys(err, sizeof(err));
			presentation_set_free(&pres);
		}
	}
	free_conf_tree(&tree);
	if (!m) {
		ERROR(PLUGIN_NAME " plugin: %s", err);
		return -1;
	}
	if (already_configured(m->label)) {
		ERROR(PLUGIN_NAME " plugin: <Program \"%s\"> is configured twice", m->label);
		module_free(m);
		presentation_set_free(&pres);
		return -1;
	}
	/* An object the loader refuses (missing, unsafe, a forbidden call) leaves the daemon's
	 * program off while the others run; the pre-flight check says so as the error it is. */
	if (collectd_test_run() && program_module_refusal(m)) {
		ERROR(PLUGIN_NAME " plugin: <Program \"%s\">: %s (collectd would start without this program)", m->label,
		      program_module_refusal(m));
		module_free(m);
		presentation_set_free(&pres);
		return -1;
	}
	configured[nconfigured++] = (struct configured_module){ .m = m, .pres = pres };
	return 0;
}

/* collectd hands every <Plugin ebpf> block to the plugin, one call each: their <Module> and
 * <Program> blocks add up (a program's own .conf in collectd.conf.d is a block of its own),
 * and an option of the whole plugin is given once, in whichever block, not overridden by a
 * later one without a word. */
static bool plugin_option_repeated(const char *key)
{
	static const char *const once[] = { "SnapshotFile", "SnapshotGroup", "CollectCost", "CostPeriod", "CpuBudget" };
	static bool given[sizeof(once) / sizeof(once[0])];

	for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
		if (strcasecmp(key, once[i]))
			continue;
		if (given[i]) {
			ERROR(PLUGIN_NAME " plugin: option \"%s\" is given twice; the <Plugin ebpf> blocks are one "
			      "configuration (their modules and programs add up): give it once", once[i]);
			return true;
		}
		given[i] = true;
	}
	return false;
}

/* One plugin-wide option of <Plugin ebpf>: 1 taken, 0 not one of them, -1 wrong (err says
 * why). */
static int plugin_wide_option(const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "CollectCost"))
		return opt_get_boolean(o, &collect_cost, err, errlen) ? -1 : 1;
	if (!strcasecmp(o->key, "CpuBudget"))
		return cpu_budget_parse(o, &cpu_budget, err, errlen) ? -1 : 1;
	if (!strcasecmp(o->key, "CostPeriod"))
		return opt_expect_numbers(o, 1, 1, err, errlen) || cost_window_configure(o->values[0].number, err, errlen)
			       ? -1
			       : 1;
	switch (kernel_memory_limit_option(&kernel_memory_limit, o, err, errlen)) {
	case 1:
		return 1;
	case -1:
		return -1;
	}
	return snapshot_config_option(&snapshot_cfg, o, err, errlen);
}

static int ebpf_config(oconfig_item_t *ci)
{
	config_seen = true;
	for (int i = 0; i < ci->children_num; i++) {
		const oconfig_item_t *child = &ci->children[i];
		struct opt_value vals[4];
		struct option o;
		char err[ERR_MAX];

		if (!strcasecmp(child->key, "Module")) {
			if (config_module(child))
				return -1;
			continue;
		}
		if (!strcasecmp(child->key, "Program")) {
			if (config_program(child))
				return -1;
			continue;
		}
		if (to_option(child, &o, vals, 4) || plugin_option_repeated(child->key))
			return -1;
		switch (plugin_wide_option(&o, err, sizeof(err))) {
		case 1:
			break;
		case 0:
			ERROR(PLUGIN_NAME " plugin: unknown option \"%s\" in <Plugin ebpf>; valid: <Module \"name\">, <Program \"name\">, "
			      "SnapshotFile, SnapshotGroup, CollectCost, CostPeriod, CpuBudget, KernelMemoryLimit", child->key);
			return -1;
		default:
			ERROR(PLUGIN_NAME " plugin: %s", err);
			return -1;
		}
	}
	return 0;
}

/* A bare `LoadPlugin ebpf`, or <Plugin ebpf> without <Module>: the cheap default set. */
static void add_default_modules(void)
{
	for (int i = 0; module_table[i] && nconfigured < MAX_MODULES; i++) {
		struct module *m;

		if (!module_table[i]->in_default_set || !(m = module_new(module_table[i], NULL)))
			continue;
		configured[nconfigured] = (struct configured_module){ .m = m };
		presentation_set_init(&configured[nconfigured++].pres);
	}
	INFO(PLUGIN_NAME " plugin: no <Module> configured, enabling the default set");
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static void submit(struct dispatch_ctx *d, const struct value_name *n, value_t v)
{
	value_list_t vl = d->vl;

	if (test_run)
		return;
	vl.values = &v;
	vl.values_len = 1;
	sstrncpy(vl.type, n->type, sizeof(vl.type));
	/* Its parts are safe names (label_value_safe()); the rule again over the whole, so that
	 * a part cut to collectd's length in the middle of a character leaves no stray byte. */
	text_clean(vl.type_instance, sizeof(vl.type_instance), n->type_instance, TEXT_NAME);
	plugin_dispatch_values(&vl);
}

/* Counters are cumulative since the module started. A series first seen after the module's
 * first read was 0 at the previous read (it had no event then), and a DERIVE's first value
 * yields no rate: so this read sends that 0, at the previous read's time, and the series'
 * values follow from the next read on, whose rate then covers both intervals (rrdtool, csv
 * and write_graphite with StoreRates, the network plugin's receivers). Never two values of
 * one series in one read: collectd's write threads take queued values in any order, and
 * rrdtool drops a value older than one it already has. */
/* A module's value per cgroup (cgroup_rows.h) comes as instance "<cgroup>/<instance>": the
 * cgroup goes into plugin_instance after the module and a dot ("syscalls.system.slice_
 * ssh.service", cut to collectd's length as every label), as collectd's cgroups plugin puts
 * it there. Any other value keeps the module's plugin_instance. Returns the instance left. */
static const char *scope_plugin_instance(struct dispatch_ctx *d, const char *instance)
{
	const char *slash = strchr(instance, '/');
	char raw[2 * DATA_MAX_NAME_LEN + 2];

	if (!slash) {
		sstrncpy(d->vl.plugin_instance, d->pm->m->label, sizeof(d->vl.plugin_instance));
		return instance;
	}
	snprintf(raw, sizeof(raw), "%s.%.*s", d->pm->m->label, (int)(slash - instance), instance);
	label_value_safe(raw, d->vl.plugin_instance);
	return slash + 1;
}

static void sink_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	struct dispatch_ctx *d = ctx;
	struct value_name n;
	const char *rest = scope_plugin_instance(d, instance);
	char seen[2 * DATA_MAX_NAME_LEN + 2];

	name_counter(id->name, id->type, rest, &n);
	/* A per-cgroup series is remembered with its plugin_instance. */
	snprintf(seen, sizeof(seen), "%s%s%s", rest != instance ? d->vl.plugin_instance : "", rest != instance ? "/" : "",
		 n.type_instance);
	if (series_seen_add(&d->pm->seen, n.type, seen) && d->zero_time) {
		cdtime_t now = d->vl.time;

		d->vl.time = d->zero_time;
		submit(d, &n, (value_t){ .derive = 0 });
		d->vl.time = now;
		return;
	}
	submit(d, &n, (value_t){ .derive = (derive_t)value });
}

static void sink_gauge(void *ctx, const struct metric_id *id, const char *instance, double value)
{
	struct value_name n;

	name_gauge(id->name, id->type, scope_plugin_instance(ctx, instance), &n);
	submit(ctx, &n, (value_t){ .gauge = value });
}

static void sink_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			   const struct hist_interval *h)
{
	struct dispatch_ctx *d = ctx;
	const struct presentation *cfg = presentation_for(&d->pm->pres, id->map);
	double scale = unit == HIST_UNIT_NANOSECONDS ? 1e-9 : 1.0; /* collectd wants seconds */
	struct value_name base, n;

	name_histogram(id->name, id->type, scope_plugin_instance(d, instance), &base);
	/* An interval without events has no percentile: send nothing rather than a made-up 0. */
	if (h->count) {
		for (int i = 0; i < cfg->npercentiles; i++) {
			name_percentile(base.type, base.type_instance, cfg->percentiles[i], &n);
			submit(d, &n, (value_t){ .gauge = hist_percentile(h, cfg->percentiles[i]) * scale });
		}
		if (isfinite(hist_mean(h))) { /* histograms without a sum have no mean */
			name_mean(base.type, base.type_instance, &n);
			submit(d, &n, (value_t){ .gauge = hist_mean(h) * scale });
		}
	}
	/* `Bucket` bounds are seconds: they apply to time histograms only, not to sizes. */
	for (int i = 0; i < cfg->nbuckets && d->interval_s > 0 && unit == HIST_UNIT_NANOSECONDS; i++) {
		const struct presentation_bucket *b = &cfg->buckets[i];
		double events = hist_count_between(h, b->lower / scale, b->upper > 0 ? b->upper / scale : INFINITY);

		name_bucket(cfg->bucket_type, base.type_instance, b->lower, b->upper, &n);
		submit(d, &n, (value_t){ .gauge = events / d->interval_s });
	}
}

static void tee_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	struct tee_ctx *t = ctx;

	t->a.counter(t->a.ctx, id, instance, value);
	t->b.counter(t->b.ctx, id, instance, value);
}

static void tee_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			  const struct hist_interval *h)
{
	struct tee_ctx *t = ctx;

	t->a.histogram(t->a.ctx, id, instance, unit, h);
	t->b.histogram(t->b.ctx, id, instance, unit, h);
}

/* Gauges (map fill, attach methods, hit ratios, the approximation flag) go to the MIB's
 * gauge table too: a map's fill cannot be derived from counters. */
static void tee_gauge(void *ctx, const struct metric_id *id, const char *instance, double value)
{
	struct tee_ctx *t = ctx;

	t->a.gauge(t->a.ctx, id, instance, value);
	t->b.gauge(t->b.ctx, id, instance, value);
}

/* The sink of every read of pm: collectd's, and with a snapshot the tee into it and the
 * record (snapshot_sink_init(); each read clears the record's values). */
static void build_sink(struct plugin_module *pm)
{
	pm->sink = (struct metric_sink){ .ctx = &pm->d, .counter = sink_counter, .histogram = sink_histogram,
					 .gauge = sink_gauge };
	if (!snapshot_store)
		return;
	pm->tee.a = pm->sink;
	snapshot_sink_init(&pm->tee.b, &pm->record);
	pm->sink = (struct metric_sink){ .ctx = &pm->tee, .counter = tee_counter, .histogram = tee_histogram,
					 .gauge = tee_gauge };
}

/* The module's state and values into its record, then the record into the file. */
static void publish(struct plugin_module *pm, bool read_failed)
{
	pm->record.discontinuity_us = pm->discontinuity_us;
	snapshot_record_state(&pm->record, pm->m, read_failed);
	snapshot_store_publish(snapshot_store, &pm->record);
}

/* The interval between reads, immune to wall-clock steps: cdtime() is CLOCK_REALTIME, and
 * a step back made now - last_read wrap to centuries (bucket rates of 0), a step forward
 * made them too low. */
static cdtime_t monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return TIMESPEC_TO_CDTIME_T(&ts);
}

static int ebpf_read(user_data_t *ud)
{
	struct plugin_module *pm = ud->data;
	cdtime_t now = cdtime(), mono = monotonic_now();
	struct dispatch_ctx *d = &pm->d;
	int err;

	/* rrdtool keeps whole seconds (the rrdtool plugin rounds each value's time) and refuses
	 * a second update in one second ("minimum one second step"), losing it. A late read
	 * followed by the next one on time can fall in one whole second (Interval 1 on a loaded
	 * machine: 56 updates refused in one run). Such a read is left to the next one: the
	 * counters are cumulative and the histograms' deltas are taken then, so nothing is lost. */
	if (pm->prev_time && CDTIME_T_TO_TIME_T(now) == CDTIME_T_TO_TIME_T(pm->prev_time))
		return 0;
	*d = (struct dispatch_ctx){ .pm = pm, .vl = VALUE_LIST_INIT };
	d->interval_s = CDTIME_T_TO_DOUBLE(mono - pm->last_read);
	/* Series present at the first read: every counter was 0 when the module started, so
	 * their 0 is at the start's time, as a later series' is at the previous read's (else
	 * every collectd start lost up to an interval of every counter in the graphs). The
	 * series' value follows at the next read: the zero must be a whole second before it
	 * (rrdtool keeps whole seconds), which with an Interval under a second it may not be. */
	if (pm->prev_time && now - pm->prev_time >= DOUBLE_TO_CDTIME_T(1.0))
		d->zero_time = pm->prev_time;
	else if (!pm->prev_time && now + plugin_get_interval() - pm->start_time >= DOUBLE_TO_CDTIME_T(1.0))
		d->zero_time = pm->start_time;
	sstrncpy(d->vl.plugin, PLUGIN_NAME, sizeof(d->vl.plugin));
	sstrncpy(d->vl.plugin_instance, pm->m->label, sizeof(d->vl.plugin_instance));
	d->vl.time = now;
	if (snapshot_store) {
		pm->record.discontinuity_us = pm->discontinuity_us;
		snapshot_module_clear_values(&pm->record);
		/* At every read: publishing swaps the record with the store's. A per-who row's
		 * group is a command's with By "command". */
		pm->record.group_label = pm->m->cgroup && pm->m->cgroup->opts.command ? "command" : NULL;
	}
	err = module_read(pm->m, &pm->sink);
	pm->last_read = mono;
	pm->prev_time = now;
	if (snapshot_store) {
		pm->discontinuity_us = pm->record.discontinuity_us; /* a histogram reset moves it */
		publish(pm, err != 0);
	}
	return err ? -1 : 0;
}

static void free_plugin_module(void *p)
{
	struct plugin_module *pm = p;

	module_free(pm->m);
	presentation_set_free(&pm->pres);
	snapshot_module_release(&pm->record);
	series_seen_free(&pm->seen);
	free(pm);
}

/* A module that could not start, or that no <Module> enabled, is published once with its
 * state and error, so that SNMP shows why it has no values. */
static void publish_off_module(const struct module *m, const struct module_ops *disabled, int64_t since)
{
	struct snapshot_module rec = { 0 };

	if (!snapshot_store)
		return;
	if (disabled) {
		snapshot_record_disabled(&rec, disabled, since);
	} else {
		rec.discontinuity_us = since;
		snapshot_record_state(&rec, m, false);
	}
	snapshot_store_publish(snapshot_store, &rec);
	snapshot_module_release(&rec);
}

static void publish_disabled_modules(const struct configured_module *mods, int n, int64_t since)
{
	for (int i = 0; module_table[i]; i++) {
		bool enabled = false;

		for (int j = 0; j < n && !enabled; j++)
			enabled = mods[j].m->ops == module_table[i];
		if (!enabled)
			publish_off_module(NULL, module_table[i], since);
	}
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

/* `collectd -T` (test the plugins' read once, then exit) sets ReadThreads to -1. A check
 * must not touch the state a running collectd publishes: no snapshot from a test run. */
static bool collectd_test_run(void)
{
	const char *threads = global_option_get("ReadThreads");

	return threads && atoi(threads) == -1;
}

/* KernelMemoryLimit: every module's maps planned before any loads, precisions lowered or
 * modules refused to fit (memory_plan.h); the plan is logged, so `collectd -T` prints it,
 * each module's CpuBudget and what it would do over it beside (cost_control.h). */
static int plan_kernel_memory(struct memory_plan *plan)
{
	struct module *mods[MAX_MODULES];
	char lim[32], tot[32], line[1024], budget[256];

	for (int i = 0; i < nconfigured; i++)
		mods[i] = configured[i].m;
	if (memory_plan_make(plan, mods, nconfigured, kernel_memory_limit)) {
		ERROR(PLUGIN_NAME " plugin: cannot plan the modules' kernel memory: %s", strerror(ENOMEM));
		return -1;
	}
	NOTICE(PLUGIN_NAME " plugin: kernel memory plan at %d possible CPUs: %s of KernelMemoryLimit %s",
	       plan->possible_cpus, memory_bytes_text(plan->total, tot, sizeof(tot)),
	       memory_bytes_text(plan->limit, lim, sizeof(lim)));
	for (int i = 0; i < nconfigured; i++) {
		memory_plan_describe(plan, i, line, sizeof(line));
		NOTICE(PLUGIN_NAME " plugin: kernel memory plan: %s", line);
		NOTICE(PLUGIN_NAME " plugin: cpu budget: %s: %s", configured[i].m->label,
		       cost_control_describe(configured[i].m, budget, sizeof(budget)));
	}
	return 0;
}

/* `collectd -T` publishes no snapshot and dispatches nothing (collectd_test_run). */
static void enter_test_run(void)
{
	if (collectd_test_run() && snapshot_cfg.path[0]) {
		INFO(PLUGIN_NAME " plugin: collectd -T: a test run publishes no SNMP snapshot (%s is left as it is)",
		     snapshot_cfg.path);
		snapshot_cfg.path[0] = '\0';
	}
	/* collectd -T runs every read callback once and hands what they dispatch to the writers:
	 * a check would write RRD and CSV files, and a daemon started within the same second
	 * then has its first update refused by rrdtool ("minimum one second step"). */
	test_run = collectd_test_run();
	if (test_run)
		INFO(PLUGIN_NAME " plugin: collectd -T: every module is read once, its values go to no writer");
}

static void open_snapshot_store(void)
{
	snapshot_store = snapshot_store_new(&snapshot_cfg);
	if (snapshot_store)
		INFO(PLUGIN_NAME " plugin: publishing module values and states for SNMP in %s", snapshot_cfg.path);
}

/* types.db is read only after the configuration (unless TypesDB names it), so the
 * BucketType can be checked here, not while its option is parsed. */
static int check_bucket_type(const struct configured_module *c, const char *map, const struct presentation *h)
{
	if (h->nbuckets > 0 && !plugin_get_ds(h->bucket_type)) {
		ERROR(PLUGIN_NAME " plugin: module \"%s\": %s%s%sBucketType \"%s\" is not a type in collectd's "
		      "types.db; use \"bucket\" (the default) or add the type with a TypesDB file",
		      c->m->label, map ? "<Histogram \"" : "", map ? map : "", map ? "\">: " : "", h->bucket_type);
		return -1;
	}
	return 0;
}

/* A module's one set, and each of a program's histograms that has its own. */
static int check_bucket_types(void)
{
	for (int i = 0; i < nconfigured; i++) {
		const struct presentation_set *s = &configured[i].pres;

		if (check_bucket_type(&configured[i], NULL, &s->all))
			return -1;
		for (int j = 0; j < s->nmaps; j++)
			if (check_bucket_type(&configured[i], s->maps[j].map, &s->maps[j].p))
				return -1;
	}
	return 0;
}

/* Before the modules start, so that their first read already has the cost. */
static void start_cost_collection(void)
{
	char err[ERR_MAX];

	if (!collect_cost)
		return;
	if (self_metrics_cost_start(err, sizeof(err)))
		ERROR(PLUGIN_NAME " plugin: %s", err);
	else
		INFO(PLUGIN_NAME " plugin: CollectCost: each module sends its programs' run count and time");
}

/* Starts configured module i as the plan allows and takes it from configured[]. NULL when
 * the plan refused it or it could not start (both published as off), or out of memory. */
static struct plugin_module *start_module(int i, const struct memory_plan *plan, int64_t now_us)
{
	struct module *m = configured[i].m;
	struct plugin_module *pm;

	if (plan->refused[i])
		module_refuse(m, plan->errors[i]);
	if (plan->refused[i] || module_start(m)) { /* logged once by the core, with the fix */
		publish_off_module(m, NULL, now_us);
		return NULL;
	}
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	configured[i].m = NULL;
	pm->m = m;
	pm->pres = configured[i].pres; /* the read callback owns it now */
	presentation_set_init(&configured[i].pres);
	pm->last_read = monotonic_now();
	pm->start_time = cdtime();
	pm->discontinuity_us = snapshot_now_us();
	build_sink(pm);
	if (snapshot_store)
		publish(pm, false);
	return pm;
}

/* collectd schedules a read callback's first read at its registration and the next one
 * an interval after that, however late the first ran. Registered as each module started,
 * the first modules' first reads waited for the later modules' loads (a second under
 * load), and their second reads followed within the same second: rrdtool refused those
 * ("minimum one second step") and a series born then lost its first interval. So every
 * module's read is registered once all have started. */
static void register_reads(struct plugin_module **running, int n)
{
	for (int i = 0; i < n; i++) {
		char cb_name[128];

		snprintf(cb_name, sizeof(cb_name), PLUGIN_NAME "-%s", running[i]->m->label);
		plugin_register_complex_read(NULL, cb_name, ebpf_read, 0,
					     &(user_data_t){ .data = running[i], .free_func = free_plugin_module });
	}
}

/* Plans the kernel memory, starts what fits and registers their reads: the number started,
 * -1 when no plan could be made. */
static int start_modules(int64_t now_us)
{
	struct memory_plan plan;
	struct plugin_module *running[MAX_MODULES];
	int started = 0;

	if (plan_kernel_memory(&plan))
		return -1;
	for (int i = 0; i < nconfigured; i++) {
		struct plugin_module *pm = start_module(i, &plan, now_us);

		if (pm)
			running[started++] = pm;
	}
	register_reads(running, started);
	memory_plan_free(&plan);
	return started;
}

/* Frees the modules that did not start (the read callbacks own the others) and says how
 * many run; -1 when none does. */
static int finish_start(int started, int total)
{
	for (int i = 0; i < nconfigured; i++) {
		module_free(configured[i].m); /* the ones that did not start */
		presentation_set_free(&configured[i].pres);
	}
	nconfigured = 0;
	if (started == 0) {
		ERROR(PLUGIN_NAME " plugin: none of the %d configured module%s could start (see the errors above)",
		      total, total == 1 ? "" : "s");
		return -1;
	}
	INFO(PLUGIN_NAME " plugin: %d of %d module%s running", started, total, total == 1 ? "" : "s");
	return 0;
}

/* The modules loaded: what the non-root setup grants collectd as ambient capabilities (CAP_BPF,
 * CAP_PERFMON, CAP_DAC_READ_SEARCH) is kept in its own effective set and cleared from what a
 * program it runs inherits (exec's Exec and NotificationExec run as collectd's user there). */
static void drop_inheritable_capabilities(void)
{
	int left = privileges_clear_inheritable();

	if (left)
		WARNING(PLUGIN_NAME " plugin: could not clear the ambient capabilities of %d of collectd's threads%s: "
			"a program collectd runs from %s may inherit CAP_BPF, CAP_PERFMON or CAP_DAC_READ_SEARCH",
			left < 0 ? 1 : left, left < 0 ? " (no signal handler)" : " (they did not answer a signal in 1 s)",
			left < 0 ? "another thread" : "them");
}

static int ebpf_init(void)
{
	int started, total;
	int64_t now_us = snapshot_now_us();

	ebpf_log_set_handler(log_to_collectd);
	ebpf_event_set_handler(on_event);
	if (!config_seen || nconfigured == 0)
		add_default_modules();
	total = nconfigured;
	enter_test_run();
	open_snapshot_store();
	if (check_bucket_types())
		return -1;
	start_cost_collection();
	cost_control_default_budget(cpu_budget);
	publish_disabled_modules(configured, nconfigured, now_us);
	started = start_modules(now_us);
	drop_inheritable_capabilities();
	if (started < 0)
		return -1;
	return finish_start(started, total);
}

/* Read callbacks own the running modules (freed through free_func); this frees the ones
 * that never got that far, e.g. under `collectd -t`. */
static int ebpf_shutdown(void)
{
	for (int i = 0; i < nconfigured; i++) {
		module_free(configured[i].m);
		presentation_set_free(&configured[i].pres);
	}
	nconfigured = 0;
	snapshot_store_free(snapshot_store);
	snapshot_store = NULL;
	cost_window_stop();
	self_metrics_cost_stop();
	return 0;
}

void module_register(void)
{
	snapshot_config_init(&snapshot_cfg);
	plugin_register_complex_config(PLUGIN_NAME, ebpf_config);
	plugin_register_init(PLUGIN_NAME, ebpf_init);
	plugin_register_shutdown(PLUGIN_NAME, ebpf_shutdown);
}
