/* Shared by the cache module tests (test_dcache, test_pagecache): one read of a cache module.
 * Both modules send counters and a hit_ratio gauge, never a histogram; one reader checks that
 * the same way for both and fills each test's own fields, named as the module names them. */
#ifndef EBPF_TESTS_CACHE_READ_H
#define EBPF_TESTS_CACHE_READ_H

#include "libcore/engine/module.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"

#include <stdbool.h>
#include <stdint.h>

/* A counter the module sends (metric) and where its value goes. */
struct cache_counter {
	const char *metric;
	uint64_t *value;
};

/* Reads m once: it must send no histogram; each of counters (up to one with a NULL metric)
 * gets the value sent, 0 when none was. Returns whether a hit_ratio was sent, with it in
 * *hit_ratio. */
static inline bool read_cache_module(struct module *m, const struct cache_counter *counters, double *hit_ratio)
{
	struct recording r = { 0 };
	bool got_ratio;

	CHECK(recording_read(&r, m) == 0);
	CHECK(recorded_count(&r, RECORDED_HISTOGRAM, NULL, NULL) == 0 && "a cache module sends no histogram");
	for (const struct cache_counter *c = counters; c->metric; c++)
		*c->value = recorded_counter(&r, c->metric, NULL);
	got_ratio = recorded_gauge(&r, "hit_ratio", NULL, hit_ratio);
	recording_free(&r);
	return got_ratio;
}

#endif
