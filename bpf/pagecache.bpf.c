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
#include "pagecache.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0; /* 0: every process */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PAGECACHE_COUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void count(__u32 which, __u64 pages)
{
	if (tgid_filter_passes(filter_tgid))
		add_to_row(&counts, which, pages);
}

/* ---- accesses: folio_mark_accessed(folio) / mark_page_accessed(page) ---------------- */

SEC("fentry")
int BPF_PROG(access_folio_fentry, struct folio *folio)
{
	count(PAGECACHE_ACCESSES, folio_pages(folio));
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(access_folio_kprobe, struct folio *folio)
{
	count(PAGECACHE_ACCESSES, folio_pages(folio));
	return 0;
}

SEC("fentry")
int BPF_PROG(access_page_fentry)
{
	count(PAGECACHE_ACCESSES, 1);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(access_page_kprobe)
{
	count(PAGECACHE_ACCESSES, 1);
	return 0;
}

/* ---- additions: filemap_add_folio(mapping, folio, ...) / add_to_page_cache_lru(page, ...),
 * tracepoint filemap:mm_filemap_add_to_page_cache(folio) ---------------------------------- */

SEC("fentry")
int BPF_PROG(add_folio_fentry, struct address_space *mapping, struct folio *folio)
{
	count(PAGECACHE_ADDITIONS, folio_pages(folio));
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(add_folio_kprobe, struct address_space *mapping, struct folio *folio)
{
	count(PAGECACHE_ADDITIONS, folio_pages(folio));
	return 0;
}

SEC("fentry")
int BPF_PROG(add_page_fentry)
{
	count(PAGECACHE_ADDITIONS, 1);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(add_page_kprobe)
{
	count(PAGECACHE_ADDITIONS, 1);
	return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(add_folio_btf, struct folio *folio)
{
	count(PAGECACHE_ADDITIONS, folio_pages(folio));
	return 0;
}

SEC("raw_tp/mm_filemap_add_to_page_cache")
int BPF_PROG(add_folio_raw, struct folio *folio)
{
	count(PAGECACHE_ADDITIONS, folio_pages(folio));
	return 0;
}

/* ---- dirtied: folio_account_dirtied(folio, mapping) or __folio_mark_dirty(folio, ...) /
 * account_page_dirtied(page, mapping), tracepoint writeback:writeback_dirty_folio ------- */

SEC("fentry")
int BPF_PROG(dirty_folio_fentry, struct folio *folio)
{
	count(PAGECACHE_DIRTIED, folio_pages(folio));
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(dirty_folio_kprobe, struct folio *folio)
{
	count(PAGECACHE_DIRTIED, folio_pages(folio));
	return 0;
}

SEC("fentry")
int BPF_PROG(dirty_page_fentry)
{
	count(PAGECACHE_DIRTIED, 1);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(dirty_page_kprobe)
{
	count(PAGECACHE_DIRTIED, 1);
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(dirty_folio_btf, struct folio *folio)
{
	count(PAGECACHE_DIRTIED, folio_pages(folio));
	return 0;
}

SEC("raw_tp/writeback_dirty_folio")
int BPF_PROG(dirty_folio_raw, struct folio *folio)
{
	count(PAGECACHE_DIRTIED, folio_pages(folio));
	return 0;
}
