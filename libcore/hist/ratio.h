/* Interval deltas of cumulative counters and the hit ratios computed from them (dcache,
 * pagecache). A ratio is always of the last interval, never of lifetime totals. */
#ifndef EBPF_CORE_RATIO_H
#define EBPF_CORE_RATIO_H

#include <stdint.h>

/* cur - prev; a counter that went backwards means its map was recreated, and the interval
 * is then everything the new map holds (cur). */
uint64_t counter_delta(uint64_t cur, uint64_t prev);

/* Percent of `accesses` that were not `misses`, in [0, 100]; -1 when there were no
 * accesses (no ratio exists: nothing is sent). misses > accesses (the two are counted at
 * different functions, and some misses come from callers that do not count as accesses)
 * reads as 0. */
double hit_ratio_percent(uint64_t accesses, uint64_t misses);

#endif
