/* Map layout of the `pagecache` module, shared by pagecache.bpf.c and
 * libcore/mod_pagecache.c. Fixed-width types only; cumulative u64 counts of pages (a large
 * folio counts as its number of pages) the kernel only adds to. */
#ifndef EBPF_PAGECACHE_H
#define EBPF_PAGECACHE_H

#include <linux/types.h>

/* Index into map `counts` (per-CPU array of u64). */
enum pagecache_count {
	PAGECACHE_ACCESSES = 0, /* pages marked accessed (folio_mark_accessed) */
	PAGECACHE_ADDITIONS,    /* pages added to the cache: the misses (filemap_add_folio) */
	PAGECACHE_DIRTIED,      /* pages that became dirty (folio_account_dirtied) */
	PAGECACHE_COUNTS,
};

#endif
