#include "libcore/hist/ratio.h"

uint64_t counter_delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;
}

double hit_ratio_percent(uint64_t accesses, uint64_t misses)
{
	if (accesses == 0)
		return -1;
	if (misses >= accesses)
		return 0;
	return 100.0 * (double)(accesses - misses) / (double)accesses;
}
