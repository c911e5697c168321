/* Drawing one histogram the way BCC's print_log2_hist does (the article's look):
 *
 *      usecs               : count     distribution
 *        1.02 -> 2.05      : 12       |****                                    |
 *
 * Buckets are log2 buckets of the kernel's unit (nanoseconds or bytes); the first bucket with counts
 * sets the display unit (nsecs, usecs, msecs, secs; bytes, KiB, MiB): the largest in which
 * its lower bound is at least 1, so labels are short and readable, never "0.000977". Bucket 0
 * ([0, 1]) says its upper bound in the kernel's unit ("0 -> 1 byte") when the display unit
 * is larger. A bucket's label "a -> b" holds values in (a, b], as the slots do. The bar of the
 * fullest bucket is 40 stars; another bucket gets floor(40 * count / max) stars, as BCC draws them.
 * Buckets are drawn from the first to the last with counts, as BCC trims them; a run of
 * HIST_DRAW_EMPTY_RUN or more empty buckets between them is one bucket of 0 over their range.
 */
#ifndef EBPF_TERMINAL_HIST_DRAW_H
#define EBPF_TERMINAL_HIST_DRAW_H

#include <stdint.h>
#include <stdio.h>

#include "terminal/log2_buckets.h"

#define HIST_DRAW_STARS 40
#define HIST_DRAW_EMPTY_RUN 3

struct display_unit {
	const char *name; /* "usecs", "KiB", ... */
	double per;       /* kernel units per display unit */
};

/* The display unit for buckets counted in base_unit ("nanoseconds" or "bytes"; anything
 * else is drawn as it is, named by itself), set by the first bucket with counts above bucket 0. */
struct display_unit hist_draw_unit(const char *base_unit, const struct log2_buckets *buckets);

/* Stars for count v when the fullest bucket has max: floor(width * v / max), at most width. */
int hist_draw_stars(uint64_t v, uint64_t max, int width);

/* A bound as a bucket label: integers as such, fractions to three significant digits. */
void hist_draw_number(char *buf, size_t len, double v);

/* The header and one line per bucket from the first to the last bucket with counts (one or two
 * empty buckets between them drawn as BCC does, longer runs as one bucket). Draws "(no events)"
 * for an empty histogram. */
void hist_draw(FILE *out, const char *base_unit, const struct log2_buckets *buckets);

#endif
