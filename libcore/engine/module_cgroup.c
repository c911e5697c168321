/* `By "cgroup"` wired into a module (module_cgroup.h). */
#include "libcore/engine/module_cgroup.h"

#include "base/log.h"
#include "libcore/engine/module.h"

#include <stdlib.h>

static const char *const default_aux[] = { MODULE_CGROUP_AUX_MAPS, NULL };

void module_cgroup_tables(struct module_cgroup *c, const struct cgroup_table *tables, int ntables,
			  const char *const *aux)
{
	c->tables = tables;
	c->ntables = ntables;
	c->aux = aux ? aux : default_aux;
}

struct module_cgroup *module_cgroup_new(const struct module_ops *ops)
{
	struct module_cgroup *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	cgroup_options_init(&c->opts);
	c->opts.pressure = ops->cgroup_pressure;
	c->opts.command_ok = ops->by_command;
	module_cgroup_tables(c, ops->cgroup_tables, ops->ncgroup_tables, ops->cgroup_aux);
	return c;
}

int module_cgroup_set_option(struct module_cgroup *c, const struct option *o, char *err, size_t errlen)
{
	return cgroup_options_set(&c->opts, o, err, errlen);
}

int module_cgroup_check(const struct module_cgroup *c, char *err, size_t errlen)
{
	return cgroup_options_check(&c->opts, err, errlen);
}

void module_cgroup_prepare(struct module *m, const struct module_cgroup *c)
{
	if (module_cgroup_on(c))
		m->features |= MODULE_FEATURE_CGROUP | (c->opts.command ? MODULE_FEATURE_BY_COMMAND : MODULE_FEATURE_BY_CGROUP);
	m->cgroup_hist_rows = cgroup_rows_hist_rows(&c->opts, c->tables, c->ntables);
	/* Only the user's: a precision the memory plan lowered in m stays lowered. */
	if (c->opts.hist.precision_from_user)
		m->cgroup_hist = c->opts.hist;
}

int module_cgroup_configure(struct module *m, struct bpf_object *obj, const struct module_cgroup *c)
{
	return cgroup_rows_configure(m, obj, &c->opts, c->tables, c->ntables, c->aux);
}

int module_cgroup_start(struct module *m, struct module_cgroup *c, const char *whose, char *err, size_t errlen)
{
	cgroup_rows_free(c->rows); /* a start after a failed one */
	c->rows = NULL;
	if (!c->opts.on)
		return 0;
	c->rows = cgroup_rows_new(m, &c->opts, c->tables, c->ntables, err, errlen);
	if (!c->rows)
		return -1;
	if (c->opts.command)
		ebpf_log(EBPF_LOG_INFO, "%s: and per command (the acting task's name), at most %u commands and other",
			 m->label, c->opts.max_series);
	else
		ebpf_log(EBPF_LOG_INFO, "%s: and per cgroup%s at depth %u, at most %u cgroups and other", m->label, whose,
			 c->opts.depth, c->opts.max_series);
	return 0;
}

int module_cgroup_read(struct module_cgroup *c)
{
	return c->rows ? cgroup_rows_read(c->rows) : 0;
}

void module_cgroup_send(struct module_cgroup *c, const struct metric_sink *sink)
{
	if (c->rows)
		cgroup_rows_send(c->rows, sink);
}

void module_cgroup_free(struct module_cgroup *c)
{
	if (!c)
		return;
	cgroup_rows_free(c->rows);
	cgroup_options_free(&c->opts);
	free(c);
}
