/* The `pagecache` module: page-cache accesses, additions (misses), pages dirtied, and the
 * hit ratio of each interval, in pages. The hooked functions were renamed as the kernel
 * moved from pages to folios; each probe point lists the names, newest first, and the
 * first that loads and attaches wins. Accesses have no tracepoint, so on a kernel without
 * fentry and kprobes the module says so once and stays off. */
#include "libcore/engine/module.h"

#include "libcore/engine/log.h"
#include "pagecache.h"
#include "pagecache.skel.h"
#include "libcore/engine/percpu_read.h"
#include "libcore/hist/ratio.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct probe_candidate access_candidates[] = {
	{ ATTACH_FENTRY, NULL, { "access_folio_fentry" }, { NULL }, { "folio_mark_accessed" } },
	{ ATTACH_FENTRY, NULL, { "access_page_fentry" }, { NULL }, { "mark_page_accessed" } },
	{ ATTACH_KPROBE, NULL, { "access_folio_kprobe" }, { NULL }, { "folio_mark_accessed" } },
	{ ATTACH_KPROBE, NULL, { "access_page_kprobe" }, { NULL }, { "mark_page_accessed" } },
};

static const struct probe_candidate addition_candidates[] = {
	{ ATTACH_FENTRY, NULL, { "add_folio_fentry" }, { NULL }, { "filemap_add_folio" } },
	{ ATTACH_FENTRY, NULL, { "add_page_fentry" }, { NULL }, { "add_to_page_cache_lru" } },
	{ ATTACH_KPROBE, NULL, { "add_folio_kprobe" }, { NULL }, { "filemap_add_folio" } },
	{ ATTACH_KPROBE, NULL, { "add_page_kprobe" }, { NULL }, { "add_to_page_cache_lru" } },
	{ ATTACH_TP_BTF, "mm_filemap_add_to_page_cache", { "add_folio_btf" }, { NULL } },
	{ ATTACH_RAW_TP, "mm_filemap_add_to_page_cache", { "add_folio_raw" }, { NULL } },
};

/* folio_account_dirtied is static and may be inlined into __folio_mark_dirty, its only
 * caller, which takes the same first argument. */
static const struct probe_candidate dirtied_candidates[] = {
	{ ATTACH_FENTRY, NULL, { "dirty_folio_fentry" }, { NULL }, { "folio_account_dirtied", "__folio_mark_dirty" } },
	{ ATTACH_FENTRY, NULL, { "dirty_page_fentry" }, { NULL }, { "account_page_dirtied" } },
	{ ATTACH_KPROBE, NULL, { "dirty_folio_kprobe" }, { NULL }, { "folio_account_dirtied", "__folio_mark_dirty" } },
	{ ATTACH_KPROBE, NULL, { "dirty_page_kprobe" }, { NULL }, { "account_page_dirtied" } },
	{ ATTACH_TP_BTF, "writeback_dirty_folio", { "dirty_folio_btf" }, { NULL } },
	{ ATTACH_RAW_TP, "writeback_dirty_folio", { "dirty_folio_raw" }, { NULL } },
};

enum { POINT_ACCESSES, POINT_ADDITIONS, POINT_DIRTIED, NPOINTS };

static const char *const count_names[PAGECACHE_COUNTS] = { "accesses", "additions", "dirtied" };

struct pagecache {
	struct pagecache_bpf *skel;
	uint32_t filter_tgid;
	struct probe_point points[NPOINTS];
	struct percpu_reader reader;
	uint64_t counts[PAGECACHE_COUNTS];
	uint64_t prev[PAGECACHE_COUNTS];
};

static const char *const option_names[] = { NULL };

static int pagecache_create(struct module *m)
{
	struct pagecache *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return -ENOMEM;
	pc->points[POINT_ACCESSES] = (struct probe_point){ .name = "accesses", .candidates = access_candidates,
							   .ncandidates = 4, .enabled = true, .chosen = -1 };
	pc->points[POINT_ADDITIONS] = (struct probe_point){ .name = "additions", .candidates = addition_candidates,
							    .ncandidates = 6, .enabled = true, .chosen = -1 };
	pc->points[POINT_DIRTIED] = (struct probe_point){ .name = "dirtied", .candidates = dirtied_candidates,
							  .ncandidates = 6, .enabled = true, .chosen = -1 };
	m->priv = pc;
	m->probes.points = pc->points;
	m->probes.npoints = NPOINTS;
	return 0;
}

static int pagecache_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	return 0;
}

static struct bpf_object *open_object(void *ctx)
{
	struct pagecache *pc = ctx;

	pc->skel = pagecache_bpf__open();
	if (!pc->skel)
		return NULL;
	pc->skel->rodata->filter_tgid = pc->filter_tgid;
	return pc->skel->obj;
}

static int load_object(void *ctx)
{
	struct pagecache *pc = ctx;

	return pagecache_bpf__load(pc->skel);
}

static void close_object(void *ctx)
{
	struct pagecache *pc = ctx;

	pagecache_bpf__destroy(pc->skel);
	pc->skel = NULL;
}

static int pagecache_start(struct module *m, char *err, size_t errlen)
{
	struct pagecache *pc = m->priv;
	struct probe_object po = { .ctx = pc, .open = open_object, .load = load_object, .close = close_object };
	int e;

	pc->filter_tgid = m->filter_tgid;
	if (probe_set_start(&m->probes, &po, err, errlen))
		return -1;
	e = percpu_reader_init(&pc->reader, bpf_map__fd(pc->skel->maps.counts), PAGECACHE_COUNTS, sizeof(uint64_t));
	if (e) {
		snprintf(err, errlen, "cannot set up the map reader: %s", strerror(-e));
		return -1;
	}
	return 0;
}

static int pagecache_read(struct module *m, const struct metric_sink *sink)
{
	struct pagecache *pc = m->priv;
	uint64_t accesses, additions;
	double ratio;
	int err;

	err = percpu_reader_read(&pc->reader, pc->counts);
	if (err)
		return err;
	accesses = counter_delta(pc->counts[PAGECACHE_ACCESSES], pc->prev[PAGECACHE_ACCESSES]);
	additions = counter_delta(pc->counts[PAGECACHE_ADDITIONS], pc->prev[PAGECACHE_ADDITIONS]);
	memcpy(pc->prev, pc->counts, sizeof(pc->prev));
	for (int i = 0; i < PAGECACHE_COUNTS; i++)
		if (pc->counts[i])
			sink->counter(sink->ctx, count_names[i], "", pc->counts[i]);
	/* Of the pages accessed in the interval, the share that did not have to be added. */
	ratio = hit_ratio_percent(accesses, additions);
	if (ratio >= 0 && sink->gauge)
		sink->gauge(sink->ctx, "hit_ratio", "", ratio);
	return 0;
}

static void pagecache_destroy(struct module *m)
{
	struct pagecache *pc = m->priv;

	if (!pc)
		return;
	probe_set_stop(&m->probes);
	if (pc->skel)
		close_object(pc);
	percpu_reader_free(&pc->reader);
	free(pc);
	m->priv = NULL;
}

const struct module_ops pagecache_module = {
	.name = "pagecache",
	.description = "page-cache accesses, additions (misses), pages dirtied and hit ratio",
	.in_default_set = false,
	.option_names = option_names,
	.create = pagecache_create,
	.set_option = pagecache_set_option,
	.start = pagecache_start,
	.read = pagecache_read,
	.destroy = pagecache_destroy,
};
