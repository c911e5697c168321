/* One screen of collectd-ebpf-hist: for every module the filters keep, each histogram
 * drawn as BCC draws it and the counters as a rate table, busiest first.
 *
 * "Last interval" is the difference between two snapshot files the view read (prev and
 * cur): histogram rows and counters subtract, rates divide by the time between the two
 * `written` stamps. A module whose counters restarted in between (collectd restarted it:
 * its discontinuity time moved, or a count went backwards) shows everything since that
 * restart, and says so. "Since start" (prev NULL) shows the cumulative values of each
 * module since its counters last started from zero.
 *
 * A module with per-command rows (By "command") begins with its "top commands" section
 * (terminal_commands.h).
 *
 * With a cgroup glob (terminal_cgroup.h), a module's per-cgroup rows that match are drawn under
 * one heading per cgroup, sorted by cgroup, with collectd's plugin_instance for them; the
 * host-wide rows are left out.
 */
#ifndef EBPF_TERMINAL_SCREEN_H
#define EBPF_TERMINAL_SCREEN_H

#include <stdbool.h>
#include <stdio.h>

#include "base/value_naming.h"
#include "snapshot/snapshot_file.h"

struct screen_options {
	const char *module_glob; /* fnmatch on the module label; NULL: every module */
	const char *metric_glob; /* fnmatch on collectd's type or "type-type_instance"; NULL: all */
	int top;                 /* counters shown per module (per cgroup with cgroup_glob); 0: all */
	/* terminal_cgroup_glob()'s glob: only per-cgroup rows of the cgroups it matches, drawn
	 * cgroup by cgroup and named as collectd names them there; NULL: every row as it is. */
	const char *cgroup_glob;
};

enum screen_series { SCREEN_COUNTER, SCREEN_HISTOGRAM };

/* The series as collectd names it (type, type instance), by the plugin's own naming. */
void screen_series_name(enum screen_series kind, const char *metric, const char *instance, struct value_name *n);

/* Does the series pass the metric filter? */
bool screen_metric_selected(const struct screen_options *o, enum screen_series kind, const char *metric, const char *instance);

/* Draws the screen for cur; prev NULL draws since start. Returns how many series (histograms
 * and counters) passed the filters; when none did, the screen says what the snapshot has. */
int screen_draw(FILE *out, const char *path, const struct snapshot *cur, const struct snapshot *prev,
	       const struct screen_options *o);

#endif
