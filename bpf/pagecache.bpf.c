// SPDX-License-Identifier: GPL-2.0
/* pagecache module: page-cache accesses, additions (misses) and pages dirtied, in pages.
 *
 * The functions were converted from pages to folios around 5.16-6.2 and keep changing, so
 * each probe point has a folio flavour and a page flavour; user space tries them in that
 * order (newest first) with alternate names per flavour (libcore/mod_pagecache.c).
 * Additions and dirtied pages also have tracepoints (tp_btf / raw_tp), tried last.
 * Entry points are thin and call count().
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "include/folio.h"
#include "include/entry_points.bpf.h"
#include "pagecache.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0; /* 0: every process */

COUNTER_ROWS_MAP(counts, PAGECACHE_COUNTS);

static __always_inline void count(__u32 which, __u64 pages)
{
	if (tgid_filter_passes(filter_tgid))
		add_to_row(&counts, which, pages);
}

/* ---- accesses: folio_mark_accessed(folio) / mark_page_accessed(page) ---------------- */

FENTRY_KPROBE(access_folio, count(PAGECACHE_ACCESSES, folio_pages(folio)), struct folio *folio)
FENTRY_KPROBE(access_page, count(PAGECACHE_ACCESSES, 1))

/* ---- additions: filemap_add_folio(mapping, folio, ...) / add_to_page_cache_lru(page, ...),
 * tracepoint filemap:mm_filemap_add_to_page_cache(folio) ---------------------------------- */

FENTRY_KPROBE(add_folio, count(PAGECACHE_ADDITIONS, folio_pages(folio)), struct address_space *mapping,
	      struct folio *folio)
FENTRY_KPROBE(add_page, count(PAGECACHE_ADDITIONS, 1))
TP_BTF_RAW("mm_filemap_add_to_page_cache", add_folio_btf, add_folio_raw, count(PAGECACHE_ADDITIONS, folio_pages(folio)),
	   struct folio *folio)

/* ---- dirtied: folio_account_dirtied(folio, mapping) or __folio_mark_dirty(folio, ...) /
 * account_page_dirtied(page, mapping), tracepoint writeback:writeback_dirty_folio ------- */

FENTRY_KPROBE(dirty_folio, count(PAGECACHE_DIRTIED, folio_pages(folio)), struct folio *folio)
FENTRY_KPROBE(dirty_page, count(PAGECACHE_DIRTIED, 1))
TP_BTF_RAW("writeback_dirty_folio", dirty_folio_btf, dirty_folio_raw, count(PAGECACHE_DIRTIED, folio_pages(folio)),
	   struct folio *folio)
