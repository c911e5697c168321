/* A snapshot histogram folded into log2 rows, the rows BCC's print_log2_hist draws.
 *
 * The kernel's slots may be finer than a power of two; the display is not: every slot
 * goes to the row that holds its upper bound, with its bounds taken from the shared
 * snapshot code (snapshot_bucket_bounds), never assumed from its position. Rows:
 *   row 0       [0, 1]
 *   row r       (2^(r-1), 2^r]             1 <= r <= HIST_ROWS_FINITE
 *   HIST_ROW_INF (lower, inf): the slot without an upper bound
 * A slot whose bounds straddle a power of two (no layout does that today) still lands in
 * one row, the one of its upper bound: counts stay exact, the row's label is then a
 * slight approximation.
 */
#ifndef EBPF_VIEW_HIST_ROWS_H
#define EBPF_VIEW_HIST_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot/snapshot_file.h"

#define HIST_ROWS_FINITE 64
#define HIST_ROW_INF (HIST_ROWS_FINITE + 1)
#define HIST_ROWS (HIST_ROW_INF + 1)

struct hist_rows {
	uint64_t count[HIST_ROWS];
	double inf_lower; /* lower bound of the open slot, when it has counts */
	uint64_t total;   /* sum of count[] */
	uint64_t sum;     /* sum of the values (the snapshot's exact sum) */
};

/* Cumulative rows of h, one of m's histograms (everything since the module started):
 * each slot of the kernel's layout folded into the log2 row holding its upper bound. */
void hist_rows_fold(const struct snapshot_module *m, const struct snapshot_histogram *h, struct hist_rows *out);

/* out = cur - prev, row by row. A row that went backwards means the module's maps were
 * recreated (collectd restarted it): out is then cur whole and the result is false. */
bool hist_rows_delta(const struct hist_rows *cur, const struct hist_rows *prev, struct hist_rows *out);

/* Bounds of a row in the histogram's own unit: values in (lower, upper], row 0 [0, 1]. */
void hist_row_bounds(const struct hist_rows *rows, int row, double *lower, double *upper);

#endif
