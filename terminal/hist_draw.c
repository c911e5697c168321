#include "terminal/hist_draw.h"

#include <math.h>
#include <string.h>

/* The lower bound of the first bucket with counts above bucket 0 (bucket 0, [0, 1], has no lower
 * bound to scale by; the open bucket counts by its lower bound); 0 when there is none. */
static double first_lower(const struct log2_buckets *buckets)
{
	for (int r = 1; r < LOG2_BUCKETS; r++) {
		double lower, upper;

		if (!buckets->count[r])
			continue;
		log2_bucket_bounds(buckets, r, &lower, &upper);
		return lower;
	}
	return 0;
}

struct display_unit hist_draw_unit(const char *base_unit, const struct log2_buckets *buckets)
{
	double first = first_lower(buckets);

	/* The first bucket sets the scale: the largest unit in which its lower bound is at least 1,
	 * so no label is a long fraction ("0.000977") and larger buckets grow as integers. */
	if (!strcmp(base_unit, "nanoseconds")) {
		if (first >= 1e9)
			return (struct display_unit){ "secs", 1e9 };
		if (first >= 1e6)
			return (struct display_unit){ "msecs", 1e6 };
		if (first >= 1e3)
			return (struct display_unit){ "usecs", 1e3 };
		return (struct display_unit){ "nsecs", 1 };
	}
	if (!strcmp(base_unit, "bytes")) {
		if (first >= 1048576.0)
			return (struct display_unit){ "MiB", 1048576 };
		if (first >= 1024.0)
			return (struct display_unit){ "KiB", 1024 };
		return (struct display_unit){ "bytes", 1 };
	}
	return (struct display_unit){ base_unit, 1 };
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

/* A bound as a bucket label; one below 1 display unit (only 1 of the kernel's unit: bucket 0's
 * upper bound, the lower one of an empty run from bucket 1) in the kernel's unit, named. */
static void bound_text(char *buf, size_t len, double v, const char *base_unit, struct display_unit unit)
{
	if (v > 0 && v < unit.per)
		snprintf(buf, len, "%.0f %s%s", v,
			 !strcmp(base_unit, "nanoseconds") ? "nsec" : !strcmp(base_unit, "bytes") ? "byte" : base_unit,
			 v == 1 ? "" : "s");
	else
		hist_draw_number(buf, len, v / unit.per);
}

static void draw_bucket(FILE *out, const char *lo, const char *hi, uint64_t count, uint64_t max)
{
	char bar[HIST_DRAW_STARS + 1];
	int stars = hist_draw_stars(count, max, HIST_DRAW_STARS);

	memset(bar, '*', (size_t)stars);
	bar[stars] = '\0';
	fprintf(out, "%10s -> %-10s : %-8llu |%-*s|\n", lo, hi, (unsigned long long)count, HIST_DRAW_STARS, bar);
}

void hist_draw(FILE *out, const char *base_unit, const struct log2_buckets *buckets)
{
	struct display_unit unit = hist_draw_unit(base_unit, buckets);
	int first = -1, last = -1, last_finite = -1;
	uint64_t max = 0;

	for (int r = 0; r < LOG2_BUCKETS; r++) {
		if (!buckets->count[r])
			continue;
		if (first < 0)
			first = r;
		last = r;
		if (r <= LOG2_BUCKETS_FINITE)
			last_finite = r;
		if (buckets->count[r] > max)
			max = buckets->count[r];
	}
	if (first < 0) {
		fprintf(out, "     (no events)\n");
		return;
	}
	fprintf(out, "     %-19s : count     distribution\n", unit.name);
	for (int r = first; r <= last; r++) {
		double lower, upper;
		char lo[32], hi[32];
		int empty_to = r;

		/* Between the last finite bucket and the open one there is nothing to draw. */
		if (r > last_finite && r < LOG2_BUCKET_INF)
			continue;
		/* A run of HIST_DRAW_EMPTY_RUN or more empty buckets is one bucket of 0 over their range. */
		while (!buckets->count[empty_to] && empty_to + 1 <= last_finite && !buckets->count[empty_to + 1])
			empty_to++;
		if (!buckets->count[r] && empty_to - r + 1 >= HIST_DRAW_EMPTY_RUN) {
			log2_bucket_bounds(buckets, r, &lower, &upper);
			bound_text(lo, sizeof(lo), lower, base_unit, unit);
			log2_bucket_bounds(buckets, empty_to, &lower, &upper);
			bound_text(hi, sizeof(hi), upper, base_unit, unit);
			draw_bucket(out, lo, hi, 0, max);
			r = empty_to;
			continue;
		}
		log2_bucket_bounds(buckets, r, &lower, &upper);
		bound_text(lo, sizeof(lo), lower, base_unit, unit);
		bound_text(hi, sizeof(hi), upper, base_unit, unit);
		draw_bucket(out, lo, hi, buckets->count[r], max);
	}
}
