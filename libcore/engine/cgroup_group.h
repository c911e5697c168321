/* The cgroups of a module's per-cgroup tables (cgroup_rows.h), one group over all of them:
 * what each cgroup met in a read becomes, as the fate of its entries (series_view.h, enum
 * series_fate), which the tables' series readers ask entry by entry.
 *
 * Bounded: at most MaxSeries cgroups get series of their own, in order of arrival, shared
 * by all of the module's tables; the others go into the cgroup "other", and how many it
 * holds in a read is the gauge "folded"/"cgroups". At every read each cgroup is checked
 * against its directory: a removed one is sent a last time, then its entries are deleted
 * and its place freed (SERIES_LAST); one in `other` leaves what it held to `other`
 * (SERIES_CARRY), so `other` never goes back. A cgroup already removed when first met goes
 * into `other` (no series of one point). A cgroup the Cgroup globs leave out is sent
 * nowhere (the host-wide values hold it): its entries are deleted and the kernel told
 * (cgroup_ignored, cgroup_key.bpf.h), so that the tables' room stays for the selected. */
#ifndef EBPF_CORE_CGROUP_GROUP_H
#define EBPF_CORE_CGROUP_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/engine/cgroup_options.h"
#include "libcore/read/series_view.h"

struct metric_sink;
struct cgroup_group;

/* For tables of `entries` entries in all; ignored_fd: the map cgroup_ignored, or -1. NULL
 * with err. */
struct cgroup_group *cgroup_group_new(const struct cgroup_options *o, int ignored_fd, uint64_t entries, char *err,
				      size_t errlen);
/* Before the tables' entries of a read are asked for. */
void cgroup_group_begin_read(struct cgroup_group *g);
/* The fate of an entry of cgroup id in this read, and its text: the cgroup's path below
 * the cgroup2 root made safe ("system.slice_ssh.service", "root"), or "other". */
enum series_fate cgroup_group_fate(struct cgroup_group *g, uint64_t id, const char **text);
/* After the tables' entries were sent: removed cgroups' places freed, left-out ones told
 * to the kernel, and the gauge folded-cgroups (once anything folded). */
void cgroup_group_end_read(struct cgroup_group *g, const struct metric_sink *sink);
void cgroup_group_free(struct cgroup_group *g);

/* Tests: the cgroups with series now, the removed cgroups forgotten so far. */
uint32_t cgroup_group_nseries(const struct cgroup_group *g);
uint64_t cgroup_group_reclaimed(const struct cgroup_group *g);

#endif
