/* A snapshot histogram folded into log2 buckets, the buckets BCC's print_log2_hist draws.
 *
 * The kernel's slots may be finer than a power of two; the display is not: every slot
 * goes to the bucket that holds its upper bound, with its bounds taken from the shared
 * snapshot code (snapshot_bucket_bounds), never assumed from its position. Buckets:
 *   bucket 0       [0, 1]
 *   bucket r       (2^(r-1), 2^r]             1 <= r <= LOG2_BUCKETS_FINITE
 *   LOG2_BUCKET_INF (lower, inf): the slot without an upper bound
 * A slot whose bounds straddle a power of two (no layout does that today) still lands in
 * one bucket, the one of its upper bound: counts stay exact, the bucket's label is then a
 * slight approximation.
 */
#ifndef EBPF_TERMINAL_LOG2_BUCKETS_H
#define EBPF_TERMINAL_LOG2_BUCKETS_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot/snapshot_file.h"

#define LOG2_BUCKETS_FINITE 64
#define LOG2_BUCKET_INF (LOG2_BUCKETS_FINITE + 1)
#define LOG2_BUCKETS (LOG2_BUCKET_INF + 1)

struct log2_buckets {
	uint64_t count[LOG2_BUCKETS];
	double inf_lower; /* lower bound of the open slot, when it has counts */
	uint64_t total;   /* sum of count[] */
	uint64_t sum;     /* sum of the values (the snapshot's exact sum) */
};

/* Cumulative buckets of h, one of m's histograms (everything since the module started):
 * each slot of the kernel's layout folded into the log2 bucket holding its upper bound. */
void log2_buckets_fold(const struct snapshot_module *m, const struct snapshot_histogram *h, struct log2_buckets *out);

/* out = cur - prev, bucket by bucket. A bucket that went backwards means the module's maps were
 * recreated (collectd restarted it): out is then cur whole and the result is false. */
bool log2_buckets_delta(const struct log2_buckets *cur, const struct log2_buckets *prev, struct log2_buckets *out);

/* Bounds of a bucket in the histogram's own unit: values in (lower, upper], bucket 0 [0, 1]. */
void log2_bucket_bounds(const struct log2_buckets *buckets, int bucket, double *lower, double *upper);

#endif
