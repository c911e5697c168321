#include "view/hist_draw.h"

#include <math.h>
#include <string.h>

/* The upper bound of the highest row with counts (the open row: its lower bound). */
static double top_value(const struct hist_rows *rows)
{
	for (int r = HIST_ROWS - 1; r >= 0; r--) {
		double lower, upper;

		if (!rows->count[r])
			continue;
		hist_row_bounds(rows, r, &lower, &upper);
		return isinf(upper) ? lower : upper;
	}
	return 0;
}

struct view_unit hist_draw_unit(const char *base_unit, const struct hist_rows *rows)
{
	double top = top_value(rows);

	/* Switch at 10 of the next unit, so a row label never needs more than 5 digits. */
	if (!strcmp(base_unit, "nanoseconds")) {
		if (top < 1e4)
			return (struct view_unit){ "nsecs", 1 };
		if (top < 1e7)
			return (struct view_unit){ "usecs", 1e3 };
		if (top < 1e10)
			return (struct view_unit){ "msecs", 1e6 };
		return (struct view_unit){ "secs", 1e9 };
	}
	if (!strcmp(base_unit, "bytes")) {
		if (top < 10 * 1024.0)
			return (struct view_unit){ "bytes", 1 };
		if (top < 10 * 1048576.0)
			return (struct view_unit){ "KiB", 1024 };
		return (struct view_unit){ "MiB", 1048576 };
	}
	return (struct view_unit){ base_unit, 1 };
}

int hist_draw_stars(uint64_t v, uint64_t max, int width)
{
	double n;

	if (!max || !v)
		return 0;
	n = floor((double)width * (double)v / (double)max);
	return n > width ? width : (int)n;
}

void hist_draw_number(char *buf, size_t len, double v)
{
	if (isinf(v))
		snprintf(buf, len, "inf");
	else if (v == floor(v) || v >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

void hist_draw(FILE *out, const char *base_unit, const struct hist_rows *rows)
{
	struct view_unit unit = hist_draw_unit(base_unit, rows);
	int first = -1, last = -1, last_finite = -1;
	uint64_t max = 0;
	char bar[HIST_DRAW_STARS + 1];

	for (int r = 0; r < HIST_ROWS; r++) {
		if (!rows->count[r])
			continue;
		if (first < 0)
			first = r;
		last = r;
		if (r <= HIST_ROWS_FINITE)
			last_finite = r;
		if (rows->count[r] > max)
			max = rows->count[r];
	}
	if (first < 0) {
		fprintf(out, "     (no events)\n");
		return;
	}
	fprintf(out, "     %-19s : count     distribution\n", unit.name);
	for (int r = first; r <= last; r++) {
		double lower, upper;
		char lo[32], hi[32];
		int stars;

		/* Between the last finite row and the open one there is nothing to draw. */
		if (r > last_finite && r < HIST_ROW_INF)
			continue;
		hist_row_bounds(rows, r, &lower, &upper);
		hist_draw_number(lo, sizeof(lo), lower / unit.per);
		hist_draw_number(hi, sizeof(hi), upper / unit.per);
		stars = hist_draw_stars(rows->count[r], max, HIST_DRAW_STARS);
		memset(bar, '*', (size_t)stars);
		bar[stars] = '\0';
		fprintf(out, "%10s -> %-10s : %-8llu |%-*s|\n", lo, hi, (unsigned long long)rows->count[r],
			HIST_DRAW_STARS, bar);
	}
}
