#include "terminal/log2_buckets.h"

#include <math.h>
#include <string.h>

/* The bucket holding upper: the smallest r with upper <= 2^r. */
static int bucket_of(double upper)
{
	int e;
	double m;

	if (isinf(upper))
		return LOG2_BUCKET_INF;
	if (upper <= 1.0)
		return 0;
	m = frexp(upper, &e); /* upper = m * 2^e, 0.5 <= m < 1 */
	if (m == 0.5)
		e--; /* a power of two closes its own bucket */
	return e > LOG2_BUCKETS_FINITE ? LOG2_BUCKETS_FINITE : e;
}

void log2_buckets_fold(const struct snapshot_module *m, const struct snapshot_histogram *h, struct log2_buckets *out)
{
	const struct snapshot_bucket *b = snapshot_buckets(m, h);

	memset(out, 0, sizeof(*out));
	out->sum = h->sum;
	for (int i = 0; i < h->nbuckets; i++) {
		double lower, upper;
		int r;

		snapshot_bucket_bounds(h, &b[i], &lower, &upper);
		r = bucket_of(upper);
		if (r == LOG2_BUCKET_INF && (out->inf_lower == 0 || lower < out->inf_lower))
			out->inf_lower = lower;
		out->count[r] += b[i].count;
		out->total += b[i].count;
	}
}

bool log2_buckets_delta(const struct log2_buckets *cur, const struct log2_buckets *prev, struct log2_buckets *out)
{
	for (int r = 0; r < LOG2_BUCKETS; r++) {
		if (cur->count[r] < prev->count[r]) {
			*out = *cur;
			return false;
		}
	}
	*out = *cur;
	out->total = 0;
	for (int r = 0; r < LOG2_BUCKETS; r++) {
		out->count[r] = cur->count[r] - prev->count[r];
		out->total += out->count[r];
	}
	/* The kernel's sum is u64 nanoseconds or bytes and may wrap: modulo 2^64 is right. */
	out->sum = cur->sum - prev->sum;
	return true;
}

void log2_bucket_bounds(const struct log2_buckets *buckets, int bucket, double *lower, double *upper)
{
	if (bucket == LOG2_BUCKET_INF) {
		*lower = buckets->inf_lower;
		*upper = INFINITY;
	} else if (bucket == 0) {
		*lower = 0;
		*upper = 1;
	} else {
		*lower = ldexp(1.0, bucket - 1);
		*upper = ldexp(1.0, bucket);
	}
}
