/* Workload for the percentile test: N sleeps of USEC microseconds through the legacy
 * nanosleep syscall, each timed by the workload itself, then the exact percentiles of those
 * durations. Usage: sleep_n N USEC; prints "p50 p90 p99" in seconds.
 *
 * The legacy syscall, not glibc's nanosleep(): glibc implements every sleep with
 * clock_nanosleep, which other processes on the machine call all the time; nobody calls
 * SYS_nanosleep, so its latency histogram holds this workload alone. Same kernel path
 * (hrtimer_nanosleep) as the clock_nanosleep case. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest duration with at least pct percent of them at or below it. */
static double percentile(const int64_t *sorted, int n, double pct)
{
	int rank = (int)((pct / 100.0) * n + 0.999999);

	return (double)sorted[(rank < 1 ? 1 : rank) - 1] / 1e9;
}

int main(int argc, char **argv)
{
	struct timespec req;
	int64_t *d;
	int n;
	long usec;

	if (argc != 3 || (n = atoi(argv[1])) <= 0 || (usec = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: %s N USEC\n", argv[0]);
		return 2;
	}
	d = calloc((size_t)n, sizeof(*d));
	if (!d)
		return 1;
	req.tv_sec = usec / 1000000;
	req.tv_nsec = (usec % 1000000) * 1000;
	for (int i = 0; i < n; i++) {
		int64_t start = now_ns();

		if (syscall(SYS_nanosleep, &req, NULL)) {
			perror("nanosleep");
			return 1;
		}
		d[i] = now_ns() - start;
	}
	qsort(d, (size_t)n, sizeof(*d), by_value);
	printf("%.9f %.9f %.9f\n", percentile(d, n, 50), percentile(d, n, 90), percentile(d, n, 99));
	free(d);
	return 0;
}
