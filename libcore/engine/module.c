#include "libcore/engine/module.h"

#include "libcore/engine/log.h"
#include "libcore/kernel/prog_misses.h"
#include "libcore/engine/text_append.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const common_options[] = { "AttachOrder", "Percentile", "Bucket", "BucketType", "Precision", NULL };

const char *module_state_name(enum module_state s)
{
	switch (s) {
	case MODULE_CONFIGURED: return "configured";
	case MODULE_RUNNING: return "running";
	case MODULE_DEGRADED: return "degraded";
	case MODULE_FAILED: return "failed";
	case MODULE_UNSUPPORTED: return "unsupported";
	}
	return "?";
}

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
	hist_config_init(&m->hist);
	if (ops->create(m)) {
		free(m);
		return NULL;
	}
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

static void list_keys(const struct module *m, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; m->ops->option_names && m->ops->option_names[i]; i++)
		text_appendf(buf, len, &used, "%s, ", m->ops->option_names[i]);
	for (int i = 0; common_options[i]; i++)
		text_appendf(buf, len, &used, "%s%s", common_options[i], common_options[i + 1] ? ", " : "");
}

int module_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	char keys[256];
	int r;

	if (!strcasecmp(o->key, "AttachOrder"))
		return set_attach_order(m, o, err, errlen);
	r = hist_config_option(&m->hist, o, err, errlen);
	if (r)
		return r < 0 ? -1 : 0;
	r = m->ops->set_option(m, o, err, errlen);
	if (r)
		return r < 0 ? -1 : 0;
	list_keys(m, keys, sizeof(keys));
	snprintf(err, errlen, "unknown option \"%s\"; valid options: %s", o->key, keys);
	return -1;
}

int module_check_config(struct module *m, char *err, size_t errlen)
{
	return m->ops->check_config ? m->ops->check_config(m, err, errlen) : 0;
}

int module_start(struct module *m)
{
	char err[sizeof(m->last_error)] = "";

	if (module_check_config(m, err, sizeof(err)) || m->ops->start(m, err, sizeof(err))) {
		/* "no attach method works" means this kernel lacks every way in; anything else
		 * (privileges, memory) is a failure the user can fix on this host. */
		m->state = strstr(err, "no attach method works") ? MODULE_UNSUPPORTED : MODULE_FAILED;
		snprintf(m->last_error, sizeof(m->last_error), "%s", err);
		ebpf_log(EBPF_LOG_ERROR, "module \"%s\" is off: %s", m->label, err);
		return -1;
	}
	m->state = probe_set_fell_back(&m->probes) ? MODULE_DEGRADED : MODULE_RUNNING;
	m->last_error[0] = '\0';
	return 0;
}

/* The attach method of each probe point as a value, instance "<point>-<method>", value the
 * number of candidates that failed before it (0: the first choice). A kernel upgrade that
 * moves a module onto a fallback shows as a new series and a value above 0. ':' (as in
 * "kprobe:vfs_read") is written '_': rrdtool reads ':' as a separator. */
static void emit_attach_methods(const struct module *m, const struct metric_sink *sink)
{
	for (int i = 0; i < m->probes.npoints && sink->gauge; i++) {
		const struct probe_point *p = &m->probes.points[i];
		char method[96], instance[256];

		if (!p->enabled)
			continue;
		probe_point_method(p, method, sizeof(method));
		snprintf(instance, sizeof(instance), "%s-%s", p->name, method);
		for (char *c = instance; *c; c++)
			if (*c == ':' || *c == '/' || *c == ' ')
				*c = '_';
		sink->gauge(sink->ctx, "attach", instance, __builtin_popcount(p->failed));
	}
}

/* Every module's nested tracepoint runs the kernel skipped (prog_misses.h), sent always,
 * so that "none lost" shows as a zero: written once here, not in each module. */
static void emit_recursion_misses(const struct module *m, const struct metric_sink *sink)
{
	if (m->probes.obj)
		sink->counter(sink->ctx, "dropped", "recursion", bpf_object_recursion_misses(m->probes.obj));
}

int module_read(struct module *m, const struct metric_sink *sink)
{
	int err;

	if (m->state != MODULE_RUNNING && m->state != MODULE_DEGRADED)
		return -1;
	err = m->ops->read(m, sink);
	if (err) {
		snprintf(m->last_error, sizeof(m->last_error), "reading the BPF maps failed: %s", strerror(-err));
		ebpf_log(EBPF_LOG_ERROR, "module \"%s\": %s", m->label, m->last_error);
		return err;
	}
	/* A good read ends a read failure: an NMS must not see "running" beside an old error.
	 * Errors from start never get here (the module is not running then). */
	if (m->last_error[0]) {
		ebpf_log(EBPF_LOG_NOTICE, "module \"%s\": reading the BPF maps works again", m->label);
		m->last_error[0] = '\0';
	}
	emit_recursion_misses(m, sink);
	emit_attach_methods(m, sink);
	return 0;
}

void module_free(struct module *m)
{
	if (!m)
		return;
	m->ops->destroy(m);
	free(m);
}
