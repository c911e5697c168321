/* The cgroups of a module's per-cgroup tables (cgroup_rows.h), one group over all of them:
 * what each cgroup met in a read becomes, as the fate of its entries (series_view.h, enum
 * series_fate), which the tables' series readers ask entry by entry.
 *
 * Bounded: at most MaxSeries cgroups get series of their own, in order of arrival, shared
 * by all of the module's tables; the others go into the cgroup "other", which carries their
 * entries (SERIES_CARRY) so that they pin no kernel row: each read takes them from the map
 * (what their next events make is folded again at the next read). How many cgroups' entries
 * a read folded (their events since the read before) is the gauge "folded"/"cgroups". A
 * folded cgroup that a read does not meet (no events) is forgotten: met again, it takes a
 * place if one is free. A place is a name (the cgroup's path made
 * safe), not a cgroup id: a service that restarts is a new cgroup under the same path, and
 * it takes the place its name has, so that its series go on (a name's values are the sum
 * over its incarnations). At every read each cgroup is checked against its directory: a
 * removed one leaves what its entries held to its series (SERIES_CARRY), which go on from
 * there, and its entries are deleted; so neither a series nor `other` ever goes back. A
 * place whose cgroups are all gone keeps its name for CGROUP_LINGER_READS reads, waiting
 * for the next incarnation; then its series are forgotten (cgroup_group_holds) and the
 * place goes to a newcomer. Two paths made safe into one name (/a/b_c, /a/b/c) are two
 * names: the later one's gets '~' and a hash of its path. A cgroup already removed when first met goes
 * into `other` (no series of one point). A cgroup the Cgroup globs leave out is sent
 * nowhere (the host-wide values hold it): where every glob names a directory, the kernel
 * gives it no entry at all (cgroup_select.h); else its entries are deleted and the kernel
 * told (cgroup_ignored, cgroup_key.bpf.h), so that the tables' room stays for the selected. */
#ifndef EBPF_CORE_CGROUP_GROUP_H
#define EBPF_CORE_CGROUP_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/engine/cgroup_options.h"
#include "libcore/read/series_view.h"

struct metric_sink;
struct cgroup_group;

/* Reads a name's place and series stay after its last cgroup was removed: a restart whose
 * new cgroup comes after a read (stop and start in two reads, a slow start) goes on in the
 * same series. Long enough for a restart, short enough that short-lived cgroups' places
 * come back soon (each such place is held this long, doc/modules.md). */
#define CGROUP_LINGER_READS 5

/* For tables of `entries` entries in all, of the module labelled `label` (for the log,
 * kept); ignored_fd, select_fd: the maps cgroup_ignored and cgroup_select, or -1 (the
 * selection's directories are written into the latter now, cgroup_select.h). NULL with err. */
struct cgroup_group *cgroup_group_new(const struct cgroup_options *o, const char *label, int ignored_fd,
				      int select_fd, uint64_t entries, char *err, size_t errlen);
/* Before the tables' entries of a read are asked for: the selection's directories checked. */
void cgroup_group_begin_read(struct cgroup_group *g);
/* The fate of an entry of cgroup id in this read, its text: the cgroup's path below the
 * cgroup2 root made safe ("system.slice_ssh.service", "root"), or "other"; and the token of
 * its place, which cgroup_group_holds() answers for as long as the place keeps that name. */
enum series_fate cgroup_group_fate(struct cgroup_group *g, uint64_t id, const char **text, uint64_t *token);
/* Whether a place token is still its name's (always for `other`'s, 0). */
bool cgroup_group_holds(const struct cgroup_group *g, uint64_t token);
/* After the tables' entries were sent: removed cgroups counted off their places, places
 * vacant too long given up, left-out ones told to the kernel, and the gauge folded-cgroups
 * (once anything folded). */
void cgroup_group_end_read(struct cgroup_group *g, const struct metric_sink *sink);
/* After end_read: fn for each cgroup of this read that has a place and is not gone: the
 * place's index (< MaxSeries) and generation (a later name in the same place has another),
 * its name, the cgroup's id and its directory (path below the cgroup2 root, "/a/b", relative
 * to root_fd): for what a read takes from the cgroups' own files (cgroup_pressure.h). A
 * place can be met more than once (a restart's two incarnations side by side). */
struct cgroup_place_seen {
	uint32_t place, gen;
	const char *name;
	uint64_t id;
	int root_fd;
	const char *path;
};
void cgroup_group_each_place(struct cgroup_group *g, void (*fn)(void *ctx, const struct cgroup_place_seen *s),
			     void *ctx);
void cgroup_group_free(struct cgroup_group *g);

#endif
