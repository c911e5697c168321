/* The `dcache` module: dentry-cache lookups, misses and the hit ratio of path walks, which
 * /proc does not tell. Only kernel functions can see them (no tracepoint exists), so on a
 * kernel without fentry and kprobes the module says so once and stays off. */
#include "libcore/engine/module.h"

#include "dcache.h"
#include "dcache.skel.h"

MODULE_SKELETON(dcache);

/* lookup_fast is static and could be inlined: __d_lookup_rcu is what it calls in the
 * common (RCU) walk. d_alloc_parallel is the slow path since 4.7. */
static const struct probe_candidate lookup_candidates[] = {
	{ ATTACH_FENTRY, NULL, { PROG_NAME(lookup_fentry) }, { NULL }, { "lookup_fast", "__d_lookup_rcu" } },
	{ ATTACH_KPROBE, NULL, { PROG_NAME(lookup_kprobe) }, { NULL }, { "lookup_fast", "__d_lookup_rcu" } },
};

static const struct probe_candidate miss_candidates[] = {
	{ ATTACH_FENTRY, NULL, { PROG_NAME(miss_fentry) }, { NULL }, { "d_alloc_parallel" } },
	{ ATTACH_KPROBE, NULL, { PROG_NAME(miss_kprobe) }, { NULL }, { "d_alloc_parallel" } },
};

static const struct module_point points[] = {
	MODULE_POINT("lookups", lookup_candidates),
	MODULE_POINT("misses", miss_candidates),
};

static const struct view_row count_rows[] = {
	{ DCACHE_LOOKUPS, "lookups", "" },
	{ DCACHE_MISSES, "misses", "" },
};

/* The hit ratio of the interval: of the lookups, the share that did not miss. */
static const struct view_ratio hit_ratio = { "hit_ratio", "", DCACHE_LOOKUPS, DCACHE_MISSES };

static const struct map_view views[] = {
	{ VIEW_PERCPU_COUNTERS(MAP_NAME(counts), DCACHE_COUNTS, count_rows), .ratio = &hit_ratio },
};

const struct module_ops dcache_module = {
	.name = "dcache",
	.description = "dentry-cache lookups, misses and hit ratio of path walks",
	MODULE_OBJECT(dcache),
};
