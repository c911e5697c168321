/* The per-cgroup rows of a snapshot, for `collectd-ebpf-hist --cgroup GLOB`.
 *
 * With `By "cgroup"` a module's per-cgroup values come in the snapshot with the instance
 * "<cgroup>/<row>" (libcore/engine/cgroup_rows.c): the cgroup as collectd's plugin_instance
 * carries it after the module and a dot (its path below the cgroup2 root made safe: the
 * leading '/' dropped, every other '/' written '_', the root cgroup "root", the cgroups
 * beyond MaxSeries "other"), the row as the module names it without the cgroup. A host-wide
 * row has no '/' (no label has one), so a '/' is where the cgroup ends.
 *
 * GLOB is an fnmatch(3) glob as the config's `Cgroup` globs are (`*` also matches what was a
 * '/'), given either as collectd names the cgroup ("system.slice_*.service") or as its
 * path ("/system.slice/" followed by "*.service"): a path glob is made safe as the names are,
 * so both select the same cgroups.
 */
#ifndef EBPF_VIEW_CGROUP_H
#define EBPF_VIEW_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "snapshot/snapshot_file.h"

#define VIEW_CGROUP_GLOB_MAX 256

/* The glob `--cgroup arg` means, as collectd names cgroups, into out. 0, or -1 with what is
 * wrong with arg and how to write it in err. */
int view_cgroup_glob(const char *arg, char out[VIEW_CGROUP_GLOB_MAX], char *err, size_t errlen);

/* The length of the cgroup in a snapshot instance, and in *row what follows its '/';
 * 0 (*row the whole instance) for a host-wide row. */
size_t view_cgroup_split(const char *instance, const char **row);

/* Is instance a row of cgroup (a name view_cgroup_list() gave)? */
bool view_cgroup_owns(const char *cgroup, const char *instance);

/* The distinct cgroups of m's counters and histograms that glob (a view_cgroup_glob()
 * result) matches, sorted by name with "other" last, so that a service's rows draw
 * together. *out is an array of *n names (free it, and every name, with view_cgroup_free());
 * returns -1 when out of memory. */
int view_cgroup_list(const struct snapshot_module *m, const char *glob, char ***out, int *n);
void view_cgroup_free(char **names, int n);

#endif
