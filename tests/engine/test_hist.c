/* Histogram math: slot semantics (the very function the BPF programs run), bounds,
 * interval deltas across a reset, percentiles, mean and bucket counts; the accuracy bound
 * of the log-linear layout on deterministic input. The tests written for the log2 layout
 * run at precision 0, which is that layout. */
#include "libcore/hist/hist.h"
#include "tests/support/testing.h"

#include <stdlib.h>
#include <string.h>

#define P0_LAST (HIST_NSLOTS(0) - 1)

/* An empty interval at precision p, to fill by hand. */
static struct hist_interval empty(unsigned int p)
{
	struct hist_interval h = { .precision = p, .nslots = HIST_NSLOTS(p) };

	return h;
}

static void test_slot_semantics(void)
{
	/* Precision 0 is ceil-log2: slot i holds (2^(i-1), 2^i], slot 0 holds 0 and 1 */
	CHECK_EQ_U64(hist_slot_p(0, 0), 0);
	CHECK_EQ_U64(hist_slot_p(1, 0), 0);
	CHECK_EQ_U64(hist_slot_p(2, 0), 1);
	CHECK_EQ_U64(hist_slot_p(3, 0), 2);
	CHECK_EQ_U64(hist_slot_p(4, 0), 2);
	CHECK_EQ_U64(hist_slot_p(5, 0), 3);
	CHECK_EQ_U64(hist_slot_p(1024, 0), 10);
	CHECK_EQ_U64(hist_slot_p(1025, 0), 11);
	CHECK_EQ_U64(hist_slot_p(1ULL << 37, 0), 37);
	CHECK_EQ_U64(hist_slot_p((1ULL << 37) + 1, 0), 38);
	CHECK_EQ_U64(hist_slot_p(1ULL << 38, 0), 38);
	CHECK_EQ_U64(hist_slot_p((1ULL << 38) + 1, 0), P0_LAST);
	CHECK_EQ_U64(hist_slot_p(~0ULL, 0), P0_LAST);
	CHECK_EQ_U64(HIST_NSLOTS(0), 40); /* the old layout, slot for slot */

	/* Every value lands in the slot whose bounds contain it. */
	for (unsigned long long v = 0; v < 70000; v += 7) {
		unsigned int s = hist_slot_p(v, 0);

		CHECK(v <= hist_slot_upper(0, s));
		CHECK(s == 0 || v > hist_slot_lower(0, s));
	}
	CHECK(isinf(hist_slot_upper(0, P0_LAST)));
	CHECK_NEAR(hist_slot_lower(0, 0), 0, 0);
	CHECK_NEAR(hist_slot_upper(0, 0), 1, 0);
	CHECK_NEAR(hist_slot_lower(0, 11), 1024, 0);
	CHECK_NEAR(hist_slot_upper(0, 11), 2048, 0);
}

/* Every precision: slots tile [0, 2^38] without gaps, each value is in the slot whose
 * integer bounds hold it, values up to 2^p are exact, and no slot is wider than 2^-p of
 * its lower bound; the default precision is the one the kernel uses without `Precision`. */
static void test_loglinear_layout(void)
{
	CHECK_EQ_U64(HIST_SLOTS, 1089);
	CHECK_EQ_U64(HIST_ROW_SIZE(5), 8720);
	for (unsigned int p = 0; p <= HIST_PRECISION_MAX; p++) {
		unsigned int last = HIST_NSLOTS(p) - 1;
		int bad_tiling = 0, bad_width = 0, bad_slot = 0;

		CHECK_EQ_U64(hist_slot_lower_bound(p, 0), 0);
		CHECK_EQ_U64(hist_slot_upper_bound(p, 0), 1);
		for (unsigned int s = 1; s <= last; s++) {
			unsigned long long lo = hist_slot_lower_bound(p, s), hi = hist_slot_upper_bound(p, s);

			bad_tiling += lo != hist_slot_upper_bound(p, s - 1);
			if (s < last)
				bad_width += hi <= lo || (lo >= (1ULL << p) && (hi - lo) << p > lo) ||
					     (lo < (1ULL << p) && hi - lo != 1) ||
					     hist_slot_p(hi, p) != s || hist_slot_p(lo + 1, p) != s;
		}
		CHECK_EQ_U64(bad_tiling, 0);
		CHECK_EQ_U64(bad_width, 0);
		CHECK_EQ_U64(hist_slot_lower_bound(p, last), 1ULL << HIST_TOP_EXP);
		CHECK_EQ_U64(hist_slot_upper_bound(p, last), ~0ULL);
		CHECK_EQ_U64(hist_slot_p((1ULL << HIST_TOP_EXP) + 1, p), last);
		CHECK_EQ_U64(hist_slot_p(~0ULL, p), last);
		for (unsigned long long v = 1; v <= (1ULL << p); v++)
			bad_slot += hist_slot_p(v, p) != v - 1; /* exact: slot (v-1, v] */
		for (unsigned long long v = 2; v < (1ULL << 36); v += v / 7 + 1) {
			unsigned int s = hist_slot_p(v, p);

			bad_slot += !(v > hist_slot_lower_bound(p, s) && v <= hist_slot_upper_bound(p, s));
		}
		CHECK_EQ_U64(bad_slot, 0);
	}
	CHECK_EQ_U64(hist_slot(16384), hist_slot_p(16384, HIST_PRECISION_DEFAULT));
	/* 3 ms at the default precision: (2.949, 3.015] ms, 2.2% wide. */
	CHECK_EQ_U64(hist_slot_lower_bound(5, hist_slot_p(3000000, 5)), 2949120);
	CHECK_EQ_U64(hist_slot_upper_bound(5, hist_slot_p(3000000, 5)), 3014656);
}

static void fill(uint64_t *slots, const unsigned long long *values, int n, uint64_t *sum)
{
	for (int i = 0; i < n; i++) {
		slots[hist_slot(values[i])]++;
		*sum += values[i];
	}
}

static void test_advance_and_reset(void)
{
	struct hist_tracker t = { 0 };
	struct hist_interval h;
	uint64_t cur[HIST_SLOTS] = { 0 }, sum = 0;
	const unsigned long long first[] = { 100, 100, 3000 };
	const unsigned long long second[] = { 5000 };

	fill(cur, first, 3, &sum);
	hist_advance(&t, cur, sum, &h);
	CHECK(!h.reset);
	CHECK_EQ_U64(h.count, 3);
	CHECK_EQ_U64(h.sum, 3200);

	fill(cur, second, 1, &sum);
	hist_advance(&t, cur, sum, &h);
	CHECK(!h.reset);
	CHECK_EQ_U64(h.count, 1);
	CHECK_EQ_U64(h.sum, 5000);
	CHECK_EQ_U64(h.total_count, 4);
	CHECK_EQ_U64(h.slots[hist_slot(5000)], 1);

	/* Nothing new: an empty interval, no percentile, no mean. */
	hist_advance(&t, cur, sum, &h);
	CHECK_EQ_U64(h.count, 0);
	CHECK(isnan(hist_percentile(&h, 50)));
	CHECK(isnan(hist_mean(&h)));

	/* Maps recreated: counts went backwards. The interval is what the new maps hold, and
	 * the reset is flagged instead of producing a huge wrapped delta. */
	uint64_t fresh[HIST_SLOTS] = { 0 }, fresh_sum = 0;
	const unsigned long long after[] = { 7 };

	fill(fresh, after, 1, &fresh_sum);
	hist_advance(&t, fresh, fresh_sum, &h);
	CHECK(h.reset);
	CHECK_EQ_U64(h.count, 1);
	CHECK_EQ_U64(h.sum, 7);
	hist_advance(&t, fresh, fresh_sum, &h);
	CHECK(!h.reset);
	CHECK_EQ_U64(h.count, 0);
}

/* The lifetime sum of nanoseconds wraps modulo 2^64 long before any slot count does
 * (~107 days of 2,000 threads parked in futex). Slots only grew: no reset, and the interval
 * sum is the difference modulo 2^64, not the whole lifetime. */
static void test_sum_wrap_is_no_reset(void)
{
	struct hist_tracker t = { 0 };
	struct hist_interval h;
	uint64_t cur[HIST_SLOTS] = { 0 };
	const uint64_t second = 1000000000ULL; /* 1 s in ns */
	uint64_t sum = UINT64_MAX - 5 * second;

	cur[hist_slot(second)] = 1000;
	hist_advance(&t, cur, sum, &h);
	cur[hist_slot(second)] += 10; /* 10 events of 1 s each: the sum wraps */
	sum += 10 * second;
	hist_advance(&t, cur, sum, &h);
	CHECK(!h.reset);
	CHECK_EQ_U64(h.count, 10);
	CHECK_EQ_U64(h.sum, 10 * second);
	CHECK_NEAR(hist_mean(&h), 1e9, 0);
	CHECK_EQ_U64(h.slots[hist_slot(second)], 10);

	/* Slots that went backwards still mean the maps were recreated, whatever the sum did. */
	uint64_t fresh[HIST_SLOTS] = { 0 };

	fresh[hist_slot(second)] = 2;
	hist_advance(&t, fresh, sum + 2 * second, &h);
	CHECK(h.reset);
	CHECK_EQ_U64(h.count, 2);
	CHECK_EQ_U64(h.sum, sum + 2 * second);
}

static void test_percentiles(void)
{
	struct hist_tracker t;
	struct hist_interval h;
	uint64_t cur[HIST_SLOTS] = { 0 }, sum = 0;

	/* 100 values: 1..100, in log2 slots. Known answers: p50 = 50, p90 = 90, p99 = 99. */
	hist_tracker_init(&t, 1, 0);
	for (unsigned long long v = 1; v <= 100; v++) {
		cur[hist_slot_p(v, 0)]++;
		sum += v;
	}
	hist_advance(&t, cur, sum, &h);
	CHECK_NEAR(hist_mean(&h), 50.5, 1e-9);
	h.no_sum = true; /* a histogram that keeps no sum has no mean, not 0 */
	CHECK(isnan(hist_mean(&h)));
	h.no_sum = false;
	/* The estimate must lie in the same slot as the true value: error < one slot width. */
	const double pcts[] = { 10, 50, 90, 99 };
	for (int i = 0; i < 4; i++) {
		double truth = pcts[i], est = hist_percentile(&h, pcts[i]);
		unsigned int s = hist_slot_p((unsigned long long)truth, 0);

		CHECK(est > hist_slot_lower(0, s) && est <= hist_slot_upper(0, s));
		CHECK(est / truth < 2.0 && truth / est < 2.0);
	}
	/* Exact case: all samples at one slot's upper bound, percentile interpolates to it. */
	struct hist_interval one = empty(0);
	one.slots[10] = 4;
	one.count = 4;
	CHECK_NEAR(hist_percentile(&one, 100), 1024, 1e-9);
	CHECK_NEAR(hist_percentile(&one, 50), 512 + 256, 1e-9);
	CHECK(isnan(hist_percentile(&one, 0)));
	CHECK(isnan(hist_percentile(&one, 101)));
}

/* One interval of n equal values x, as the kernel would record it (default precision). */
static struct hist_interval constant(unsigned long long x, uint64_t n)
{
	struct hist_interval h = empty(HIST_PRECISION_DEFAULT);

	h.slots[hist_slot(x)] = n;
	h.count = n;
	h.sum = x * n;
	return h;
}

/* A constant workload reads as that constant at every percentile: the slot's values are
 * spread around their exact mean, and the sum rules out anything else. */
static void test_percentiles_use_the_sum(void)
{
	const double pcts[] = { 1, 50, 95, 99, 100 };
	const unsigned long long xs[] = { 0, 1, 16384, 65536, 12000, 4097, 1ULL << 38 };

	for (unsigned int k = 0; k < sizeof(xs) / sizeof(xs[0]); k++) {
		struct hist_interval h = constant(xs[k], 200);

		for (int i = 0; i < 5; i++) {
			double est = hist_percentile(&h, pcts[i]);

			if (fabs(est - (double)xs[k]) > 1e-6 * ((double)xs[k] + 1))
				fprintf(stderr, "constant %llu: p%g = %.3f\n", xs[k], pcts[i], est);
			CHECK_NEAR(est, (double)xs[k], 1e-6 * ((double)xs[k] + 1));
		}
	}

	/* 16 KiB reads with a few 4 KiB ones: the 4 KiB slot holds at most 3 * 4096, so the
	 * 16 KiB slot's sum is pinned and p50 and p99 read 16384 exactly. */
	struct hist_interval mix = constant(16384, 97);
	mix.slots[hist_slot(4096)] = 3;
	mix.count = 100;
	mix.sum += 3 * 4096;
	CHECK_NEAR(hist_percentile(&mix, 50), 16384, 1e-6);
	CHECK_NEAR(hist_percentile(&mix, 99), 16384, 1e-6);
	CHECK_NEAR(hist_percentile(&mix, 2), 4096, 1e-6);

	/* Spread values: no sum information beyond the slot, so the estimate stays inside the
	 * slot (error below one slot width) and within what the sum allows. Two values in
	 * (8192, 16384] summing to 8193 + 16384: the smaller is at most (sum - 8192) / 2... and
	 * at least sum - 16384; the larger at least sum / 2. */
	struct hist_interval two = empty(0);
	two.slots[hist_slot_p(8193, 0)] = 2;
	two.count = 2;
	two.sum = 8193 + 16384;
	double p50 = hist_percentile(&two, 50), p100 = hist_percentile(&two, 100);
	CHECK(p50 >= 8193 - 1e-9 && p50 <= (double)two.sum / 2 + 1e-9);
	CHECK(p100 >= (double)two.sum / 2 - 1e-9 && p100 <= 16384 + 1e-9);

	/* A read that caught the slots before the sum (separate atomic adds): the sum says less
	 * than the slot's lower bound allows; the estimate still stays inside the slot. */
	struct hist_interval torn = constant(16384, 10);
	torn.sum = 0;
	double e = hist_percentile(&torn, 50);
	CHECK(e > 16384 - 256 && e <= 16384); /* the slot (16128, 16384] */

	/* The open-ended last slot (above 2^38): only the mean bounds it, and the estimate is
	 * spread around the exact mean: p50 of a constant is that constant, never below 2^38. */
	struct hist_interval big = constant(1ULL << 45, 100);
	CHECK_NEAR(hist_percentile(&big, 50), (double)(1ULL << 45), 1.0);
	CHECK(hist_percentile(&big, 1) >= hist_slot_lower(HIST_PRECISION_DEFAULT, HIST_SLOTS - 1));
	big.slots[hist_slot(100)] = 1;
	big.count = 101;
	big.sum += 100;
	CHECK(!isnan(hist_percentile(&big, 99)));
	CHECK(hist_percentile(&big, 99) >= hist_slot_lower(HIST_PRECISION_DEFAULT, HIST_SLOTS - 1));
}

static void test_count_between(void)
{
	struct hist_interval h = empty(0);

	h.slots[10] = 8; /* (512, 1024] */
	h.slots[11] = 4; /* (1024, 2048] */
	h.count = 12;
	/* Power-of-two bounds are exact. */
	CHECK_NEAR(hist_count_between(&h, 0, 1024), 8, 1e-9);
	CHECK_NEAR(hist_count_between(&h, 1024, 2048), 4, 1e-9);
	CHECK_NEAR(hist_count_between(&h, 0, 0), 12, 1e-9);        /* 0: no upper bound */
	CHECK_NEAR(hist_count_between(&h, 512, INFINITY), 12, 1e-9);
	/* Other bounds share a slot out linearly. */
	CHECK_NEAR(hist_count_between(&h, 768, 1024), 4, 1e-9);
	CHECK_NEAR(hist_count_between(&h, 2048, 0), 0, 1e-9);
}

/* A deterministic pseudo-random stream (64-bit LCG): the same input on every run. */
static uint64_t lcg_next(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 11;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile as hist_percentile() defines its rank: the ceil(p/100 n)-th smallest. */
static double exact_percentile(const uint64_t *sorted, size_t n, double pct)
{
	size_t j = (size_t)ceil(pct / 100.0 * (double)n - 1e-9);

	return (double)sorted[j ? j - 1 : 0];
}

/* Values recorded through the kernel's slot function, read as the plugin reads them. */
static void record(const uint64_t *values, size_t n, unsigned int p, struct hist_interval *h)
{
	static uint64_t slots[HIST_SLOTS];
	struct hist_tracker t;
	uint64_t sum = 0;

	memset(slots, 0, sizeof(slots));
	hist_tracker_init(&t, 1, p);
	for (size_t i = 0; i < n; i++) {
		slots[hist_slot_p(values[i], p)]++;
		sum += values[i];
	}
	hist_advance(&t, slots, sum, h);
}

/* The accuracy bound the layout guarantees: an estimate stays in the true value's slot, so
 * for values above 2^p it is within 2^-p of the truth (3.1% at the default precision,
 * inside the 5% goal), at every precision, on inputs shaped like latencies: log-uniform
 * over 1 us .. 10 s, two narrow peaks (3 ms sleeps as collectd_percentiles.sh times them and a 40 us one), and a
 * narrow peak alone. */
static void test_accuracy_bound(void)
{
	enum { N = 20000 };
	static uint64_t values[N], sorted[N];
	static struct hist_interval h;
	const double pcts[] = { 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100 };
	double worst_default = 0;

	for (int shape = 0; shape < 3; shape++) {
		uint64_t st = 42 + (uint64_t)shape;

		for (size_t i = 0; i < N; i++) {
			uint64_t r = lcg_next(&st);

			if (shape == 0) /* log-uniform over 1e3 .. 1e10 ns */
				values[i] = (uint64_t)(1e3 * pow(10.0, 7.0 * (double)(r % 1000000) / 1e6));
			else if (shape == 1) /* 70%: 3.09 ms +- 70 us; 30%: 40 us +- 2 us */
				values[i] = i % 10 < 7 ? 3090000 + r % 140000 - 70000 : 40000 + r % 4000 - 2000;
			else /* 3 ms sleeps: 3.05 .. 3.17 ms, as measured on a real machine */
				values[i] = 3050000 + r % 120000;
		}
		memcpy(sorted, values, sizeof(values));
		qsort(sorted, N, sizeof(sorted[0]), cmp_u64);
		for (unsigned int p = 0; p <= HIST_PRECISION_MAX; p++) {
			double bound = ldexp(1.0, -(int)p);
			int over = 0;

			record(values, N, p, &h);
			for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
				double truth = exact_percentile(sorted, N, pcts[i]), est = hist_percentile(&h, pcts[i]);
				double err = fabs(est - truth) / truth;

				if (!(err < bound)) {
					fprintf(stderr, "shape %d precision %u: p%g = %.0f, truth %.0f (%.2f%% > %.2f%%)\n",
						shape, p, pcts[i], est, truth, 100 * err, 100 * bound);
					over++;
				}
				if (p == HIST_PRECISION_DEFAULT && err > worst_default)
					worst_default = err;
			}
			CHECK_EQ_U64(over, 0);
		}
	}
	printf("worst percentile error at the default precision %d: %.3f%% (bound %.3f%%)\n",
	       HIST_PRECISION_DEFAULT, 100 * worst_default, 100 * ldexp(1.0, -HIST_PRECISION_DEFAULT));
	CHECK(worst_default < 0.05);
}

/* Constant sizes read as that size at every percentile and precision: 16 KiB reads (the
 * log2 layout read 12,288 before the sum was used), and 12 KiB, which is no power of two. */
static void test_constant_sizes(void)
{
	enum { N = 1000 };
	static uint64_t values[N];
	static struct hist_interval h;
	const double pcts[] = { 1, 50, 90, 99, 99.9, 100 };
	const uint64_t sizes[] = { 16384, 12288, 65536, 4096 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (size_t i = 0; i < N; i++)
			values[i] = sizes[k];
		for (unsigned int p = 0; p <= HIST_PRECISION_MAX; p++) {
			record(values, N, p, &h);
			for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
				CHECK_NEAR(hist_percentile(&h, pcts[i]), (double)sizes[k], 1e-6);
		}
	}
}

/* `Bucket` bounds on log-linear slot edges count exactly; the 3 ms sleeps above split
 * at 3.014656 ms (an edge at the default precision) land on the right side. */
static void test_count_between_loglinear(void)
{
	static struct hist_interval h;
	uint64_t v[] = { 2960000, 3000000, 3010000, 3020000, 3100000 };

	record(v, 5, 5, &h);
	CHECK_NEAR(hist_count_between(&h, 0, 3014656), 3, 1e-9);
	CHECK_NEAR(hist_count_between(&h, 3014656, 0), 2, 1e-9);
	CHECK_NEAR(hist_count_between(&h, 2949120, 3014656), 3, 1e-9);
}

int main(void)
{
	test_slot_semantics();
	test_advance_and_reset();
	test_sum_wrap_is_no_reset();
	test_percentiles();
	test_percentiles_use_the_sum();
	test_count_between();
	test_loglinear_layout();
	test_accuracy_bound();
	test_constant_sizes();
	test_count_between_loglinear();
	return testing_done();
}
