/* Root test of the `dcache` module, once per attach method (see module_test.h). N stat()
 * calls of an existing path are lookups the cache answers (no miss, hit ratio 100); N
 * stat() calls of distinct missing names are N misses. On a kernel with neither fentry
 * nor kprobes (this project's CI machine) the module must refuse to start as
 * "unsupported" with one error naming what it tried: "auto" accepts either outcome, an
 * explicit method must work. */
#include "tests/bpf/module_test.h"

#include <sys/stat.h>

struct seen {
	uint64_t lookups, misses;
	double hit_ratio;
	bool got_ratio;
};

static void on_counter(void *ctx, const char *metric, const char *instance, uint64_t v)
{
	struct seen *s = ctx;

	if (!strcmp(metric, "lookups"))
		s->lookups = v;
	else if (!strcmp(metric, "misses"))
		s->misses = v;
}

static void on_histogram(void *ctx, const char *metric, const char *instance, enum hist_unit unit,
			 const struct hist_interval *h)
{
	CHECK(!"dcache sends no histogram");
}

static void on_gauge(void *ctx, const char *metric, const char *instance, double v)
{
	struct seen *s = ctx;

	if (!strcmp(metric, "hit_ratio")) {
		s->hit_ratio = v;
		s->got_ratio = true;
	}
}

static struct seen read_module(struct module *m)
{
	struct seen s = { 0 };
	struct metric_sink sink = { .ctx = &s, .counter = on_counter, .histogram = on_histogram, .gauge = on_gauge };

	CHECK(module_read(m, &sink) == 0);
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
	if (module_start(m)) {
		printf("  dcache via %s is off: %s\n", method, m->last_error);
		mt_check_off(m, method);
		CHECK(strstr(m->last_error, "lookup_fast") != NULL || strstr(m->last_error, "d_alloc_parallel") != NULL);
		mt_result("test_dcache", method, before,
			  testing_failures == before ? "module unsupported on this kernel, as reported" : m->last_error);
		module_free(m);
		return;
	}
	mt_check_methods(m, method);
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
