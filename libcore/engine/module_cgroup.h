/* `By "cgroup"` wired into a module: the steps every module that takes it repeats (its
 * options, its tables' sizes before load, the reader after load, the read, the free), in
 * one place so each module names only what is its own (its tables and what it counts).
 *
 * A module keeps a struct module_cgroup in its private state and calls:
 *   create        module_cgroup_init (with its tables, or NULL until prepare)
 *   set_option    module_cgroup_set_option (0: not a cgroup option, the module's own)
 *   check_config  module_cgroup_check
 *   prepare       module_cgroup_tables (tables may be sized from the module's options),
 *                 then module_cgroup_prepare
 *   configure     module_cgroup_configure
 *   start         module_cgroup_start
 *   read          module_cgroup_read
 *   destroy       module_cgroup_free
 * and lists MODULE_CGROUP_FULL_VIEW(feature) among its views. */
#ifndef EBPF_CORE_MODULE_CGROUP_H
#define EBPF_CORE_MODULE_CGROUP_H

#include "libcore/engine/cgroup_rows.h"

struct module_cgroup {
	struct cgroup_options opts;
	const struct cgroup_table *tables; /* the module's, set at prepare */
	int ntables;
	const char *const *aux;            /* maps made only with By "cgroup" besides the tables */
	struct cgroup_rows *rows;          /* after start, with By "cgroup" */
};

/* Per-cgroup maps every such module has besides its tables (cgroup_key.bpf.h). */
#define MODULE_CGROUP_AUX_MAPS "cgroup_zero", "cgroup_full"

/* The view of cgroup_full: events whose cgroup found no room in a full per-cgroup table,
 * always sent with By "cgroup" so that "nothing lost" is visible as a zero. */
#define MODULE_CGROUP_FULL_VIEW(feature)                                                                  \
	{ .map = "cgroup_full", .shape = VIEW_ARRAY, .value_size = sizeof(uint64_t), .nrows = 1,           \
	  .needs = (feature),                                                                             \
	  .rows = (const struct view_row[]){ { 0, "dropped", "cgroup_full", VIEW_ALWAYS, (feature) } },     \
	  .nrows_view = 1 }

/* tables and aux (NULL-terminated; NULL: MODULE_CGROUP_AUX_MAPS only) must outlive the
 * module; tables sized from the options are given at prepare (module_cgroup_tables). */
void module_cgroup_init(struct module_cgroup *c, const struct cgroup_table *tables, int ntables,
			const char *const *aux);
/* 1: taken; 0: not a cgroup option; -1: bad value, err says why and the fix. */
int module_cgroup_set_option(struct module_cgroup *c, const struct option *o, char *err, size_t errlen);
/* Cgroup options given without By "cgroup": an error naming them. 0 or -1. */
int module_cgroup_check(const struct module_cgroup *c, char *err, size_t errlen);
/* The module's tables and extra maps, as for module_cgroup_init. */
void module_cgroup_tables(struct module_cgroup *c, const struct cgroup_table *tables, int ntables,
			  const char *const *aux);
/* At prepare, once the tables are set: m's per-cgroup histogram rows (m->cgroup_hist_rows,
 * which the per-cgroup precision is budgeted on, apart from m->hist_rows) and the user's
 * CgroupPrecision into m->cgroup_hist. */
void module_cgroup_prepare(struct module *m, const struct module_cgroup *c);
/* Before load: cgroup_rows_configure for the tables. 0 or -errno. */
int module_cgroup_configure(struct module *m, struct bpf_object *obj, const struct module_cgroup *c);
/* After load: the reader (with By "cgroup") and the log line saying so; `whose` says whose
 * cgroup an event counts for ("" for the task's, or e.g. " of the socket"). 0 or -1 with err. */
int module_cgroup_start(struct module *m, struct module_cgroup *c, const char *whose, char *err, size_t errlen);
/* Sends the per-cgroup series (nothing without By "cgroup"). 0 or -errno. */
int module_cgroup_read(struct module_cgroup *c, const struct metric_sink *sink);
void module_cgroup_free(struct module_cgroup *c);

static inline bool module_cgroup_on(const struct module_cgroup *c)
{
	return c->opts.on;
}

#endif
