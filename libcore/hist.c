#include "hist.h"

#include <math.h>
#include <string.h>

double hist_slot_lower(unsigned int slot)
{
	return slot == 0 ? 0.0 : ldexp(1.0, (int)slot - 1);
}

double hist_slot_upper(unsigned int slot)
{
	return slot >= HIST_SLOTS - 1 ? INFINITY : ldexp(1.0, (int)slot);
}

/* For interpolation the open-ended last slot is treated as (lower, 2 * lower]. */
static double interp_upper(unsigned int slot)
{
	return slot >= HIST_SLOTS - 1 ? 2.0 * hist_slot_lower(slot) : hist_slot_upper(slot);
}

void hist_advance(struct hist_tracker *t, const uint64_t cur_slots[HIST_SLOTS], uint64_t cur_sum,
		  struct hist_interval *out)
{
	/* Only a slot count going backwards means the maps were recreated. The sum of
	 * nanoseconds wraps modulo 2^64 within months (thousands of threads parked in futex),
	 * so it says nothing about a reset; its delta is taken modulo 2^64 below. */
	bool reset = false;

	for (unsigned int i = 0; i < HIST_SLOTS && !reset; i++)
		reset = cur_slots[i] < t->prev_slots[i];

	memset(out, 0, sizeof(*out));
	out->reset = reset;
	for (unsigned int i = 0; i < HIST_SLOTS; i++) {
		out->slots[i] = reset ? cur_slots[i] : cur_slots[i] - t->prev_slots[i];
		out->count += out->slots[i];
		out->total_count += cur_slots[i];
		out->total_slots[i] = cur_slots[i];
	}
	out->sum = reset ? cur_sum : cur_sum - t->prev_sum; /* unsigned: modulo 2^64 */
	out->total_sum = cur_sum;

	memcpy(t->prev_slots, cur_slots, sizeof(t->prev_slots));
	t->prev_sum = cur_sum;
}

double hist_percentile(const struct hist_interval *h, double pct)
{
	double rank, seen = 0;

	if (h->count == 0 || !(pct > 0.0) || pct > 100.0)
		return NAN;
	rank = pct / 100.0 * (double)h->count;
	for (unsigned int i = 0; i < HIST_SLOTS; i++) {
		double n = (double)h->slots[i];

		if (n > 0 && seen + n >= rank) {
			double lo = hist_slot_lower(i), hi = interp_upper(i);

			return lo + (hi - lo) * (rank - seen) / n;
		}
		seen += n;
	}
	return interp_upper(HIST_SLOTS - 1); /* not reached: rank <= count */
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
	for (unsigned int i = 0; i < HIST_SLOTS; i++) {
		double lo = hist_slot_lower(i), hi = interp_upper(i);
		double from = fmax(lo, lower), to = fmin(hi, upper);

		if (h->slots[i] == 0 || to <= from)
			continue;
		total += (double)h->slots[i] * (to - from) / (hi - lo);
	}
	return total;
}
