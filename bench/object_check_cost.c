/* What the loader's check of a user's BPF object costs as the object grows (it must stay linear): an
 * object of N calls, each with its relocation (N - 1 calls of its own function and a kfunc,
 * made by tests/programs/make_hostile many-calls), through object_policy_check_calls() with
 * the kfunc allowed, so every call is looked at. A linear check costs the same per call at
 * every N: the table prints ns per call and its ratio to the smallest N. Prints numbers,
 * judges nothing. Run from the build directory (make bench). */
#include "bench/measure.h"
#include "libcore/programs/object_policy.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) || !(b = malloc((size_t)n)) ||
	    fread(b, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

int main(void)
{
	static const long sizes[] = { 10000, 40000, 160000, 640000 };
	struct object_policy allow = { .helpers = { "bpf_rcu_read_lock" }, .nhelpers = 1 };
	double first = 0;

	printf("%10s %12s %10s %8s\n", "calls", "bytes", "ns/call", "ratio");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char cmd[256], err[ERR_MAX];
		double runs[5];
		size_t len;
		char *b;

		snprintf(cmd, sizeof(cmd), "tests/programs/make_hostile many-calls %ld /tmp/ebpf-bench-object.o", sizes[i]);
		if (system(cmd)) {
			fprintf(stderr, "%s failed (run from the build directory after make check)\n", cmd);
			return 1;
		}
		b = slurp("/tmp/ebpf-bench-object.o", &len);
		for (int r = 0; r < 5; r++) {
			uint64_t t0 = now_ns();

			if (object_policy_check_calls(b, len, &allow, "bench.o", err, sizeof(err))) {
				fprintf(stderr, "refused: %s\n", err);
				return 1;
			}
			runs[r] = (double)(now_ns() - t0) / (double)sizes[i];
		}
		if (!i)
			first = median(runs, 5);
		printf("%10ld %12zu %10.1f %7.2fx\n", sizes[i], len, median(runs, 5), median(runs, 5) / first);
		free(b);
	}
	remove("/tmp/ebpf-bench-object.o");
	return 0;
}
