/* Drawing one histogram the way BCC's print_log2_hist does (the article's look):
 *
 *      usecs               : count     distribution
 *        1.02 -> 2.05      : 12       |****                                    |
 *
 * Rows are log2 rows of the kernel's unit (nanoseconds or bytes); the first row with counts
 * sets the display unit (nsecs, usecs, msecs, secs; bytes, KiB, MiB): the largest in which
 * its lower bound is at least 1, so labels are short and readable, never "0.000977". Row 0
 * ([0, 1]) says its upper bound in the kernel's unit ("0 -> 1 byte") when the display unit
 * is larger. A row's label "a -> b" holds values in (a, b], as the slots do. The bar of the
 * fullest row is 40 stars; another row gets floor(40 * count / max) stars, as BCC draws them.
 * Rows are drawn from the first to the last with counts, as BCC trims them; a run of
 * HIST_DRAW_EMPTY_RUN or more empty rows between them is one row of 0 over their range.
 */
#ifndef EBPF_VIEW_HIST_DRAW_H
#define EBPF_VIEW_HIST_DRAW_H

#include <stdint.h>
#include <stdio.h>

#include "view/hist_rows.h"

#define HIST_DRAW_STARS 40
#define HIST_DRAW_EMPTY_RUN 3

struct view_unit {
	const char *name; /* "usecs", "KiB", ... */
	double per;       /* kernel units per display unit */
};

/* The display unit for rows counted in base_unit ("nanoseconds" or "bytes"; anything
 * else is drawn as it is, named by itself), set by the first row with counts above row 0. */
struct view_unit hist_draw_unit(const char *base_unit, const struct hist_rows *rows);

/* Stars for count v when the fullest row has max: floor(width * v / max), at most width. */
int hist_draw_stars(uint64_t v, uint64_t max, int width);

/* A bound as a row label: integers as such, fractions to three significant digits. */
void hist_draw_number(char *buf, size_t len, double v);

/* The header and one line per row from the first to the last row with counts (one or two
 * empty rows between them drawn as BCC does, longer runs as one row). Draws "(no events)"
 * for an empty histogram. */
void hist_draw(FILE *out, const char *base_unit, const struct hist_rows *rows);

#endif
