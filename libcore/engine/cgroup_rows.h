/* `By "cgroup"`: a module's values per cgroup v2 cgroup, beside its host-wide ones.
 *
 * The module's BPF program keeps per-cgroup rows in shared hashes keyed by struct
 * cgroup_row_key (bpf/include/cgroup_key.h: the cgroup at CgroupDepth, the module's row).
 * This reader walks them once per read and sends each row as the module's host-wide row
 * would be sent, with the instance "<cgroup>/<row instance>": the cgroup is its path below
 * the cgroup2 root made safe as every label (label_value.h: "system.slice_ssh.service",
 * "root"), and the front-end puts it into plugin_instance ("syscalls.system.slice_ssh.service";
 * a '/' can be in no collectd name, so it cannot be mistaken for part of one).
 *
 * Bounded: at most MaxSeries cgroups get series, in order of arrival; the others are added
 * into the cgroup "other", and how many it holds is the gauge "folded"/"cgroups". At every
 * read each cgroup is checked against its directory: a removed one has its last values sent,
 * then its kernel rows are deleted and its series place freed; what `other` held of it is
 * carried, so `other` never goes back. A cgroup already removed when first read goes into
 * `other` (no series of one point). Cgroup globs select (collectd's ignorelist semantics);
 * an unselected cgroup is sent nowhere (the host-wide values hold it). */
#ifndef EBPF_CORE_CGROUP_ROWS_H
#define EBPF_CORE_CGROUP_ROWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "libcore/hist/hist_config.h"
#include "libcore/read/map_view.h"

struct module;
struct option;
struct metric_sink;
struct bpf_object;

#define CGROUP_GLOBS_MAX 64
#define CGROUP_DEPTH_DEFAULT 2
#define CGROUP_DEPTH_MAX 16
#define CGROUP_MAX_SERIES_DEFAULT 100
#define CGROUP_MAX_SERIES_MAX 10000

/* The options of a module that takes By "cgroup"; list CGROUP_OPTION_KEYS in its table. */
struct cgroup_options {
	bool on;                   /* By "cgroup" */
	uint32_t depth;            /* CgroupDepth */
	uint32_t max_series;       /* MaxSeries */
	char *globs[CGROUP_GLOBS_MAX];
	int nglobs;
	bool ignore_selected;      /* CgroupIgnoreSelected */
	/* CgroupPrecision: the per-cgroup histogram rows' own precision (module.h's
	 * cgroup_precision), so that By "cgroup" leaves the host-wide rows' as it was */
	struct hist_config hist;
	bool tuned;                /* any of the others given (they need By "cgroup") */
};

#define CGROUP_OPTION_KEYS { "By" }, { "CgroupDepth" }, { "Cgroup" }, { "CgroupIgnoreSelected" }, { "MaxSeries" }
/* ... of a module with per-cgroup histograms, which take CgroupPrecision too. */
#define CGROUP_HIST_OPTION_KEYS CGROUP_OPTION_KEYS, { "CgroupPrecision" }

void cgroup_options_init(struct cgroup_options *o);
/* 1: taken; 0: not a cgroup option; -1: bad value, err says why and the fix. */
int cgroup_options_set(struct cgroup_options *o, const struct option *opt, char *err, size_t errlen);
/* Options given without By "cgroup": an error naming them. 0 or -1. */
int cgroup_options_check(const struct cgroup_options *o, char *err, size_t errlen);
/* Whether the cgroup at path (below the cgroup2 root, "/a/b") is sent. */
bool cgroup_options_selects(const struct cgroup_options *o, const char *path);
void cgroup_options_free(struct cgroup_options *o);

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
/* Reads the tables and sends their series. 0 or -errno. */
int cgroup_rows_read(struct cgroup_rows *r, const struct metric_sink *sink);
void cgroup_rows_free(struct cgroup_rows *r);

/* Tests: the cgroups with a series now, the cgroups whose rows were deleted so far. */
uint32_t cgroup_rows_nseries(const struct cgroup_rows *r);
uint64_t cgroup_rows_reclaimed(const struct cgroup_rows *r);

#endif
