/* Minimal test helpers: each failed check prints file:line and the expression, the test
 * exits 1 if any failed, 77 (automake SKIP) through SKIP(). */
#ifndef EBPF_TESTING_H
#define EBPF_TESTING_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int testing_failures;
static int testing_checks;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		testing_checks++;                                                            \
		if (!(cond)) {                                                               \
			testing_failures++;                                                  \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);     \
		}                                                                            \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                   \
	do {                                                                                 \
		unsigned long long va_ = (a), vb_ = (b);                                     \
		testing_checks++;                                                            \
		if (va_ != vb_) {                                                            \
			testing_failures++;                                                  \
			fprintf(stderr, "%s:%d: FAIL: %s == %s (%llu != %llu)\n", __FILE__,  \
				__LINE__, #a, #b, va_, vb_);                                 \
		}                                                                            \
	} while (0)

#define CHECK_NEAR(a, b, eps)                                                                \
	do {                                                                                 \
		double va_ = (a), vb_ = (b);                                                 \
		testing_checks++;                                                            \
		if (!(fabs(va_ - vb_) <= (eps))) {                                           \
			testing_failures++;                                                  \
			fprintf(stderr, "%s:%d: FAIL: %s ~ %s (%.9g vs %.9g)\n", __FILE__,   \
				__LINE__, #a, #b, va_, vb_);                                 \
		}                                                                            \
	} while (0)

#define CHECK_STR(a, b)                                                                      \
	do {                                                                                 \
		const char *sa_ = (a), *sb_ = (b);                                           \
		testing_checks++;                                                            \
		if (strcmp(sa_, sb_)) {                                                      \
			testing_failures++;                                                  \
			fprintf(stderr, "%s:%d: FAIL: %s == \"%s\" (got \"%s\")\n", __FILE__,\
				__LINE__, #a, sb_, sa_);                                     \
		}                                                                            \
	} while (0)

#define SKIP(...)                                                                            \
	do {                                                                                 \
		fprintf(stderr, "SKIP: " __VA_ARGS__);                                       \
		fprintf(stderr, "\n");                                                       \
		exit(77);                                                                    \
	} while (0)

/* A check the host's load can fail without any fault of ours: the kernel skipping a BPF
 * program's run without counting it, under interrupt load (doc/modules.md, Known limits).
 * Counted apart and printed, so that the test can measure again (testing_load_retry)
 * rather than fail on a busy host; after the last attempt it is an ordinary failure. */
static int testing_load_failures;

#define CHECK_UNDER_LOAD(cond)                                                               \
	do {                                                                                 \
		testing_checks++;                                                            \
		if (!(cond)) {                                                               \
			testing_load_failures++;                                             \
			fprintf(stderr, "%s:%d: short under load: %s\n", __FILE__, __LINE__,  \
				#cond);                                                      \
		}                                                                            \
	} while (0)

/* After attempt `attempt` (0, 1, ...) of at most `max`: true when a CHECK_UNDER_LOAD failed
 * and another attempt is left (measure again); else those failures become failures. */
static inline int testing_load_retry(int attempt, int max)
{
	int n = testing_load_failures;

	testing_load_failures = 0;
	if (!n)
		return 0;
	if (attempt + 1 < max) {
		printf("%d check(s) short under load: measuring again (attempt %d of %d)\n", n, attempt + 2, max);
		return 1;
	}
	testing_failures += n;
	return 0;
}

/* Runs the statement after it once, and again while a CHECK_UNDER_LOAD in it failed and fewer
 * than `max` runs were made: MEASURED_UNDER_LOAD(3) run_method(m); */
#define MEASURED_UNDER_LOAD(max) for (int attempt_ = 0; attempt_ == 0 || testing_load_retry(attempt_ - 1, (max)); attempt_++)

static inline int testing_done(void)
{
	printf("%d checks, %d failed\n", testing_checks, testing_failures);
	return testing_failures ? 1 : 0;
}

/* CLOCK_MONOTONIC in nanoseconds: the wall time a workload took, to bound what a module
 * timed in it. */
static inline uint64_t testing_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A file made from template (mkstemp's "...XXXXXX", rewritten with its name); its descriptor,
 * checked. */
static inline int testing_temp_file(char *template)
{
	int fd = mkstemp(template);

	CHECK(fd >= 0);
	return fd;
}

/* testing_temp_file(), its name removed at once: a file only the descriptor reaches. */
static inline int testing_unlinked_temp_file(char *template)
{
	int fd = testing_temp_file(template);

	unlink(template);
	return fd;
}

/* Writes `pages` pages of 4096 bytes to fd, then reads them back: in the page cache from
 * here on, so that reading them again does no IO. */
static inline void testing_cached_pages(int fd, int pages)
{
	char page[4096];

	memset(page, 'v', sizeof(page));
	for (int i = 0; i < pages; i++)
		CHECK(write(fd, page, sizeof(page)) == sizeof(page));
	for (int i = 0; i < pages; i++)
		CHECK(pread(fd, page, sizeof(page), (off_t)i * 4096) == sizeof(page));
}

#endif
