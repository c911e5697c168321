/* Interval deltas and hit ratios of the dcache and pagecache modules. */
#include "libcore/hist/ratio.h"
#include "tests/support/testing.h"

int main(void)
{
	CHECK_EQ_U64(counter_delta(150, 100), 50);
	CHECK_EQ_U64(counter_delta(100, 100), 0);
	CHECK_EQ_U64(counter_delta(30, 100), 30); /* maps recreated: the new count is the interval */
	CHECK_NEAR(hit_ratio_percent(0, 0), -1, 0);
	CHECK_NEAR(hit_ratio_percent(0, 5), -1, 0);
	CHECK_NEAR(hit_ratio_percent(200, 0), 100, 1e-12);
	CHECK_NEAR(hit_ratio_percent(200, 50), 75, 1e-12);
	CHECK_NEAR(hit_ratio_percent(200, 200), 0, 0);
	CHECK_NEAR(hit_ratio_percent(200, 300), 0, 0);
	CHECK_NEAR(hit_ratio_percent(3, 1), 200.0 / 3, 1e-9);
	return testing_done();
}
