// SPDX-License-Identifier: GPL-2.0
/* dcache module: dentry-cache lookups and misses of path walks.
 *
 * A path walk looks every component up in the dentry cache first (lookup_fast); when the
 * cache has no dentry for it, the slow path allocates one and asks the filesystem
 * (d_alloc_parallel, then ->lookup). Misses are counted there: on current kernels the walk
 * no longer calls d_lookup (BCC's dcstat counts d_lookup returning NULL, which only the
 * create and rename paths reach now). Both points count calls at entry, so they need no
 * return value and no start time. The function names are set by user space
 * (libcore/probe.h), with alternates for kernels that inline or rename them.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include <bpf/bpf_tracing.h>
#include "include/entry_points.bpf.h"
#include "dcache.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0; /* 0: every process */

COUNTER_ROWS_MAP(counts, DCACHE_COUNTS);

static __always_inline void count(__u32 which)
{
	if (tgid_filter_passes(filter_tgid))
		add_to_row(&counts, which, 1);
}

FENTRY_KPROBE(lookup, count(DCACHE_LOOKUPS))
FENTRY_KPROBE(miss, count(DCACHE_MISSES))
