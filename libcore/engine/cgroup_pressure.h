/* Pressure beside the per-cgroup rows (`Pressure`, on by default with By "cgroup"): at each
 * read, the PSI totals (pressure_file.h) of every cgroup that holds a series place
 * (cgroup_group.h), and of the host (/proc/pressure), sent as counters: metric "pressure",
 * instance "<cgroup>/<resource>-<some|full>" ("cpu-some"; the host's without a cgroup),
 * microseconds stalled, so that a counter's rate is microseconds stalled per second.
 *
 * Exact: between two reads of one cgroup a counter grows by exactly what the file's total
 * grew. A place's first read only takes its totals as the start (its counters begin at 0,
 * sent from the next read on): a counter is cumulative since the module or the place began,
 * as every other. A name's next incarnation (a cgroup made again at its path: another
 * directory inode) carries on from what the last one had at its last read (what it stalled
 * after that is lost), its own total counted from its birth. `other` has none: a folded
 * cgroup's files are not read (the stall of a set of cgroups is not the sum of theirs).
 *
 * A file that cannot be read while its directory is there (PSI off: psi=0 on the kernel
 * command line, 0 written to cgroup.pressure, a kernel without CONFIG_PSI) or does not parse
 * is said once per module and resource (and once for the host's), and the read goes on. */
#ifndef EBPF_CORE_CGROUP_PRESSURE_H
#define EBPF_CORE_CGROUP_PRESSURE_H

#include <stdint.h>

struct cgroup_group;
struct metric_sink;
struct cgroup_pressure;

/* For a module labelled `label` (kept, for the log) with max_series places; host_dir: the
 * host's files (NULL: /proc/pressure). NULL: out of memory. */
struct cgroup_pressure *cgroup_pressure_new(const char *label, uint32_t max_series, const char *host_dir);
/* After the group's read (cgroup_group_end_read): the places' and the host's counters. */
void cgroup_pressure_read(struct cgroup_pressure *p, struct cgroup_group *g, const struct metric_sink *sink);
void cgroup_pressure_free(struct cgroup_pressure *p);

#endif
