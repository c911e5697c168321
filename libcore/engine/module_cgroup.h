/* `By "cgroup"` wired into a module: the steps every module that takes it goes through (its
 * options, its tables' sizes before load, the reader after load, the read, the free), which
 * the engine (module.c) takes for a module whose descriptor says by_cgroup, so each module
 * names only what is its own (its tables and what it counts).
 *
 * Such a module lists CGROUP_OPTION_KEYS (or CGROUP_HIST_OPTION_KEYS) in its options table,
 * names its tables in its descriptor (MODULE_CGROUP_TABLES) or, sized from its options, gives
 * them at prepare with module_cgroup_tables(m->cgroup, ...), and lists MODULE_CGROUP_FULL_VIEW
 * among its views. The engine calls:
 *   before create          module_cgroup_new
 *   set_option             module_cgroup_set_option (the table's cgroup keys)
 *   after check_config     module_cgroup_check
 *   after prepare          module_cgroup_prepare
 *   after configure        module_cgroup_configure
 *   after start            module_cgroup_start
 *   after read             module_cgroup_read
 *   after every read       module_cgroup_send
 *   after destroy          module_cgroup_free */
#ifndef EBPF_CORE_MODULE_CGROUP_H
#define EBPF_CORE_MODULE_CGROUP_H

#include "libcore/engine/cgroup_rows.h"

struct module_ops;

struct module_cgroup {
	struct cgroup_options opts;
	const struct cgroup_table *tables; /* the module's: its descriptor's, or set at prepare */
	int ntables;
	const char *const *aux;            /* maps made only with By "cgroup" besides the tables */
	struct cgroup_rows *rows;          /* after start, with By "cgroup" */
};

/* Per-cgroup maps every such module has besides its tables (cgroup_key.bpf.h). */
#define MODULE_CGROUP_AUX_MAPS ENGINE_MAP_NAME(cgroup_zero), ENGINE_MAP_NAME(cgroup_full)

/* The feature bits (m->features) of By "cgroup" and By "command": set by the engine after
 * prepare when the user asked for one, so that views and rows can need it; a module's own
 * bits stay below. MODULE_FEATURE_CGROUP: per-who rows, by either; the other two say which. */
#define MODULE_FEATURE_CGROUP (1u << 31)
#define MODULE_FEATURE_BY_COMMAND (1u << 30)
#define MODULE_FEATURE_BY_CGROUP (1u << 29)

/* The view of cgroup_full: events whose cgroup (command) found no room in a full per-cgroup
 * (per-command) table, always sent with By "cgroup" ("dropped-cgroup_full") or By "command"
 * ("dropped-command_full") so that "nothing lost" is visible as a zero. */
#define MODULE_CGROUP_FULL_VIEW                                                                                  \
	{ .map = ENGINE_MAP_NAME(cgroup_full), .shape = VIEW_ARRAY, .value_size = sizeof(uint64_t), .nrows = 1,      \
	  .needs = MODULE_FEATURE_CGROUP,                                                                            \
	  .rows = (const struct view_row[]){ { 0, "dropped", "cgroup_full", VIEW_ALWAYS, MODULE_FEATURE_BY_CGROUP },   \
					     { 0, "dropped", "command_full", VIEW_ALWAYS, MODULE_FEATURE_BY_COMMAND } }, \
	  .nrows_view = 2 }

/* Its options at their defaults, and the tables the descriptor names (MODULE_CGROUP_TABLES;
 * none yet for a module that gives them at prepare). NULL: out of memory. */
struct module_cgroup *module_cgroup_new(const struct module_ops *ops);
/* 1: taken; 0: not a cgroup option; -1: bad value, err says why and the fix. */
int module_cgroup_set_option(struct module_cgroup *c, const struct option *o, char *err, size_t errlen);
/* Cgroup options given without By "cgroup": an error naming them. 0 or -1. */
int module_cgroup_check(const struct module_cgroup *c, char *err, size_t errlen);
/* The module's tables and its maps made only with By "cgroup" besides them (aux,
 * NULL-terminated; NULL: MODULE_CGROUP_AUX_MAPS only); both must outlive the module. */
void module_cgroup_tables(struct module_cgroup *c, const struct cgroup_table *tables, int ntables,
			  const char *const *aux);
/* At prepare, once the tables are set: MODULE_FEATURE_CGROUP in m->features with By
 * "cgroup", m's per-cgroup histogram rows (m->cgroup_hist_rows,
 * which the per-cgroup precision is budgeted on, apart from m->hist_rows) and the user's
 * CgroupPrecision into m->cgroup_hist. */
void module_cgroup_prepare(struct module *m, const struct module_cgroup *c);
/* Before load: cgroup_rows_configure for the tables. 0 or -errno. */
int module_cgroup_configure(struct module *m, struct bpf_object *obj, const struct module_cgroup *c);
/* After load: the reader (with By "cgroup") and the log line saying so; `whose` says whose
 * cgroup an event counts for ("" for the task's, or e.g. " of the socket"). 0 or -1 with err. */
int module_cgroup_start(struct module *m, struct module_cgroup *c, const char *whose, char *err, size_t errlen);
/* Reads the per-cgroup tables (nothing without By "cgroup"), nothing sent. 0 or -errno. */
int module_cgroup_read(struct module_cgroup *c);
/* Sends what module_cgroup_read() read: the per-cgroup series. */
void module_cgroup_send(struct module_cgroup *c, const struct metric_sink *sink);
/* The reader, the options and c itself; NULL-safe. */
void module_cgroup_free(struct module_cgroup *c);

static inline bool module_cgroup_on(const struct module_cgroup *c)
{
	return c->opts.on;
}

#endif
