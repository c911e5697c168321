/* The options of `By "cgroup"` (a module's values per cgroup v2 cgroup, beside its host-wide
 * ones; cgroup_rows.h): CgroupDepth, MaxSeries, the Cgroup globs that select (collectd's
 * ignorelist semantics, with CgroupIgnoreSelected) and CgroupPrecision. */
#ifndef EBPF_CORE_CGROUP_OPTIONS_H
#define EBPF_CORE_CGROUP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/hist/hist_config.h"

struct option;

#define CGROUP_GLOBS_MAX 64
#define CGROUP_DEPTH_DEFAULT 2
#define CGROUP_DEPTH_MAX 16
#define CGROUP_MAX_SERIES_DEFAULT 100
#define CGROUP_MAX_SERIES_MAX 10000

/* The options of a module that takes By "cgroup"; list CGROUP_OPTION_KEYS in its table.
 * By "command" (where command_ok) makes the same rows per command (the acting task's comm)
 * in place of per cgroup: on and command both set; MaxSeries and CgroupPrecision apply to
 * it as they do to cgroups, the cgroup choosers (CgroupDepth, Cgroup, CgroupIgnoreSelected)
 * do not. */
struct cgroup_options {
	bool on;                   /* By "cgroup" or By "command": per-who rows */
	bool command;              /* By "command" */
	bool command_ok;           /* the module knows each event's acting task (module_ops.by_command) */
	uint32_t depth;            /* CgroupDepth */
	uint32_t max_series;       /* MaxSeries */
	char *globs[CGROUP_GLOBS_MAX];
	int nglobs;
	bool ignore_selected;      /* CgroupIgnoreSelected */
	/* CgroupPrecision: the per-cgroup histogram rows' own precision (module.h's
	 * cgroup_precision), so that By "cgroup" leaves the host-wide rows' as it was */
	struct hist_config hist;
	bool pressure;             /* Pressure: PSI beside the rows (cgroup_pressure.h), where the
				    * module lists the key; default: module_ops.cgroup_pressure */
	bool tuned;                /* any of the others given (they need By "cgroup") */
	bool chooses_cgroups;      /* CgroupDepth, Cgroup or CgroupIgnoreSelected given (not for By "command") */
	/* Tests: the task's cgroup read by CO-RE even where tracing programs may call the
	 * ancestor helper, as on 5.10 where they may not. */
	bool ancestors_by_core;
};

#define CGROUP_OPTION_KEYS { "By" }, { "CgroupDepth" }, { "Cgroup" }, { "CgroupIgnoreSelected" }, { "MaxSeries" }
/* ... of a module with per-cgroup histograms, which take CgroupPrecision too. */
#define CGROUP_HIST_OPTION_KEYS CGROUP_OPTION_KEYS, { "CgroupPrecision" }
/* ... of a module that offers Pressure (cgroup_pressure.h); module_ops.cgroup_pressure: its
 * default. */
#define CGROUP_PRESSURE_KEY { "Pressure" }

void cgroup_options_init(struct cgroup_options *o);
/* 1: taken; 0: not a cgroup option; -1: bad value, err says why and the fix. */
int cgroup_options_set(struct cgroup_options *o, const struct option *opt, char *err, size_t errlen);
/* Options given without By "cgroup": an error naming them. 0 or -1. */
int cgroup_options_check(const struct cgroup_options *o, char *err, size_t errlen);
/* Whether the cgroup at path (below the cgroup2 root, "/a/b") is sent. */
bool cgroup_options_selects(const struct cgroup_options *o, const char *path);

/* A directory every cgroup a glob selects lies below (or is): the glob's leading components
 * up to the first with a wildcard, the first len bytes of glob `glob` ("/system.slice" of
 * "/system.slice/ssh*"; a glob without one is the cgroup itself), `level` components deep. */
struct cgroup_prefix {
	int glob;
	uint32_t len, level;
};

/* The directories the selection lies below, for the filter in the kernel (cgroup_select.h):
 * one per glob, none below another of them, at most max. 0 and *why when there is no such
 * set: no glob, CgroupIgnoreSelected (it sends what lies outside), a glob that names no
 * directory before its first wildcard ("/ebpf-*"), or more than max directories. */
int cgroup_options_prefixes(const struct cgroup_options *o, struct cgroup_prefix *out, int max, const char **why);
void cgroup_options_free(struct cgroup_options *o);

#endif
