#include "view/hist_rows.h"

#include <math.h>
#include <string.h>

/* The row holding upper: the smallest r with upper <= 2^r. */
static int row_of(double upper)
{
	int e;
	double m;

	if (isinf(upper))
		return HIST_ROW_INF;
	if (upper <= 1.0)
		return 0;
	m = frexp(upper, &e); /* upper = m * 2^e, 0.5 <= m < 1 */
	if (m == 0.5)
		e--; /* a power of two closes its own row */
	return e > HIST_ROWS_FINITE ? HIST_ROWS_FINITE : e;
}

void hist_rows_fold(const struct snapshot_module *m, const struct snapshot_histogram *h, struct hist_rows *out)
{
	const struct snapshot_bucket *b = snapshot_buckets(m, h);

	memset(out, 0, sizeof(*out));
	out->sum = h->sum;
	for (int i = 0; i < h->nbuckets; i++) {
		double lower, upper;
		int r;

		snapshot_bucket_bounds(h, &b[i], &lower, &upper);
		r = row_of(upper);
		if (r == HIST_ROW_INF && (out->inf_lower == 0 || lower < out->inf_lower))
			out->inf_lower = lower;
		out->count[r] += b[i].count;
		out->total += b[i].count;
	}
}

bool hist_rows_delta(const struct hist_rows *cur, const struct hist_rows *prev, struct hist_rows *out)
{
	for (int r = 0; r < HIST_ROWS; r++) {
		if (cur->count[r] < prev->count[r]) {
			*out = *cur;
			return false;
		}
	}
	*out = *cur;
	out->total = 0;
	for (int r = 0; r < HIST_ROWS; r++) {
		out->count[r] = cur->count[r] - prev->count[r];
		out->total += out->count[r];
	}
	/* The kernel's sum is u64 nanoseconds or bytes and may wrap: modulo 2^64 is right. */
	out->sum = cur->sum - prev->sum;
	return true;
}

void hist_row_bounds(const struct hist_rows *rows, int row, double *lower, double *upper)
{
	if (row == HIST_ROW_INF) {
		*lower = rows->inf_lower;
		*upper = INFINITY;
	} else if (row == 0) {
		*lower = 0;
		*upper = 1;
	} else {
		*lower = ldexp(1.0, row - 1);
		*upper = ldexp(1.0, row);
	}
}
