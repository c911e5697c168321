/* Histogram math on the log-linear slots of bpf/include/hist_slot.h.
 *
 * The kernel keeps cumulative slot counts and an exact sum. Each read, hist_advance()
 * turns them into an interval (the events since the previous read); everything users
 * see (percentiles, mean, bucket rates) is computed from intervals, never from the
 * lifetime totals.
 *
 * Percentiles: the slot holding the p-th value is found exactly from the counts. Inside it,
 * the estimate uses the exact sum: the slot's own sum lies between the total minus the most
 * and the least the other slots can hold (count x upper, count x lower bound), so the mean
 * of the slot's values is known to a range. The estimate is that range's middle, spread over
 * the slot in proportion to how uncertain the range is:
 *   - nothing known beyond the slot: linear interpolation from lower to upper bound;
 *   - the slot's mean known exactly (all of the interval's values in one slot, or the other
 *     slots pinned to their bounds): that mean at every rank, so a constant workload (16 KiB
 *     reads, 0-byte flushes, 12 KiB writes) reads as that constant;
 * and it is finally clamped to what the counts and the sum allow for the rank's value (the
 * j-th smallest of n values in [lo, hi] with sum S is at most (S - (j-1) lo) / (n-j+1) and at
 * least (S - (n-j) hi) / j). Error bound: the estimate always lies in the true value's slot,
 * so it is off by less than one slot width, which is at most 2^-p of the value at
 * precision p (3.1% at the default 5; a factor of 2 at p = 0, the old log2 layout), and
 * exact when the slot's values are all equal and its mean is pinned. Values up to 2^p are
 * exact. The open last slot (above 2^38) is treated as (lower, 2 lower] when its sum cannot
 * be bounded. The mean is exact (sum / count). A `Bucket` whose bounds are not slot edges
 * shares a slot's count out linearly, with the same one-slot error at each bound.
 *
 * Cost: everything walks only the HIST_NSLOTS(p) slots of the row's precision, and the
 * interval of a row that saw nothing new is known from its count without a walk.
 */
#ifndef EBPF_CORE_HIST_H
#define EBPF_CORE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/include/hist_row.h"

/* Unit of the values the kernel recorded. */
enum hist_unit { HIST_UNIT_NANOSECONDS, HIST_UNIT_BYTES };

/* Lower (exclusive) and upper (inclusive) bound of slot `slot` at precision p (the
 * layout); the last slot's upper bound is INFINITY, slot 0 is [0, 1]. Integer versions:
 * hist_slot_lower_bound() and hist_slot_upper_bound() in hist_slot.h. */
double hist_slot_lower(unsigned int precision, unsigned int slot);
double hist_slot_upper(unsigned int precision, unsigned int slot);

/* Previous cumulative state of one histogram series, kept by its reader. Zeroed = nothing
 * read yet (maps start empty when a module attaches), at the default precision; a module
 * whose rows are recorded at another precision says so with hist_tracker_init(). */
struct hist_tracker {
	unsigned int precision;
	bool precision_set;  /* else HIST_PRECISION_DEFAULT */
	uint64_t prev_count; /* of the slots: an unchanged count and sum is an empty interval */
	uint64_t prev_sum;
	uint64_t prev_slots[HIST_SLOTS];
};

/* n trackers of rows recorded at `precision` (hist_config_precision()), nothing read yet. */
void hist_tracker_init(struct hist_tracker *t, size_t n, unsigned int precision);

struct hist_interval {
	unsigned int precision;     /* the layout of the slots (hist_slot.h) */
	unsigned int nslots;        /* HIST_NSLOTS(precision): slots past it are not set */
	uint64_t slots[HIST_SLOTS]; /* events in this interval, per slot */
	uint64_t count;             /* sum of slots */
	uint64_t sum;               /* exact sum of values in this interval */
	uint64_t total_count;       /* cumulative since the module attached */
	uint64_t total_sum;
	/* Cumulative per slot (SNMP publishes these), nslots of them: the tracker's copy,
	 * valid until its next hist_advance(). */
	const uint64_t *total_slots;
	bool reset;                 /* a slot count went backwards: maps were recreated (the
				     * sum may wrap modulo 2^64 and decides nothing) */
};

/* Computes the interval from the new cumulative values (the first HIST_NSLOTS(p) of
 * cur_slots are read) and remembers them. On a reset the interval is what the new maps
 * hold (everything since they were created). */
void hist_advance(struct hist_tracker *t, const uint64_t *cur_slots, uint64_t cur_sum,
		  struct hist_interval *out);

/* A map value packed for precision p (HIST_PACKED_ROW_OFFSET in hist_row.h: `head` bytes,
 * then nrows rows of HIST_ROW_SIZE(p)) copied into its full-size struct, whose rows are
 * struct hist_row from `head` on. The slots past HIST_NSLOTS(p) are left as they are. */
void hist_rows_unpack(const void *packed, void *full, size_t head, unsigned int nrows, unsigned int precision);

/* pct in (0, 100]; NAN when the interval is empty. */
double hist_percentile(const struct hist_interval *h, double pct);
/* NAN when the interval is empty. */
double hist_mean(const struct hist_interval *h);
/* Events in (lower, upper]; upper <= 0 or INFINITY means no upper bound, as collectd's
 * `Bucket` does. */
double hist_count_between(const struct hist_interval *h, double lower, double upper);

#endif
