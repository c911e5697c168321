/* The `dcache` module: dentry-cache lookups, misses and the hit ratio of path walks, which
 * /proc does not tell. Only kernel functions can see them (no tracepoint exists), so on a
 * kernel without fentry and kprobes the module says so once and stays off. */
#include "libcore/engine/module.h"

#include "dcache.h"
#include "dcache.skel.h"
#include "libcore/hist/ratio.h"

#include <string.h>

/* lookup_fast is static and could be inlined: __d_lookup_rcu is what it calls in the
 * common (RCU) walk. d_alloc_parallel is the slow path since 4.7. */
static const struct probe_candidate lookup_candidates[] = {
	{ ATTACH_FENTRY, NULL, { "lookup_fentry" }, { NULL }, { "lookup_fast", "__d_lookup_rcu" } },
	{ ATTACH_KPROBE, NULL, { "lookup_kprobe" }, { NULL }, { "lookup_fast", "__d_lookup_rcu" } },
};

static const struct probe_candidate miss_candidates[] = {
	{ ATTACH_FENTRY, NULL, { "miss_fentry" }, { NULL }, { "d_alloc_parallel" } },
	{ ATTACH_KPROBE, NULL, { "miss_kprobe" }, { NULL }, { "d_alloc_parallel" } },
};

static const struct module_point points[] = {
	MODULE_POINT("lookups", lookup_candidates),
	MODULE_POINT("misses", miss_candidates),
};

static const struct view_row count_rows[] = {
	{ DCACHE_LOOKUPS, "lookups", "" },
	{ DCACHE_MISSES, "misses", "" },
};

enum { VIEW_COUNTS };
static const struct map_view views[] = {
	[VIEW_COUNTS] = { .map = "counts", .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(uint64_t),
			  .nrows = DCACHE_COUNTS, .rows = count_rows, .nrows_view = COUNT_OF(count_rows) },
};

struct dcache {
	uint64_t prev[DCACHE_COUNTS]; /* for the hit ratio of the last interval */
};

/* The hit ratio of the interval: a ratio of two rows, which no view can say. */
static int dcache_read(struct module *m, const struct metric_sink *sink)
{
	struct dcache *d = m->priv;
	const uint64_t *counts = module_view_rows(m, VIEW_COUNTS, NULL);
	uint64_t dl = counter_delta(counts[DCACHE_LOOKUPS], d->prev[DCACHE_LOOKUPS]);
	uint64_t dm = counter_delta(counts[DCACHE_MISSES], d->prev[DCACHE_MISSES]);
	double ratio = hit_ratio_percent(dl, dm);

	memcpy(d->prev, counts, sizeof(d->prev));
	if (ratio >= 0 && sink->gauge)
		sink->gauge(sink->ctx, "hit_ratio", "", ratio);
	return 0;
}

const struct module_ops dcache_module = {
	.name = "dcache",
	.description = "dentry-cache lookups, misses and hit ratio of path walks",
	.priv_size = sizeof(struct dcache),
	.elf_bytes = dcache_bpf__elf_bytes,
	.points = points,
	.npoints = COUNT_OF(points),
	.views = views,
	.nviews = COUNT_OF(views),
	.read = dcache_read,
};
