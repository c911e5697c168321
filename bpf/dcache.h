/* Map layout of the `dcache` module, shared by dcache.bpf.c and libcore/mod_dcache.c.
 * Fixed-width types only; cumulative u64 counts the kernel only adds to. */
#ifndef EBPF_DCACHE_H
#define EBPF_DCACHE_H

#include <linux/types.h>

/* Index into map `counts` (per-CPU array of u64). */
enum dcache_count {
	DCACHE_LOOKUPS = 0, /* path-walk lookups in the dentry cache (lookup_fast) */
	DCACHE_MISSES,      /* lookups the cache could not answer: the slow path allocates a
			       dentry and asks the filesystem (d_alloc_parallel) */
	DCACHE_COUNTS,
};

#endif
