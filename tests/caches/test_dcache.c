/* Root test of the `dcache` module, once per attach method (see module_test.h). N stat()
 * calls of an existing path are lookups the cache answers (no miss, hit ratio 100); N
 * stat() calls of distinct missing names are N misses. On a kernel with neither fentry
 * nor kprobes (this project's CI machine) the module must refuse to start as
 * "unsupported" with one error naming what it tried: "auto" accepts either outcome, an
 * explicit method must work. */
#include "tests/caches/cache_read.h"
#include "tests/support/module_test.h"

#include <sys/stat.h>

struct seen {
	uint64_t lookups, misses;
	double hit_ratio;
	bool got_ratio;
};

static struct seen read_module(struct module *m)
{
	struct seen s = { 0 };
	const struct cache_counter counters[] = { { "lookups", &s.lookups }, { "misses", &s.misses }, { NULL, NULL } };

	s.got_ratio = read_cache_module(m, counters, &s.hit_ratio);
	return s;
}

enum { NHIT = 500, NMISS = 200 };

static void workload_and_check(struct module *m, const char *dir)
{
	char path[256];
	struct stat st;
	struct seen s0, s1, s2;

	snprintf(path, sizeof(path), "%s/present", dir);
	CHECK(stat(path, &st) == 0); /* warm */
	s0 = read_module(m);
	for (int i = 0; i < NHIT; i++)
		CHECK(stat(path, &st) == 0);
	s1 = read_module(m);
	printf("  existing path: %llu lookups, %llu misses, hit ratio %.1f%%\n",
	       (unsigned long long)(s1.lookups - s0.lookups), (unsigned long long)(s1.misses - s0.misses), s1.hit_ratio);
	CHECK(s1.lookups - s0.lookups >= NHIT);
	CHECK_EQ_U64(s1.misses - s0.misses, 0);
	CHECK(s1.got_ratio);
	CHECK_NEAR(s1.hit_ratio, 100, 0);

	for (int i = 0; i < NMISS; i++) {
		snprintf(path, sizeof(path), "%s/missing-%d", dir, i);
		CHECK(stat(path, &st) == -1);
	}
	s2 = read_module(m);
	printf("  missing names: %llu lookups, %llu misses, hit ratio %.1f%%\n",
	       (unsigned long long)(s2.lookups - s1.lookups), (unsigned long long)(s2.misses - s1.misses), s2.hit_ratio);
	CHECK(s2.lookups - s1.lookups >= NMISS);
	CHECK(s2.misses - s1.misses >= NMISS);
	CHECK(s2.misses - s1.misses <= NMISS + NMISS / 10);
	CHECK(s2.got_ratio);
	CHECK(s2.hit_ratio < 100);
}

static void run_method(const char *method, const char *dir)
{
	int before = testing_failures;
	struct module *m = mt_module("dcache", method, NULL);

	mt_log_reset();
	if (!m)
		return;
	if (!mt_start(m, "test_dcache", method, before, (const char *const[]){ "lookup_fast", "d_alloc_parallel", NULL }))
		return;
	workload_and_check(m, dir);
	CHECK(mt_log.errors == 0);
	mt_result("test_dcache", method, before, NULL);
	module_free(m);
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "auto", NULL };
	char dir[] = "/var/tmp/ebpf-test-dcache-XXXXXX", path[300];
	struct method_list ml;
	FILE *f;

	mt_require_root();
	methods_from(argc, argv, defaults, &ml);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/present", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	for (int i = 0; i < ml.n; i++)
		run_method(ml.names[i], dir);
	unlink(path);
	rmdir(dir);
	return testing_done();
}
