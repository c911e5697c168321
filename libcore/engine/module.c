#include "libcore/engine/module_cgroup.h"
#include "libcore/engine/module.h"

#include "base/log.h"
#include "libcore/engine/map_layout.h"
#include "libcore/engine/cost_window.h"
#include "libcore/engine/cost_control.h"
#include "libcore/engine/cpu_budget.h"
#include "libcore/engine/self_metrics.h"
#include "libcore/engine/witness.h"
#include "base/text_append.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The keys every module takes, after its own: what to attach with, how finely to record,
 * whether its witnesses run (refused where it has none). */
static const char *const common_options[] = { "AttachOrder", HIST_PRECISION_KEY, "Witness", "CpuBudget", NULL };

const struct module_ops *module_find(const char *name)
{
	for (int i = 0; module_table[i]; i++)
		if (!strcasecmp(module_table[i]->name, name))
			return module_table[i];
	return NULL;
}

void module_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; module_table[i]; i++)
		text_appendf(buf, len, &used, "%s%s", i ? ", " : "", module_table[i]->name);
}

/* The descriptor's points as the probe set's state: enabled unless marked off, nothing
 * chosen yet. */
static int copy_points(struct module *m)
{
	const struct module_ops *ops = m->ops;

	if (!ops->npoints)
		return 0;
	m->probes.points = calloc(ops->npoints, sizeof(*m->probes.points));
	if (!m->probes.points)
		return -ENOMEM;
	for (int i = 0; i < ops->npoints; i++)
		m->probes.points[i] = (struct probe_point){ .name = ops->points[i].name,
							    .candidates = ops->points[i].candidates,
							    .ncandidates = ops->points[i].ncandidates,
							    .enabled = !ops->points[i].off,
							    .chosen = -1 };
	m->probes.npoints = ops->npoints;
	return 0;
}

struct module *module_new(const struct module_ops *ops, const char *instance)
{
	struct module *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->ops = ops;
	m->state = MODULE_CONFIGURED;
	if (instance && instance[0])
		snprintf(m->label, sizeof(m->label), "%s-%s", ops->name, instance);
	else
		snprintf(m->label, sizeof(m->label), "%s", ops->name);
	m->probes.module = m->label;
	m->probes.witness_off = ops->witness_opt_in;
	hist_config_init(&m->hist);
	hist_config_init(&m->cgroup_hist);
	if ((ops->priv_size && !(m->priv = calloc(1, ops->priv_size))) || copy_points(m) ||
	    (ops->by_cgroup && !(m->cgroup = module_cgroup_new(ops)))) {
		module_free(m);
		return NULL;
	}
	if (ops->create)
		ops->create(m);
	return m;
}

static int set_attach_order(struct module *m, const struct option *o, char *err, size_t errlen)
{
	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	if (o->nvalues > ATTACH_METHOD_COUNT) {
		snprintf(err, errlen, "AttachOrder lists %d methods, there are only %d", o->nvalues, ATTACH_METHOD_COUNT);
		return -1;
	}
	m->probes.norder = 0;
	for (int i = 0; i < o->nvalues; i++) {
		enum attach_method am;

		if (attach_method_parse(o->values[i].string, &am)) {
			snprintf(err, errlen,
				 "AttachOrder: unknown method \"%s\"; valid: tp_btf, raw_tp, tracepoint, fentry, kprobe",
				 o->values[i].string);
			return -1;
		}
		m->probes.order[m->probes.norder++] = am;
	}
	return 0;
}

/* True when a point of the descriptor has a witnessed candidate (witness.h). */
static bool has_witness(const struct module_ops *ops)
{
	for (int i = 0; i < ops->npoints; i++)
		for (int j = 0; j < ops->points[i].ncandidates; j++)
			if (ops->points[i].candidates[j].witnesses)
				return true;
	return false;
}

/* `Witness true|false`: whether the witnesses run; a module without any is told so
 * rather than accepted, since the user would then wait for an "untraced" never sent. The
 * modules that have them are named from the module table. */
static int set_witness(struct module *m, const struct option *o, char *err, size_t errlen)
{
	bool on;

	if (!has_witness(m->ops)) {
		char names[256];
		size_t used = 0;
		int last = -1;

		names[0] = '\0';
		for (int i = 0; module_table[i]; i++) {
			if (!has_witness(module_table[i]))
				continue;
			if (last >= 0)
				text_appendf(names, sizeof(names), &used, "%s%s", used ? ", " : "", module_table[last]->name);
			last = i;
		}
		if (last >= 0)
			text_appendf(names, sizeof(names), &used, "%s%s", used ? " and " : "", module_table[last]->name);
		snprintf(err, errlen, "Witness: the %s module has no witness programs (%s have them); remove the option",
			 m->ops->name, names);
		return -1;
	}
	if (opt_get_boolean(o, &on, err, errlen))
		return -1;
	m->probes.witness_off = !on;
	return 0;
}

/* The module's own keys, then the common ones, as the options table or option_names has
 * them: in keys (room for `room` entries and the NULL). */
static void option_keys(const struct module *m, const char **keys, int room)
{
	int n = 0;

	for (int i = 0; m->ops->options && m->ops->options[i].key && n < room; i++)
		keys[n++] = m->ops->options[i].key;
	for (int i = 0; !m->ops->options && m->ops->option_names && m->ops->option_names[i] && n < room; i++)
		keys[n++] = m->ops->option_names[i];
	for (int i = 0; common_options[i] && n < room; i++)
		if (strcmp(common_options[i], "Witness") || has_witness(m->ops)) /* not offered where refused */
			keys[n++] = common_options[i];
	keys[n] = NULL;
}

#define MODULE_MAX_KEYS 64

/* The set_option hook for a key of the module's own: 1 taken, -1 a bad value, 0 (unknown)
 * without a hook. */
static int hook_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	if (!m->ops->set_option)
		return 0;
	return m->ops->set_option(m, o, err, errlen) ? -1 : 1;
}

/* The module's own key: 1 taken, 0 not one of its keys, -1 a bad value. */
static int module_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	const struct module_option *opt = m->ops->options;

	for (int i = 0; !opt && m->ops->option_names && m->ops->option_names[i]; i++)
		if (!strcasecmp(o->key, m->ops->option_names[i]))
			return hook_option(m, o, err, errlen);
	for (; opt && opt->key; opt++) {
		int r;

		if (strcasecmp(o->key, opt->key))
			continue;
		if (opt->kind == MODOPT_BOOL)
			return opt_get_boolean(o, (bool *)((char *)m->priv + opt->offset), err, errlen) ? -1 : 1;
		if (m->cgroup && (r = module_cgroup_set_option(m->cgroup, o, err, errlen)))
			return r; /* a cgroup key the table lists */
		return hook_option(m, o, err, errlen);
	}
	return 0;
}

int module_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	const char *keys[MODULE_MAX_KEYS + 1];
	int r;

	if (!strcasecmp(o->key, "AttachOrder"))
		return set_attach_order(m, o, err, errlen);
	if (!strcasecmp(o->key, "Witness"))
		return set_witness(m, o, err, errlen);
	if (!strcasecmp(o->key, "CpuBudget"))
		return cpu_budget_parse(o, &m->cpu_budget, err, errlen);
	r = hist_config_option(&m->hist, o, err, errlen);
	if (r)
		return r < 0 ? -1 : 0;
	r = module_option(m, o, err, errlen);
	if (r)
		return r < 0 ? -1 : 0;
	option_keys(m, keys, MODULE_MAX_KEYS);
	opt_refuse_unknown(o->key, keys, "valid options", err, errlen);
	return -1;
}

int module_check_config(struct module *m, char *err, size_t errlen)
{
	int r = m->ops->check_config ? m->ops->check_config(m, err, errlen) : 0;

	return r || !m->cgroup ? r : module_cgroup_check(m->cgroup, err, errlen);
}

/* The prepare hook, then the per-cgroup histogram rows it sized (their precision's budget). */
static int prepare(struct module *m, char *err, size_t errlen)
{
	int r = m->ops->prepare ? m->ops->prepare(m, err, errlen) : 0;

	if (!r && m->cgroup)
		module_cgroup_prepare(m, m->cgroup);
	return r;
}

/* The probe set's view of the module's BPF object: opened from its ELF bytes (a built-in's
 * as its skeleton embeds them, X_bpf__elf_bytes; a user's checked object), filter_tgid, the
 * histogram precision, bare histogram rows' size and the module's own rodata set by name
 * before load (module_rodata checks each one's size; the engine's are optional, a module's
 * own are required by its configure hook; both kinds of names are checked when compiled,
 * object_names.h). Reopened by probe.c each time a candidate fails. */
static struct bpf_object *object_open(void *ctx)
{
	struct module *m = ctx;
	char name[64];
	size_t size;
	const void *bytes = m->elf ? m->elf : m->ops->elf_bytes(&size);
	uint32_t *filter_tgid, *hist_precision;
	bool *witness_on;
	int e;

	if (m->elf)
		size = m->elf_size;
	/* Named as the skeleton names it, so map names ("<name>_bpf.rodata") are the same. */
	snprintf(name, sizeof(name), "%s_bpf", m->ops->name);
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = name);
	m->obj = bpf_object__open_mem(bytes, size, &opts);
	if (!m->obj)
		return NULL;
	filter_tgid = ENGINE_RODATA(m->obj, filter_tgid);
	if (filter_tgid)
		*filter_tgid = m->filter_tgid;
	hist_precision = ENGINE_RODATA(m->obj, hist_precision);
	if (hist_precision)
		*hist_precision = m->precision;
	/* cgroup_hist_precision is By "cgroup"'s: set with its tables (cgroup_rows_configure). */
	witness_on = ENGINE_RODATA(m->obj, witness_on);
	if (witness_on)
		*witness_on = !m->probes.witness_off;
	e = views_size_rows(m, m->obj);
	if (!e && m->ops->configure && m->ops->configure(m, m->obj, m->refusal, sizeof(m->refusal)))
		e = -EINVAL; /* its message in m->refusal, which module_start() reports */
	if (!e && m->cgroup)
		e = module_cgroup_configure(m, m->obj, m->cgroup);
	if (!e) /* once the maps have their sizes */
		e = map_layout_plan(m, m->obj);
	if (e) {
		bpf_object__close(m->obj);
		m->obj = NULL;
		errno = -e;
		return NULL;
	}
	return m->obj;
}

static int object_load(void *ctx)
{
	struct module *m = ctx;
	int e = bpf_object__load(m->obj);

	if (!e && m->ops->loaded && m->ops->loaded(m, m->obj, m->refusal, sizeof(m->refusal)))
		return -EPERM;
	return e;
}

static void object_close(void *ctx)
{
	struct module *m = ctx;

	bpf_object__close(m->obj);
	m->obj = NULL;
}

/* Detaches, drops the readers, closes the object: after a failed start (a module that is
 * off keeps nothing attached) and in module_free(). Safe to repeat. */
static void stop_object(struct module *m)
{
	cost_control_stop(m);
	cost_window_leave(m);
	probe_set_stop(&m->probes);
	witness_reader_free(m->witness);
	m->witness = NULL;
	views_free(m);
	if (m->obj)
		object_close(m);
}

/* After prepare: the host-wide rows' precision on their own budget, as without By
 * "cgroup"; the per-cgroup rows' on theirs, no finer than the host-wide unless the user
 * asked (CgroupPrecision). */
static void set_precisions(struct module *m)
{
	m->precision = hist_config_precision(&m->hist, m->hist_rows ? m->hist_rows : views_hist_rows(m));
	m->cgroup_precision = hist_config_precision_at_most(&m->cgroup_hist, m->precision, m->cgroup_hist_rows);
}

/* The object, attached by candidates, and its views' readers. 0, or -1 with the message. */
static int start_object(struct module *m, char *err, size_t errlen)
{
	struct probe_object po = { .ctx = m, .open = object_open, .load = object_load, .close = object_close };
	if (probe_set_start(&m->probes, &po, err, errlen))
		return -1;
	m->witness = witness_reader_new(m);
	return views_start(m, err, errlen);
}

/* At start: each point that runs on a fallback, with why the better methods failed. */
static void fallback_events(struct module *m)
{
	for (int i = 0; i < m->probes.npoints; i++) {
		const struct probe_point *p = &m->probes.points[i];
		struct ebpf_event e;
		char method[96];

		if (!p->enabled || !p->failed)
			continue;
		probe_point_method(p, method, sizeof(method));
		ebpf_event_init(&e, EBPF_EVENT_MODULE_STATE, EBPF_EVENT_WARNING, "fallback",
				"%s: %s attached via %s, a fallback (%s)", m->label, p->name, method, p->failures);
		ebpf_event_add_text(&e, "state", module_state_name(m->state));
		ebpf_event_add_text(&e, "point", p->name);
		ebpf_event_add_text(&e, "method", method);
		ebpf_event_add_text(&e, "error", p->failures);
		module_event(m, &e);
	}
}

int module_start(struct module *m)
{
	const struct module_ops *ops = m->ops;
	char err[ERR_MAX] = "";
	int r = module_check_config(m, err, sizeof(err));

	if (!r)
		r = prepare(m, err, sizeof(err));
	set_precisions(m);
	if (!r && (ops->elf_bytes || m->elf)) { /* a built-in's skeleton, or a user's checked bytes */
		m->refusal[0] = '\0';
		r = start_object(m, err, sizeof(err));
		if (r && m->refusal[0])
			snprintf(err, sizeof(err), "%s", m->refusal);
	}
	if (!r && ops->start)
		r = ops->start(m, err, sizeof(err));
	if (!r && m->cgroup)
		r = module_cgroup_start(m, m->cgroup, ops->cgroup_whose ? ops->cgroup_whose : "", err, sizeof(err));
	if (r) {
		/* No attach method: this kernel lacks every way in; anything else (privileges,
		 * memory) is a failure the user can fix on this host. */
		stop_object(m);
		m->state = m->probes.no_method ? MODULE_UNSUPPORTED : MODULE_FAILED;
		snprintf(m->last_error, sizeof(m->last_error), "%s", err);
		ebpf_log(EBPF_LOG_ERROR, "module \"%s\" is off: %s", m->label, err);
		module_state_event(m, EBPF_EVENT_FAILURE, "module \"%s\" is off: %s", m->label, err);
		return -1;
	}
	self_metrics_start(m);
	if (m->probes.obj)
		cost_window_join(m);
	cost_control_start(m);
	m->state = probe_set_fell_back(&m->probes) ? MODULE_DEGRADED : MODULE_RUNNING;
	m->last_error[0] = '\0';
	fallback_events(m);
	return 0;
}

/* module_plan_memory() with m laid out for possible_cpus. */
static int plan_memory(struct module *m, int possible_cpus, struct module_memory *plan, char *err, size_t errlen)
{
	const struct module_ops *ops = m->ops;
	struct bpf_map *map;
	int r = module_check_config(m, err, errlen);

	memset(plan, 0, sizeof(*plan));
	if (!r)
		r = prepare(m, err, errlen);
	if (r)
		return -1; /* module_start() says the same, with the module's state */
	set_precisions(m);
	plan->precision = m->precision;
	plan->cgroup_precision = m->cgroup_precision;
	plan->cgroup_hist_rows = m->cgroup_hist_rows;
	if (!ops->elf_bytes && !m->elf)
		return 0;
	/* Opened and sized exactly as module_start() will (rodata, row sizes, the module's
	 * configure, the layout), with the maps of each point's first-choice method (a
	 * fallback may own a map of its own: a start-time hash), never loaded. */
	m->refusal[0] = '\0';
	if (!object_open(m)) {
		snprintf(err, errlen, "cannot open its BPF object to plan its kernel memory: %s",
			 m->refusal[0] ? m->refusal : strerror(errno));
		return -1;
	}
	probe_set_select_first(&m->probes, m->obj);
	bpf_object__for_each_map(map, m->obj) {
		struct map_memory *mm;

		if (!bpf_map__autocreate(map))
			continue;
		if (plan->nmaps == MODULE_MEMORY_MAX_MAPS) {
			plan->bytes += map_planned_bytes(map, possible_cpus);
			continue;
		}
		mm = &plan->maps[plan->nmaps++];
		snprintf(mm->name, sizeof(mm->name), "%s", bpf_map__name(map));
		mm->bytes = map_planned_bytes(map, possible_cpus);
		mm->percpu = bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_ARRAY ||
			     bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_HASH ||
			     bpf_map__type(map) == BPF_MAP_TYPE_LRU_PERCPU_HASH;
		plan->bytes += mm->bytes;
	}
	object_close(m);
	return 0;
}

int module_plan_memory(struct module *m, int possible_cpus, struct module_memory *plan, char *err, size_t errlen)
{
	int mine = m->layout.possible_cpus, r;

	m->layout.possible_cpus = possible_cpus; /* the prepare hook's budget and the layout too */
	r = plan_memory(m, possible_cpus, plan, err, errlen);
	m->layout.possible_cpus = mine;
	return r;
}

void module_refuse(struct module *m, const char *why)
{
	m->state = MODULE_FAILED;
	snprintf(m->last_error, sizeof(m->last_error), "%s", why);
	ebpf_log(EBPF_LOG_ERROR, "module \"%s\" is off: %s", m->label, why);
	module_state_event(m, EBPF_EVENT_FAILURE, "module \"%s\" is off: %s", m->label, why);
}

/* Every map of the read: the views', the read hook's, the per-cgroup tables'. 0, or -1
 * with what failed in err. */
static int read_maps(struct module *m, char *err, size_t errlen)
{
	int e = views_read(m);

	if (!e && m->ops->read && m->ops->read(m, err, errlen))
		return -1;
	if (!e && m->cgroup)
		e = module_cgroup_read(m->cgroup);
	if (e)
		snprintf(err, errlen, "%s", strerror(-e));
	return e ? -1 : 0;
}

/* What read_maps() read, the host-wide values counted as the module's events. */
static void send_values(struct module *m)
{
	views_emit(m, &m->sinks.host);
	if (m->ops->send)
		m->ops->send(m, &m->sinks.host);
	if (m->cgroup)
		module_cgroup_send(m->cgroup, &m->sinks.all);
}

static void read_failed(struct module *m, const char *why, bool failing)
{
	/* cut to what is left after the prefix: why comes from a buffer as large */
	snprintf(m->last_error, sizeof(m->last_error), "reading the BPF maps failed: %.*s",
		 (int)sizeof(m->last_error) - 32, why);
	ebpf_log(EBPF_LOG_ERROR, "module \"%s\": %s", m->label, m->last_error);
	if (!failing)
		module_state_event(m, EBPF_EVENT_FAILURE, "module \"%s\": %s", m->label, m->last_error);
}

int module_read(struct module *m, const struct metric_sink *out)
{
	bool failing = m->last_error[0] != '\0';
	char err[ERR_MAX];

	if (m->state != MODULE_RUNNING && m->state != MODULE_DEGRADED)
		return -1;
	if (m->sinks.out != out)
		module_sinks_init(m, out);
	m->sinks.events = 0;
	if (read_maps(m, err, sizeof(err))) {
		read_failed(m, err, failing);
		module_events_flush(m);
		return -1;
	}
	send_values(m);
	/* A good read ends a read failure: an NMS must not see "running" beside an old error.
	 * Errors from start never get here (the module is not running then). */
	if (failing) {
		ebpf_log(EBPF_LOG_NOTICE, "module \"%s\": reading the BPF maps works again", m->label);
		m->last_error[0] = '\0';
		module_state_event(m, EBPF_EVENT_OKAY, "module \"%s\": reading the BPF maps works again", m->label);
	}
	self_metrics_read(m, &m->sinks.all);
	module_events_flush(m);
	return 0;
}

void module_free(struct module *m)
{
	if (!m)
		return;
	stop_object(m);
	if (m->ops->destroy && (m->priv || !m->ops->priv_size))
		m->ops->destroy(m);
	module_cgroup_free(m->cgroup);
	if (m->ops->points)
		free(m->probes.points);
	free(m->priv);
	free(m);
}
