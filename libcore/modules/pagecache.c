/* The `pagecache` module: page-cache accesses, additions (misses), pages dirtied, and the
 * hit ratio of each interval, in pages. The hooked functions were renamed as the kernel
 * moved from pages to folios; each probe point lists the names, newest first, and the
 * first that loads and attaches wins. Accesses have no tracepoint, so on a kernel without
 * fentry and kprobes the module says so once and stays off. */
#include "libcore/engine/module.h"

#include "pagecache.h"
#include "pagecache.skel.h"

MODULE_SKELETON(pagecache);

static const struct probe_candidate access_candidates[] = {
	{ ATTACH_FENTRY, NULL, { PROG_NAME(access_folio_fentry) }, { NULL }, { "folio_mark_accessed" } },
	{ ATTACH_FENTRY, NULL, { PROG_NAME(access_page_fentry) }, { NULL }, { "mark_page_accessed" } },
	{ ATTACH_KPROBE, NULL, { PROG_NAME(access_folio_kprobe) }, { NULL }, { "folio_mark_accessed" } },
	{ ATTACH_KPROBE, NULL, { PROG_NAME(access_page_kprobe) }, { NULL }, { "mark_page_accessed" } },
};

static const struct probe_candidate addition_candidates[] = {
	{ ATTACH_FENTRY, NULL, { PROG_NAME(add_folio_fentry) }, { NULL }, { "filemap_add_folio" } },
	{ ATTACH_FENTRY, NULL, { PROG_NAME(add_page_fentry) }, { NULL }, { "add_to_page_cache_lru" } },
	{ ATTACH_KPROBE, NULL, { PROG_NAME(add_folio_kprobe) }, { NULL }, { "filemap_add_folio" } },
	{ ATTACH_KPROBE, NULL, { PROG_NAME(add_page_kprobe) }, { NULL }, { "add_to_page_cache_lru" } },
	{ ATTACH_TP_BTF, "mm_filemap_add_to_page_cache", { PROG_NAME(add_folio_btf) }, { NULL } },
	{ ATTACH_RAW_TP, "mm_filemap_add_to_page_cache", { PROG_NAME(add_folio_raw) }, { NULL } },
};

/* folio_account_dirtied is static and may be inlined into __folio_mark_dirty, its only
 * caller, which takes the same first argument. */
static const struct probe_candidate dirtied_candidates[] = {
	{ ATTACH_FENTRY, NULL, { PROG_NAME(dirty_folio_fentry) }, { NULL }, { "folio_account_dirtied", "__folio_mark_dirty" } },
	{ ATTACH_FENTRY, NULL, { PROG_NAME(dirty_page_fentry) }, { NULL }, { "account_page_dirtied" } },
	{ ATTACH_KPROBE, NULL, { PROG_NAME(dirty_folio_kprobe) }, { NULL }, { "folio_account_dirtied", "__folio_mark_dirty" } },
	{ ATTACH_KPROBE, NULL, { PROG_NAME(dirty_page_kprobe) }, { NULL }, { "account_page_dirtied" } },
	{ ATTACH_TP_BTF, "writeback_dirty_folio", { PROG_NAME(dirty_folio_btf) }, { NULL } },
	{ ATTACH_RAW_TP, "writeback_dirty_folio", { PROG_NAME(dirty_folio_raw) }, { NULL } },
};

static const struct module_point points[] = {
	MODULE_POINT("accesses", access_candidates),
	MODULE_POINT("additions", addition_candidates),
	MODULE_POINT("dirtied", dirtied_candidates),
};

static const struct view_row count_rows[] = {
	{ PAGECACHE_ACCESSES, "accesses", "" },
	{ PAGECACHE_ADDITIONS, "additions", "" },
	{ PAGECACHE_DIRTIED, "dirtied", "" },
};

/* Of the pages accessed in the interval, the share that did not have to be added. */
static const struct view_ratio hit_ratio = { "hit_ratio", "", PAGECACHE_ACCESSES, PAGECACHE_ADDITIONS };

static const struct map_view views[] = {
	{ VIEW_PERCPU_COUNTERS(MAP_NAME(counts), PAGECACHE_COUNTS, count_rows), .ratio = &hit_ratio },
};

const struct module_ops pagecache_module = {
	.name = "pagecache",
	.description = "page-cache accesses, additions (misses), pages dirtied and hit ratio",
	MODULE_OBJECT(pagecache),
};
