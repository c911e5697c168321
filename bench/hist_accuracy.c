/* Accuracy of the kernel's histograms, log2 (precision 0, the layout before issue 11)
 * against log-linear at each precision, in one run: one syscalls module per precision,
 * all attached at once with `Latency "clock_nanosleep"`, so every configuration sees the
 * very same sleeps. The bench times each sleep itself, sorts its own measurements for the
 * exact percentiles, and prints the error of p50/p90/p99/p99.9 as each module reports it.
 *
 * Then the cost per event of `Latency` at precision 0 and at the default, side by side in
 * alternating rounds of getppid() calls (the slot function is the only difference).
 *
 * Root only (BPF); run it under the tests' lock: sudo flock /run/lock/collectd-ebpf-tests.lock
 * bench/hist_accuracy */
#include "libcore/engine/module.h"
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const unsigned int precisions[] = { 0, 3, 4, 5 };
#define NPREC (int)(sizeof(precisions) / sizeof(precisions[0]))
static const double pcts[] = { 50, 90, 99, 99.9 };
#define NPCT (int)(sizeof(pcts) / sizeof(pcts[0]))

static int set_option(struct module *m, const char *key, struct opt_value v)
{
	struct option o = { .key = key, .values = &v, .nvalues = 1 };
	char err[256];

	if (module_set_option(m, &o, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", key, err);
		return -1;
	}
	return 0;
}

static struct module *start_module(const char *syscall_name, unsigned int precision)
{
	char instance[16];
	struct module *m;

	snprintf(instance, sizeof(instance), "p%u", precision);
	m = module_new(module_find("syscalls"), instance);
	if (!m || set_option(m, "Latency", (struct opt_value){ .type = OPT_STRING, .string = syscall_name }) ||
	    set_option(m, "Precision", (struct opt_value){ .type = OPT_NUMBER, .number = precision })) {
		module_free(m);
		return NULL;
	}
	m->filter_tgid = getpid(); /* this process's sleeps only */
	if (module_start(m)) {
		module_free(m);
		return NULL;
	}
	return m;
}

struct estimates {
	double p[NPCT];
	uint64_t count;
};

static void keep_histogram(void *ctx, const char *metric, const char *instance, enum hist_unit unit,
			   const struct hist_interval *h)
{
	struct estimates *e = ctx;

	(void)metric;
	(void)instance;
	(void)unit;
	e->count = h->count;
	for (int i = 0; i < NPCT; i++)
		e->p[i] = hist_percentile(h, pcts[i]);
}

static void ignore_counter(void *ctx, const char *metric, const char *instance, uint64_t value)
{
	(void)ctx;
	(void)metric;
	(void)instance;
	(void)value;
}

static struct estimates read_interval(struct module *m)
{
	struct estimates e = { .count = 0 };
	struct metric_sink sink = { .ctx = &e, .counter = ignore_counter, .histogram = keep_histogram };

	module_read(m, &sink);
	return e;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The same rank hist_percentile() takes: the ceil(p/100 n)-th smallest. */
static double exact(const double *sorted, int n, double pct)
{
	int j = (int)ceil(pct / 100.0 * n - 1e-9);

	return sorted[j > 0 ? j - 1 : 0];
}

/* One distribution: n sleeps of durations from `pick`, measured here and by every module. */
static void run_sleeps(const char *name, struct module **mods, int n, long (*pick)(int i))
{
	double *took = calloc(n, sizeof(double));
	struct estimates est[NPREC];

	for (int k = 0; k < NPREC; k++)
		read_interval(mods[k]); /* start of the interval */
	for (int i = 0; i < n; i++) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = pick(i) };
		uint64_t t0 = now_ns();

		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		took[i] = (double)(now_ns() - t0);
	}
	for (int k = 0; k < NPREC; k++)
		est[k] = read_interval(mods[k]);
	qsort(took, n, sizeof(double), cmp_double);
	printf("\n%s: %d sleeps (the modules counted", name, n);
	for (int k = 0; k < NPREC; k++)
		printf(" %llu", (unsigned long long)est[k].count);
	printf(")\n%-7s %12s", "", "truth ms");
	for (int k = 0; k < NPREC; k++)
		printf("   precision %u%s", precisions[k], precisions[k] == 0 ? " (log2)" : "");
	printf("\n");
	for (int i = 0; i < NPCT; i++) {
		double truth = exact(took, n, pcts[i]);

		printf("p%-6g %12.4f", pcts[i], truth / 1e6);
		for (int k = 0; k < NPREC; k++)
			printf("   %8.4f %+6.2f%%%s", est[k].p[i] / 1e6, 100 * (est[k].p[i] - truth) / truth,
			       precisions[k] == 0 ? "      " : "");
		printf("\n");
	}
	free(took);
}

static long fixed_3ms(int i)
{
	(void)i;
	return 3000000;
}

/* 50 us, 200 us, 1 ms, 3 ms and 10 ms, in a fixed order: peaks several log2 slots apart. */
static long mixed(int i)
{
	static const long d[] = { 50000, 200000, 1000000, 3000000, 200000, 50000, 10000000, 1000000, 3000000, 50000 };

	return d[(i * 7) % 10];
}

/* ns per getppid() with Latency on it, minus the same loop with nothing attached. */
static void cost_per_event(void)
{
	const unsigned int ps[] = { 0, HIST_PRECISION_DEFAULT };
	double with[2][7], bare[7];
	const long n = 300000;

	printf("\ncost per event, Latency \"getppid\" (%ld calls a round, median of 7 alternating rounds)\n", n);
	for (int r = 0; r < 7; r++) {
		bare[r] = syscall_loop_ns(n);
		for (int k = 0; k < 2; k++) {
			struct module *m = start_module("getppid", ps[k]);

			if (!m) {
				fprintf(stderr, "cannot start the syscalls module\n");
				exit(1);
			}
			with[k][r] = syscall_loop_ns(n);
			module_free(m);
		}
	}
	printf("  nothing attached: %.1f ns/call\n", median(bare, 7));
	for (int k = 0; k < 2; k++)
		printf("  precision %u: +%.1f ns/call\n", ps[k], median(with[k], 7) - median(bare, 7));
}

int main(void)
{
	struct module *mods[NPREC];
	int cpu, other;

	if (geteuid() != 0) {
		fprintf(stderr, "hist_accuracy loads BPF programs: run it as root\n");
		return 77;
	}
	choose_cpus(&cpu, &other);
	pin_to_cpu(cpu);
	for (int k = 0; k < NPREC; k++) {
		mods[k] = start_module("clock_nanosleep", precisions[k]);
		if (!mods[k]) {
			fprintf(stderr, "cannot start the syscalls module at precision %u\n", precisions[k]);
			return 1;
		}
	}
	printf("Percentiles of clock_nanosleep as each module reports them, against the exact ones\n"
	       "of the durations this process measured itself (error in %%).\n");
	run_sleeps("fixed 3 ms (issue 11)", mods, 600, fixed_3ms);
	run_sleeps("mixed 50 us / 200 us / 1 ms / 3 ms / 10 ms", mods, 600, mixed);
	for (int k = 0; k < NPREC; k++)
		module_free(mods[k]);
	cost_per_event();
	return 0;
}
