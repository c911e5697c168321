/* Histogram math on the log2 slots of bpf/include/hist_slot.h.
 *
 * The kernel keeps cumulative slot counts and an exact sum. Each read, hist_advance()
 * turns them into an interval (the events since the previous read); everything users
 * see (percentiles, mean, bucket rates) is computed from intervals, never from the
 * lifetime totals.
 *
 * Error bound: a percentile is located exactly to its slot, then interpolated linearly
 * inside it. The true value lies in the same slot, so the error is below one slot
 * width: the estimate is within a factor of 2 of the truth (upper = 2 * lower), and
 * exact when every sample of that slot sits at the slot's upper bound. The mean is
 * exact (sum / count). A `Bucket` whose bounds are not powers of two shares a slot's
 * count out linearly, with the same one-slot error at each bound.
 */
#ifndef EBPF_CORE_HIST_H
#define EBPF_CORE_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include "../bpf/include/hist_slot.h"

/* Unit of the values the kernel recorded. */
enum hist_unit { HIST_UNIT_NANOSECONDS, HIST_UNIT_BYTES };

/* Lower (exclusive) and upper (inclusive) bound of slot i; the last slot's upper bound is
 * INFINITY, slot 0 is [0, 1]. */
double hist_slot_lower(unsigned int slot);
double hist_slot_upper(unsigned int slot);

/* Previous cumulative state of one histogram series, kept by its reader. Zeroed = nothing
 * read yet (maps start empty when a module attaches). */
struct hist_tracker {
	uint64_t prev_slots[HIST_SLOTS];
	uint64_t prev_sum;
};

struct hist_interval {
	uint64_t slots[HIST_SLOTS]; /* events in this interval, per slot */
	uint64_t count;             /* sum of slots */
	uint64_t sum;               /* exact sum of values in this interval */
	uint64_t total_count;       /* cumulative since the module attached */
	uint64_t total_sum;
	uint64_t total_slots[HIST_SLOTS]; /* cumulative per slot (SNMP publishes these) */
	bool reset;                 /* a slot count went backwards: maps were recreated (the
				     * sum may wrap modulo 2^64 and decides nothing) */
};

/* Computes the interval from the new cumulative values and remembers them. On a reset the
 * interval is what the new maps hold (everything since they were created). */
void hist_advance(struct hist_tracker *t, const uint64_t cur_slots[HIST_SLOTS], uint64_t cur_sum,
		  struct hist_interval *out);

/* pct in (0, 100]; NAN when the interval is empty. */
double hist_percentile(const struct hist_interval *h, double pct);
/* NAN when the interval is empty. */
double hist_mean(const struct hist_interval *h);
/* Events in (lower, upper]; upper <= 0 or INFINITY means no upper bound, as collectd's
 * `Bucket` does. */
double hist_count_between(const struct hist_interval *h, double lower, double upper);

#endif
