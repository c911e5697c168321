#include "libcore/hist/hist.h"

#include <math.h>
#include <string.h>

double hist_slot_lower(unsigned int precision, unsigned int slot)
{
	return (double)hist_slot_lower_bound(precision, slot);
}

double hist_slot_upper(unsigned int precision, unsigned int slot)
{
	return slot >= HIST_LAST_SLOT(precision) ? INFINITY : (double)hist_slot_upper_bound(precision, slot);
}

/* For interpolation the open-ended last slot is treated as (lower, 2 * lower]. */
static double interp_upper(unsigned int precision, unsigned int slot)
{
	return slot >= HIST_LAST_SLOT(precision) ? 2.0 * hist_slot_lower(precision, slot)
						 : hist_slot_upper(precision, slot);
}

void hist_tracker_init(struct hist_tracker *t, size_t n, unsigned int precision)
{
	for (size_t i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].precision = precision <= HIST_PRECISION_MAX ? precision : HIST_PRECISION_DEFAULT;
		t[i].precision_set = true;
	}
}

void hist_advance(struct hist_tracker *t, const uint64_t *cur_slots, uint64_t cur_sum,
		  struct hist_interval *out)
{
	unsigned int p = t->precision_set ? t->precision : HIST_PRECISION_DEFAULT;
	unsigned int n = HIST_NSLOTS(p);
	uint64_t total = 0;
	bool reset = false;

	/* Only a slot count going backwards means the maps were recreated. The sum of
	 * nanoseconds wraps modulo 2^64 within months (thousands of threads parked in futex),
	 * so it says nothing about a reset; its delta is taken modulo 2^64 below. */
	for (unsigned int i = 0; i < n; i++) {
		total += cur_slots[i];
		reset |= cur_slots[i] < t->prev_slots[i];
	}

	/* The slot arrays are large (HIST_SLOTS): only their first n entries are written, and
	 * a row that saw nothing since the last read (same count, no reset: most rows of
	 * `Latency "all"`) gets its all-zero interval without a copy. */
	out->precision = p;
	out->nslots = n;
	out->reset = reset;
	out->total_count = total;
	out->total_sum = cur_sum;
	out->total_slots = t->prev_slots;
	if (!reset && total == t->prev_count) {
		memset(out->slots, 0, n * sizeof(out->slots[0]));
		out->count = 0;
		out->sum = cur_sum - t->prev_sum; /* 0 unless slots and sum were read apart */
		t->prev_sum = cur_sum;
		return;
	}
	out->count = 0;
	for (unsigned int i = 0; i < n; i++) {
		out->slots[i] = reset ? cur_slots[i] : cur_slots[i] - t->prev_slots[i];
		out->count += out->slots[i];
	}
	out->sum = reset ? cur_sum : cur_sum - t->prev_sum; /* unsigned: modulo 2^64 */

	memcpy(t->prev_slots, cur_slots, n * sizeof(t->prev_slots[0]));
	t->prev_count = total;
	t->prev_sum = cur_sum;
}

void hist_rows_unpack(const void *packed, void *full, size_t head, unsigned int nrows, unsigned int precision)
{
	memcpy(full, packed, head);
	for (unsigned int k = 0; k < nrows; k++)
		memcpy((char *)full + head + k * sizeof(struct hist_row),
		       (const char *)packed + HIST_PACKED_ROW_OFFSET(head, k, precision), HIST_ROW_SIZE(precision));
}

/* Where the values of slot k can lie given the exact interval sum: the slot's own sum is
 * the total minus what the other slots hold, and each of those holds between its count
 * times its lower and its upper bound. Returns the range [*lo, *hi] of slot k's sum; a read
 * that caught the slots and the sum at different moments (they are separate atomic adds)
 * can be inconsistent, and then only the slot's own bounds are known. */
static void slot_sum_range(const struct hist_interval *h, unsigned int k, double *lo, double *hi)
{
	double n = (double)h->slots[k], others_lo = 0, others_hi = 0;

	unsigned int p = h->precision;

	for (unsigned int i = 0; i < h->nslots; i++) {
		if (i == k || !h->slots[i])
			continue;
		others_lo += (double)h->slots[i] * hist_slot_lower(p, i);
		others_hi += (double)h->slots[i] * hist_slot_upper(p, i); /* INFINITY for the last slot */
	}
	*lo = fmax(n * hist_slot_lower(p, k), (double)h->sum - others_hi);
	*hi = fmin(n * hist_slot_upper(p, k), (double)h->sum - others_lo);
	if (*lo > *hi) {
		*lo = n * hist_slot_lower(p, k);
		*hi = n * hist_slot_upper(p, k);
	}
}

/* The j-th smallest (1-based) of n values in [lo, hi] whose sum lies in [sum_lo, sum_hi]
 * is at most what remains when the j-1 below it sit at lo and the rest equal it, and at
 * least what remains when the n-j above it sit at hi and the rest equal it. */
static void order_stat_range(double n, double j, double lo, double hi, double sum_lo, double sum_hi,
			     double *vmin, double *vmax)
{
	double above = n > j ? (n - j) * hi : 0; /* no 0 * INFINITY for the last slot */

	*vmax = fmin(hi, (sum_hi - (j - 1) * lo) / (n - j + 1));
	*vmin = fmax(lo, (sum_lo - above) / j);
}

double hist_percentile(const struct hist_interval *h, double pct)
{
	double rank, seen = 0;

	if (h->count == 0 || !(pct > 0.0) || pct > 100.0)
		return NAN;
	rank = pct / 100.0 * (double)h->count;
	for (unsigned int i = 0; i < h->nslots; i++) {
		double n = (double)h->slots[i];

		if (n > 0 && seen + n >= rank) {
			double lo = hist_slot_lower(h->precision, i), hi = hist_slot_upper(h->precision, i);
			double sum_lo, sum_hi, mean, spread, est, j, vmin, vmax;

			slot_sum_range(h, i, &sum_lo, &sum_hi);
			if (isinf(sum_hi)) { /* the open last slot, nothing known: as (lo, 2 lo] */
				mean = 1.5 * lo;
				spread = lo;
			} else {
				/* The slot's mean is known to lie in [sum_lo, sum_hi] / n: take the middle,
				 * and spread the estimate over as much as that range is uncertain, kept
				 * inside the slot around the mean. Nothing known: the whole slot (linear
				 * interpolation); the mean known exactly: a single point, the mean. */
				mean = (sum_lo + sum_hi) / 2 / n;
				spread = fmin((sum_hi - sum_lo) / n, 2 * fmin(mean - lo, hi - mean));
			}
			est = mean + spread * ((rank - seen) / n - 0.5);
			/* Never report what the counts and the sum rule out. */
			j = fmax(1.0, ceil(rank - seen - 1e-9));
			order_stat_range(n, j, lo, hi, sum_lo, sum_hi, &vmin, &vmax);
			if (vmin <= vmax)
				est = fmin(vmax, fmax(vmin, est));
			return est;
		}
		seen += n;
	}
	return NAN; /* not reached: rank <= count */
}

double hist_mean(const struct hist_interval *h)
{
	return h->count ? (double)h->sum / (double)h->count : NAN;
}

double hist_count_between(const struct hist_interval *h, double lower, double upper)
{
	double total = 0;

	if (!(upper > 0) || isinf(upper))
		upper = INFINITY;
	for (unsigned int i = 0; i < h->nslots; i++) {
		double lo = hist_slot_lower(h->precision, i), hi = interp_upper(h->precision, i);
		double from = fmax(lo, lower), to = fmin(hi, upper);

		if (h->slots[i] == 0 || to <= from)
			continue;
		total += (double)h->slots[i] * (to - from) / (hi - lo);
	}
	return total;
}
