/* The per-cgroup rows of a snapshot, for `collectd-ebpf-hist --cgroup GLOB`.
 *
 * With `By "cgroup"` a module's per-cgroup values come in the snapshot with the instance
 * "<cgroup>/<row>" (libcore/engine/cgroup_rows.c): the cgroup as collectd's plugin_instance
 * carries it after the module and a dot (its path below the cgroup2 root made safe: the
 * leading '/' dropped, every other '/' written '_', the root cgroup "root", the cgroups
 * beyond MaxSeries "other"), the row as the module names it without the cgroup. A host-wide
 * row has no '/' (no label has one), so a '/' is where the cgroup ends.
 *
 * Rows of By "command" (the snapshot label command=) name commands, not cgroups: left out.
 *
 * GLOB is an fnmatch(3) glob as the config's `Cgroup` globs are (`*` also matches what was a
 * '/'), given either as collectd names the cgroup ("system.slice_*.service") or as its
 * path ("/system.slice/" followed by "*.service"): a path glob is made safe as the names are,
 * so both select the same cgroups.
 */
#ifndef EBPF_TERMINAL_CGROUP_H
#define EBPF_TERMINAL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "snapshot/snapshot_file.h"

#define TERMINAL_CGROUP_GLOB_MAX 256

/* The glob `--cgroup arg` means, as collectd names cgroups, into out. 0, or -1 with what is
 * wrong with arg and how to write it in err. */
int terminal_cgroup_glob(const char *arg, char out[TERMINAL_CGROUP_GLOB_MAX], char *err, size_t errlen);

/* The length of the cgroup in a snapshot instance, and in *row what follows its '/';
 * 0 (*row the whole instance) for a host-wide row. */
size_t terminal_cgroup_split(const char *instance, const char **row);

/* A cgroup's rows in a module: indexes in its histograms and counters, in their order. */
struct terminal_cgroup {
	char *name;
	int *histograms, nhistograms;
	int *counters, ncounters;
};

/* The cgroups of m's histograms and counters that glob (a terminal_cgroup_glob() result)
 * matches, sorted by name with "other" last, so that a service's rows draw together, each
 * with its rows. Linear in the rows after one sort (a live view redraws every interval, and
 * MaxSeries allows 10,000 cgroups). *out holds *n of them (free with terminal_cgroup_free());
 * -1 when out of memory. */
int terminal_cgroup_list(const struct snapshot_module *m, const char *glob, struct terminal_cgroup **out, int *n);
void terminal_cgroup_free(struct terminal_cgroup *cgroups, int n);

#endif
