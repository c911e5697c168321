/* Root test of the `pagecache` module on a scratch ext4 (loop device), once per attach
 * method (see module_test.h). Known answers, in pages of 4 KiB:
 *   writing a new file of N pages dirties at least N pages;
 *   after drop_caches, reading it adds at least N pages (misses), hit ratio near 0;
 *   reading it again adds none, accesses at least N, hit ratio 100.
 * Methods: fentry and kprobe must run the whole module. "auto" runs it or, on a kernel with
 * neither (this project's CI machine), must report it unsupported with one error.
 * tp_btf and raw_tp run additions and dirtied alone (accesses have no tracepoint), which
 * checks the folio page counting against the running kernel's struct folio. */
#include "tests/caches/cache_read.h"
#include "tests/support/loop_ext4.h"
#include "tests/support/module_test.h"

enum { FILE_PAGES = 1024, PAGE = 4096, CHUNK = 65536 };

struct seen {
	uint64_t accesses, additions, dirtied;
	double hit_ratio;
	bool got_ratio;
};

static struct seen read_module(struct module *m)
{
	struct seen s = { 0 };
	const struct cache_counter counters[] = { { "accesses", &s.accesses }, { "additions", &s.additions },
						  { "dirtied", &s.dirtied }, { NULL, NULL } };

	s.got_ratio = read_cache_module(m, counters, &s.hit_ratio);
	return s;
}

static void write_file(const char *path)
{
	static char buf[CHUNK];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	memset(buf, 'p', sizeof(buf));
	CHECK(fd >= 0);
	for (int i = 0; i < FILE_PAGES * PAGE / CHUNK; i++)
		CHECK(write(fd, buf, CHUNK) == CHUNK);
	CHECK(fsync(fd) == 0);
	close(fd);
}

static void read_file(const char *path)
{
	char buf[PAGE];
	int fd = open(path, O_RDONLY);

	CHECK(fd >= 0);
	for (int i = 0; i < FILE_PAGES; i++)
		CHECK(read(fd, buf, PAGE) == PAGE);
	close(fd);
}

#define DELTA(a, b, field) ((unsigned long long)((b).field - (a).field))

static void workload_and_check(struct module *m, const char *dir, bool with_accesses)
{
	char path[128];
	struct seen s0, s1, s2, s3, s4;

	snprintf(path, sizeof(path), "%s/data", dir);
	s0 = read_module(m);
	write_file(path);
	s1 = read_module(m);
	CHECK(drop_caches() == 0);
	s2 = read_module(m);
	read_file(path); /* cold: every page is a miss */
	s3 = read_module(m);
	read_file(path); /* warm: every page is a hit */
	s4 = read_module(m);

	printf("  write: %llu dirtied, %llu added; cold read: %llu added, %llu accessed, ratio %.1f%%; "
	       "warm read: %llu added, %llu accessed, ratio %.1f%%\n",
	       DELTA(s0, s1, dirtied), DELTA(s0, s1, additions), DELTA(s2, s3, additions), DELTA(s2, s3, accesses),
	       s3.hit_ratio, DELTA(s3, s4, additions), DELTA(s3, s4, accesses), s4.hit_ratio);
	CHECK(DELTA(s0, s1, dirtied) >= FILE_PAGES);
	CHECK(DELTA(s0, s1, dirtied) <= FILE_PAGES + FILE_PAGES / 10);
	CHECK(DELTA(s2, s3, additions) >= FILE_PAGES);
	CHECK(DELTA(s2, s3, additions) <= FILE_PAGES + FILE_PAGES / 10);
	CHECK_EQ_U64(DELTA(s3, s4, additions), 0);
	if (!with_accesses)
		return;
	CHECK(DELTA(s2, s3, accesses) >= FILE_PAGES);
	CHECK(DELTA(s3, s4, accesses) >= FILE_PAGES);
	CHECK(s3.got_ratio && s3.hit_ratio <= 10);
	CHECK(s4.got_ratio);
	CHECK_NEAR(s4.hit_ratio, 100, 0);
}

static bool is_tracepoint_method(const char *method)
{
	return !strcmp(method, "tp_btf") || !strcmp(method, "raw_tp");
}

static void run_method(const char *method, const struct loop_ext4 *fs)
{
	int before = testing_failures;
	struct module *m = mt_module("pagecache", method, NULL);
	bool partial = is_tracepoint_method(method);

	mt_log_reset();
	if (!m)
		return;
	if (partial)
		m->probes.points[0].enabled = false; /* accesses: no tracepoint exists */
	if (!mt_start(m, "test_pagecache", method, before,
		      (const char *const[]){ "no attach method works for accesses", NULL }))
		return;
	if (fs)
		workload_and_check(m, fs->mnt, !partial);
	else
		CHECK(!"a scratch ext4 for the workload");
	CHECK(mt_log.errors == 0);
	mt_result("test_pagecache", method, before, partial ? "additions and dirtied only" : NULL);
	module_free(m);
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "auto", "tp_btf", "raw_tp", NULL };
	struct method_list ml;
	struct loop_ext4 fs;
	bool have_fs;

	mt_require_root();
	methods_from(argc, argv, defaults, &ml);
	have_fs = loop_ext4_setup(&fs, 64) == 0;
	if (!have_fs)
		fprintf(stderr, "scratch ext4: %s\n", fs.why);
	for (int i = 0; i < ml.n; i++)
		run_method(ml.names[i], have_fs ? &fs : NULL);
	if (have_fs)
		loop_ext4_teardown(&fs);
	return testing_done();
}
