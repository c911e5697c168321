/* COLLECTD-EBPF-MIB over a parsed snapshot: GET and GETNEXT on OIDs relative to the
 * base OID, without net-snmp (the AgentX glue converts), so the OID layout, the index
 * encoding and the walk order are unit-tested.
 *
 * Layout under the base (see snmp/COLLECTD-EBPF-MIB.txt):
 *   1.1.{1,2,3}.0            snapshot status, error, age
 *   1.2.1.<col>.<module>     modules                 (IMPLIED module name)
 *   1.3.1.<col>.<m>.<metric>.<instance>             counters (instance IMPLIED)
 *   1.4.1.<col>.<m>.<metric>.<instance>             histograms (instance IMPLIED)
 *   1.5.1.<col>.<m>.<metric>.<instance>.<slot + 1>  buckets
 *   1.6.1.<col>.<m>.<metric>.<instance>             gauges (instance IMPLIED)
 *   1.8.{1,2,3,4}.1.<col>.<index>                   the same per cgroup (ebpfCgroupObjects)
 * Strings in indexes are length-prefixed (except IMPLIED ones), one arc per byte: the
 * same names give the same OIDs after any restart, with no state kept anywhere. The
 * instance in an index is its index text (instance_index.h: itself up to 48 bytes, a head
 * and a hash beyond); counters, histograms and gauges have a column with the whole
 * instance (1.3.1.5, 1.4.1.14, 1.6.1.5).
 * A row whose instance has a '/' (the cgroup before it: By "cgroup") goes to the per-cgroup
 * table of its kind, with the same index and columns, so that an SNMP view can exclude
 * every cgroup name (the subtree 1.8) and serve every host-wide value.
 */
#ifndef EBPF_SNMP_MIB_TREE_H
#define EBPF_SNMP_MIB_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "display_string.h"
#include "snapshot/snapshot_file.h"

#define MIB_TABLES 9
#define MIB_MAX_OID 128    /* arcs in an OID: SNMP's limit, net-snmp's MAX_OID_LEN */
#define MIB_MAX_SUFFIX 122 /* MIB_MAX_OID less the default base's 6 */

enum mib_snapshot_status {
	MIB_SNAPSHOT_OK = 1,
	MIB_SNAPSHOT_MISSING,
	MIB_SNAPSHOT_UNREADABLE,
	MIB_SNAPSHOT_MALFORMED,
	MIB_SNAPSHOT_STALE, /* whole, but older than --stale-after: served for its age only */
};

enum mib_type { MIB_INTEGER, MIB_STRING, MIB_GAUGE32, MIB_COUNTER32, MIB_COUNTER64, MIB_TIMETICKS };

struct mib_value {
	enum mib_type type;
	uint64_t num;
	const char *str;                     /* MIB_STRING: points to text */
	char text[DISPLAY_STRING_MAX + 1];   /* a DisplayString, cut to fit */
};

/* What a request needs besides the snapshot: sysUpTime (the master's, which net-snmp
 * keeps in step) and the wall clock, for TimeStamp and the snapshot's age. */
struct mib_env {
	uint32_t uptime_cs;
	int64_t now_us;
};

struct mib_row;

#define MIB_SKIPPED_NAMED 5 /* series named in mib_tree.skipped_names, at most */

struct mib_tree {
	const struct snapshot *snap; /* NULL unless status is OK, or STALE (then for the age only) */
	enum mib_snapshot_status status;
	const char *error;
	struct mib_row *rows[MIB_TABLES]; /* modules, counters, histograms, buckets, gauges, then the
					     counters, histograms, buckets, gauges per cgroup */
	size_t nrows[MIB_TABLES];
	size_t room;             /* arcs below the base (mib_tree_build) */
	size_t skipped;          /* rows whose module or metric names are too long for the MIB's
				    index SIZEs, whose OIDs would not fit in the room under the
				    base, or whose index another row has (served instead) */
	/* The series of those rows, named for the subagent's log: the first MIB_SKIPPED_NAMED
	 * as "module/metric/instance" (each name cut at 64 bytes), ", "-separated; a
	 * histogram's bucket rows count as its series, not again. */
	size_t skipped_series;
	char skipped_names[MIB_SKIPPED_NAMED * (3 * 64 + 12)];
	char skipped_last[3 * 64 + 12];
};

enum mib_lookup { MIB_FOUND, MIB_NO_SUCH_OBJECT, MIB_NO_SUCH_INSTANCE, MIB_END };

/* Builds the rows of snap (may be NULL; with status STALE, only its age is served) and keeps pointers into it and into error. room:
 * the arcs an OID may have below the base (MIB_MAX_OID - base length, at most
 * MIB_MAX_SUFFIX): a row whose longest OID would not fit is left out (and counted in
 * skipped), so that GET and GETNEXT agree and a walk never stops short at it. 0 or -ENOMEM. */
int mib_tree_build(struct mib_tree *v, const struct snapshot *snap, enum mib_snapshot_status status,
		   const char *error, size_t room);
void mib_tree_free(struct mib_tree *v);

/* GET: the exact instance. */
enum mib_lookup mib_tree_get(const struct mib_tree *v, const struct mib_env *env, const uint32_t *oid,
			     size_t len, struct mib_value *out);
/* GETNEXT: the first instance after oid (at or after it when inclusive), written to
 * next/next_len (room for MIB_MAX_SUFFIX arcs). MIB_FOUND or MIB_END. */
enum mib_lookup mib_tree_next(const struct mib_tree *v, const struct mib_env *env, const uint32_t *oid,
			      size_t len, bool inclusive, uint32_t *next, size_t *next_len, struct mib_value *out);

#endif
