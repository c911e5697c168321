/* `By "cgroup"`: a module's values per cgroup v2 cgroup, beside its host-wide ones.
 *
 * The module's BPF program keeps per-cgroup rows in shared hashes keyed by struct
 * cgroup_row_key (bpf/include/cgroup_key.h: the cgroup at CgroupDepth, the module's row).
 * Each table is read as series (series_read.h), as every keyed map is: its row a label
 * named as the module's host-wide row ("fsync"), its cgroup the group of the key
 * (cgroup_group.h, one over all of the module's tables: MaxSeries, `other`, removed and
 * left-out cgroups), so each row is sent as the host-wide row would be, with the instance
 * "<cgroup>/<row instance>". The front-end puts the cgroup into plugin_instance
 * ("syscalls.system.slice_ssh.service"; a '/' can be in no collectd name, so it cannot be
 * mistaken for part of one). */
#ifndef EBPF_CORE_CGROUP_ROWS_H
#define EBPF_CORE_CGROUP_ROWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "libcore/engine/cgroup_options.h"
#include "libcore/read/map_view.h"

struct module;
struct metric_sink;
struct bpf_object;

/* One per-cgroup hash of the module: counters (fields, as a map view's, each row an
 * instance that row_instance names, "fsync"; or rows: a u64 per key whose row says its
 * metric and instance, as a rows-as-values view's) or one histogram row (hist_metric) per
 * key, named by row_instance. A row nothing names is skipped. */
struct cgroup_table {
	const char *map;
	const struct view_field *fields; /* counters: VALUE_COUNTER fields of the value */
	int nfields;
	const struct view_row *rows;     /* or counters: the value is one u64, named by its row */
	int nrows_view;
	const char *hist_metric;         /* or: the value is one bare struct hist_row */
	const char *hist_count_metric;   /* and its lifetime count as this counter (fs's calls), or NULL */
	enum hist_unit unit;
	uint32_t nrows;                  /* rows a key's `row` may have (array sizes) */
	uint32_t rows_per_cgroup;        /* kernel entries sized per cgroup (<= nrows) */
	const char *(*row_instance)(const struct module *m, uint32_t row, char *buf, size_t len);
	const char *row_label;            /* the row label's name ("syscall", "op"); NULL: "row" */
	/* Or NULL: the array by slot the programs count into (cgroup_slot.bpf.h), `nrows` rows
	 * per slot, whose rows user space adds into this table at each read (cgroup_slots.h) */
	const char *slot_rows;
};

/* Before load: the tables' max_entries for options (CGROUP_ROWS_PER_SERIES x MaxSeries
 * cgroups), bare histogram rows sized for m->cgroup_precision, the rodata by_cgroup,
 * cgroup_depth and cgroup_hist_precision; with By "cgroup" off the tables and the maps named in `aux` are not created
 * (the object is as it was without them). 0 or -errno. */
int cgroup_rows_configure(struct module *m, struct bpf_object *obj, const struct cgroup_options *o,
			  const struct cgroup_table *tables, int ntables, const char *const *aux);
/* Histogram rows the tables can hold, for the per-cgroup rows' precision budget. */
uint32_t cgroup_rows_hist_rows(const struct cgroup_options *o, const struct cgroup_table *tables, int ntables);

struct cgroup_rows;
/* After load. NULL with err. */
struct cgroup_rows *cgroup_rows_new(struct module *m, const struct cgroup_options *o, const struct cgroup_table *tables,
				    int ntables, char *err, size_t errlen);
/* Reads the tables, nothing sent. 0 or -errno. */
int cgroup_rows_read(struct cgroup_rows *r);
/* Sends the series of what cgroup_rows_read() read. */
void cgroup_rows_send(struct cgroup_rows *r, const struct metric_sink *sink);
void cgroup_rows_free(struct cgroup_rows *r);
/* A module's own reader of what the group placed (runqueue's Behind, wait_behind.h): fn
 * called at every send once the group's read is done, with By "cgroup" only. */
struct cgroup_group;
void cgroup_rows_after_places(struct cgroup_rows *r,
			      void (*fn)(void *ctx, struct cgroup_group *g, const struct metric_sink *sink), void *ctx);

#endif
