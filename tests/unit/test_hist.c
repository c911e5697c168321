/* Histogram math: slot semantics (the very function the BPF programs run), bounds,
 * interval deltas across a reset, percentiles, mean and bucket counts. */
#include "libcore/hist/hist.h"
#include "tests/testing.h"

static void test_slot_semantics(void)
{
	/* ceil-log2: slot i holds (2^(i-1), 2^i], slot 0 holds 0 and 1 */
	CHECK_EQ_U64(hist_slot(0), 0);
	CHECK_EQ_U64(hist_slot(1), 0);
	CHECK_EQ_U64(hist_slot(2), 1);
	CHECK_EQ_U64(hist_slot(3), 2);
	CHECK_EQ_U64(hist_slot(4), 2);
	CHECK_EQ_U64(hist_slot(5), 3);
	CHECK_EQ_U64(hist_slot(1024), 10);
	CHECK_EQ_U64(hist_slot(1025), 11);
	CHECK_EQ_U64(hist_slot(1ULL << 37), 37);
	CHECK_EQ_U64(hist_slot((1ULL << 37) + 1), 38);
	CHECK_EQ_U64(hist_slot(1ULL << 38), 38);
	CHECK_EQ_U64(hist_slot((1ULL << 38) + 1), HIST_SLOTS - 1);
	CHECK_EQ_U64(hist_slot(~0ULL), HIST_SLOTS - 1);

	/* Every value lands in the slot whose bounds contain it. */
	for (unsigned long long v = 0; v < 70000; v += 7) {
		unsigned int s = hist_slot(v);

		CHECK(v <= hist_slot_upper(s));
		CHECK(s == 0 || v > hist_slot_lower(s));
	}
	CHECK(isinf(hist_slot_upper(HIST_SLOTS - 1)));
	CHECK_NEAR(hist_slot_lower(0), 0, 0);
	CHECK_NEAR(hist_slot_upper(0), 1, 0);
	CHECK_NEAR(hist_slot_lower(11), 1024, 0);
	CHECK_NEAR(hist_slot_upper(11), 2048, 0);
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
	struct hist_tracker t = { 0 };
	struct hist_interval h;
	uint64_t cur[HIST_SLOTS] = { 0 }, sum = 0;

	/* 100 values: 1..100. Known answers: p50 = 50, p90 = 90, p99 = 99. */
	for (unsigned long long v = 1; v <= 100; v++) {
		cur[hist_slot(v)]++;
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
		unsigned int s = hist_slot((unsigned long long)truth);

		CHECK(est > hist_slot_lower(s) && est <= hist_slot_upper(s));
		CHECK(est / truth < 2.0 && truth / est < 2.0);
	}
	/* Exact case: all samples at one slot's upper bound, percentile interpolates to it. */
	struct hist_interval one = { 0 };
	one.slots[10] = 4;
	one.count = 4;
	CHECK_NEAR(hist_percentile(&one, 100), 1024, 1e-9);
	CHECK_NEAR(hist_percentile(&one, 50), 512 + 256, 1e-9);
	CHECK(isnan(hist_percentile(&one, 0)));
	CHECK(isnan(hist_percentile(&one, 101)));
}

/* One interval of n equal values x, as the kernel would record it. */
static struct hist_interval constant(unsigned long long x, uint64_t n)
{
	struct hist_interval h = { 0 };

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
	struct hist_interval two = { 0 };
	two.slots[hist_slot(8193)] = 2;
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
	CHECK(e > 8192 && e <= 16384);

	/* The open-ended last slot (above 2^38): only the mean bounds it, and the estimate is
	 * spread around the exact mean: p50 of a constant is that constant, never below 2^38. */
	struct hist_interval big = constant(1ULL << 45, 100);
	CHECK_NEAR(hist_percentile(&big, 50), (double)(1ULL << 45), 1.0);
	CHECK(hist_percentile(&big, 1) >= hist_slot_lower(HIST_SLOTS - 1));
	big.slots[hist_slot(100)] = 1;
	big.count = 101;
	big.sum += 100;
	CHECK(!isnan(hist_percentile(&big, 99)));
	CHECK(hist_percentile(&big, 99) >= hist_slot_lower(HIST_SLOTS - 1));
}

static void test_count_between(void)
{
	struct hist_interval h = { 0 };

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

int main(void)
{
	test_slot_semantics();
	test_advance_and_reset();
	test_sum_wrap_is_no_reset();
	test_percentiles();
	test_percentiles_use_the_sum();
	test_count_between();
	return testing_done();
}
