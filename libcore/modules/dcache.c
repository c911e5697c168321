/* The `dcache` module: dentry-cache lookups, misses and the hit ratio of path walks, which
 * /proc does not tell. Only kernel functions can see them (no tracepoint exists), so on a
 * kernel without fentry and kprobes the module says so once and stays off. */
#include "libcore/engine/module.h"

#include "dcache.h"
#include "dcache.skel.h"
#include "libcore/engine/log.h"
#include "libcore/engine/percpu_read.h"
#include "libcore/hist/ratio.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

enum { POINT_LOOKUPS, POINT_MISSES, NPOINTS };

struct dcache {
	struct dcache_bpf *skel;
	uint32_t filter_tgid;
	struct probe_point points[NPOINTS];
	struct percpu_reader reader;
	uint64_t counts[DCACHE_COUNTS];
	uint64_t prev[DCACHE_COUNTS]; /* for the hit ratio of the last interval */
};

static const char *const option_names[] = { NULL };

static int dcache_create(struct module *m)
{
	struct dcache *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->points[POINT_LOOKUPS] = (struct probe_point){ .name = "lookups", .candidates = lookup_candidates,
							 .ncandidates = 2, .enabled = true, .chosen = -1 };
	d->points[POINT_MISSES] = (struct probe_point){ .name = "misses", .candidates = miss_candidates,
							.ncandidates = 2, .enabled = true, .chosen = -1 };
	m->priv = d;
	m->probes.points = d->points;
	m->probes.npoints = NPOINTS;
	return 0;
}

static int dcache_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	return 0;
}

static struct bpf_object *open_object(void *ctx)
{
	struct dcache *d = ctx;

	d->skel = dcache_bpf__open();
	if (!d->skel)
		return NULL;
	d->skel->rodata->filter_tgid = d->filter_tgid;
	return d->skel->obj;
}

static int load_object(void *ctx)
{
	struct dcache *d = ctx;

	return dcache_bpf__load(d->skel);
}

static void close_object(void *ctx)
{
	struct dcache *d = ctx;

	dcache_bpf__destroy(d->skel);
	d->skel = NULL;
}

static int dcache_start(struct module *m, char *err, size_t errlen)
{
	struct dcache *d = m->priv;
	struct probe_object po = { .ctx = d, .open = open_object, .load = load_object, .close = close_object };
	int e;

	d->filter_tgid = m->filter_tgid;
	if (probe_set_start(&m->probes, &po, err, errlen))
		return -1;
	e = percpu_reader_init(&d->reader, bpf_map__fd(d->skel->maps.counts), DCACHE_COUNTS, sizeof(uint64_t));
	if (e) {
		snprintf(err, errlen, "cannot set up the map reader: %s", strerror(-e));
		return -1;
	}
	return 0;
}

static int dcache_read(struct module *m, const struct metric_sink *sink)
{
	struct dcache *d = m->priv;
	uint64_t dl, dm;
	double ratio;
	int err;

	err = percpu_reader_read(&d->reader, d->counts);
	if (err)
		return err;
	dl = counter_delta(d->counts[DCACHE_LOOKUPS], d->prev[DCACHE_LOOKUPS]);
	dm = counter_delta(d->counts[DCACHE_MISSES], d->prev[DCACHE_MISSES]);
	memcpy(d->prev, d->counts, sizeof(d->prev));
	if (d->counts[DCACHE_LOOKUPS])
		sink->counter(sink->ctx, "lookups", "", d->counts[DCACHE_LOOKUPS]);
	if (d->counts[DCACHE_MISSES])
		sink->counter(sink->ctx, "misses", "", d->counts[DCACHE_MISSES]);
	ratio = hit_ratio_percent(dl, dm);
	if (ratio >= 0 && sink->gauge)
		sink->gauge(sink->ctx, "hit_ratio", "", ratio);
	return 0;
}

static void dcache_destroy(struct module *m)
{
	struct dcache *d = m->priv;

	if (!d)
		return;
	probe_set_stop(&m->probes);
	if (d->skel)
		close_object(d);
	percpu_reader_free(&d->reader);
	free(d);
	m->priv = NULL;
}

const struct module_ops dcache_module = {
	.name = "dcache",
	.description = "dentry-cache lookups, misses and hit ratio of path walks",
	.in_default_set = false,
	.option_names = option_names,
	.create = dcache_create,
	.set_option = dcache_set_option,
	.start = dcache_start,
	.read = dcache_read,
	.destroy = dcache_destroy,
};
