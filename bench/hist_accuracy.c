/* Accuracy of the kernel's histograms, log2 (precision 0, the only layout before log-linear)
 * against log-linear at each precision, in one run: one syscalls module per precision,
 * all attached at once with `Latency "clock_nanosleep"`, so every configuration sees the
 * very same sleeps. The bench times each sleep itself, sorts its own measurements for the
 * exact percentiles, and prints the error of p50/p90/p99/p99.9 as each module reports it.
 *
 * Then the same for block IO sizes: O_DIRECT reads of fixed and mixed sizes of a loop
 * device, one block module per precision, the sizes known exactly.
 *
 * Then the cost per event of `Latency` at precision 0 and at the default, side by side in
 * alternating rounds of getppid() calls (the slot function is the only difference).
 *
 * Root only (BPF); run it under the tests' lock: sudo flock /run/lock/collectd-ebpf-tests.lock
 * bench/hist_accuracy */
#define _GNU_SOURCE
#include "base/log.h"
#include "libcore/engine/module.h"
#include "measure.h"
#include "side_by_side.h"
#include "tests/support/loop_device.h"
#include "base/err_max.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The loop device of the size bench, on tmpfs. */
#define DEVICE_MIB 64

static const unsigned int precisions[] = { 0, 3, 4, 5 };
#define NPREC (int)(sizeof(precisions) / sizeof(precisions[0]))
static const double pcts[] = { 50, 90, 99, 99.9 };
#define NPCT (int)(sizeof(pcts) / sizeof(pcts[0]))

static struct opt_value text(const char *s)
{
	return (struct opt_value){ .type = OPT_STRING, .string = s };
}

/* A module of `name` at `precision` (-1: its default) with one more option (`key` `value`),
 * started, counting only this process or (whole_system) everything. */
static struct module *start_module_for(const char *name, const char *key, const char *value, int precision,
				       bool whole_system)
{
	char instance[16];
	struct module *m;

	snprintf(instance, sizeof(instance), "p%d", precision);
	m = module_new(module_find(name), instance);
	if (!m || bench_set_option(m, key, text(value)) ||
	    (precision >= 0 &&
	     bench_set_option(m, "Precision", (struct opt_value){ .type = OPT_NUMBER, .number = precision }))) {
		module_free(m);
		return NULL;
	}
	if (!whole_system)
		m->filter_tgid = getpid(); /* this process's events only (block: the Disk filter) */
	if (module_start(m)) {
		module_free(m);
		return NULL;
	}
	return m;
}

static struct module *start_module(const char *name, const char *key, const char *value, unsigned int precision)
{
	return start_module_for(name, key, value, (int)precision, false);
}

/* One histogram series of a read: the percentiles of its interval. */
struct estimates {
	const char *metric, *instance; /* which series */
	double p[NPCT];
	uint64_t count;
};

static void keep_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			   const struct hist_interval *h)
{
	const char *metric = id->name;
	struct estimates *e = ctx;

	(void)unit;
	if (strcmp(metric, e->metric) || strcmp(instance, e->instance))
		return;
	e->count = h->count;
	for (int i = 0; i < NPCT; i++)
		e->p[i] = hist_percentile(h, pcts[i]);
}

static void ignore_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	const char *metric = id->name;
	(void)ctx;
	(void)metric;
	(void)instance;
	(void)value;
}

static void ignore_gauge(void *ctx, const struct metric_id *id, const char *instance, double value)
{
	const char *metric = id->name;
	(void)ctx;
	(void)metric;
	(void)instance;
	(void)value;
}

static struct estimates read_interval(struct module *m, const char *metric, const char *instance)
{
	struct estimates e = { .metric = metric, .instance = instance };
	struct metric_sink sink = { .ctx = &e, .counter = ignore_counter, .histogram = keep_histogram,
				    .gauge = ignore_gauge };

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

/* A known distribution: `event` makes event i happen and returns its true value (measured or
 * known), in the series' unit. */
struct distribution {
	const char *name;
	const char *metric, *instance; /* the series every module reports it in */
	int n;
	double (*event)(int i, void *ctx);
	void *ctx;
	double unit; /* printed in units of this many */
	const char *unit_name;
};

/* Runs d once, seen by every module at once, and prints each precision's error against the
 * exact percentiles of the true values. */
static void run_distribution(const struct distribution *d, struct module **mods)
{
	double *truth = calloc(d->n, sizeof(double));
	struct estimates est[NPREC];

	for (int k = 0; k < NPREC; k++)
		read_interval(mods[k], d->metric, d->instance); /* start of the interval */
	for (int i = 0; i < d->n; i++)
		truth[i] = d->event(i, d->ctx);
	for (int k = 0; k < NPREC; k++)
		est[k] = read_interval(mods[k], d->metric, d->instance);
	qsort(truth, d->n, sizeof(double), cmp_double);
	printf("\n%s: %d events (the modules counted", d->name, d->n);
	for (int k = 0; k < NPREC; k++)
		printf(" %llu", (unsigned long long)est[k].count);
	printf(")\n%-7s %9s %s", "", "truth", d->unit_name);
	for (int k = 0; k < NPREC; k++)
		printf("   precision %u%s", precisions[k], precisions[k] == 0 ? " (log2)" : "");
	printf("\n");
	for (int i = 0; i < NPCT; i++) {
		double t = exact(truth, d->n, pcts[i]);

		printf("p%-6g %12.4f", pcts[i], t / d->unit);
		for (int k = 0; k < NPREC; k++)
			printf("   %8.4f %+6.2f%%%s", est[k].p[i] / d->unit, 100 * (est[k].p[i] - t) / t,
			       precisions[k] == 0 ? "      " : "");
		printf("\n");
	}
	free(truth);
}

/* ---- clock_nanosleep: durations measured by the bench itself ---- */

static double sleep_for(long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
	uint64_t t0 = now_ns();

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	return (double)(now_ns() - t0);
}

static double fixed_3ms(int i, void *ctx)
{
	(void)i;
	(void)ctx;
	return sleep_for(3000000);
}

/* 50 us, 200 us, 1 ms, 3 ms and 10 ms, in a fixed order: peaks several log2 slots apart. */
static double mixed_sleep(int i, void *ctx)
{
	static const long d[] = { 50000, 200000, 1000000, 3000000, 200000, 50000, 10000000, 1000000, 3000000, 50000 };

	(void)ctx;
	return sleep_for(d[(i * 7) % 10]);
}

static void sleeps(void)
{
	struct module *mods[NPREC];
	const struct distribution fixed = { "clock_nanosleep, fixed 3 ms", "latency", "clock_nanosleep",
					    600, fixed_3ms, NULL, 1e6, "ms" };
	const struct distribution mixed = { "clock_nanosleep, mixed 50 us / 200 us / 1 ms / 3 ms / 10 ms", "latency",
					    "clock_nanosleep", 600, mixed_sleep, NULL, 1e6, "ms" };

	for (int k = 0; k < NPREC; k++) {
		mods[k] = start_module("syscalls", "Latency", "clock_nanosleep", precisions[k]);
		if (!mods[k]) {
			fprintf(stderr, "cannot start the syscalls module at precision %u\n", precisions[k]);
			exit(1);
		}
	}
	printf("Percentiles as each module reports them, against the exact ones of the true values\n"
	       "(durations this process measured itself, sizes it asked for); error in %%.\n");
	run_distribution(&fixed, mods);
	run_distribution(&mixed, mods);
	for (int k = 0; k < NPREC; k++)
		module_free(mods[k]);
}

/* ---- block IO sizes: O_DIRECT reads of a loop device, sizes known exactly ---- */

#define MAX_IO (256 * 1024)

struct reads {
	struct loop_device dev;
	char *buf; /* MAX_IO bytes, 4 KiB aligned */
};

static double read_size(struct reads *r, int i, size_t size)
{
	off_t at = ((off_t)i * MAX_IO) % ((off_t)DEVICE_MIB * 1024 * 1024);

	if (pread(r->dev.fd, r->buf, size, at) != (ssize_t)size) {
		perror("pread");
		exit(1);
	}
	return (double)size;
}

static double fixed_16k(int i, void *ctx)
{
	return read_size(ctx, i, 16384);
}

/* Multiples of 4 KiB that are not powers of two, several per power of two. */
static double mixed_read(int i, void *ctx)
{
	static const size_t kib[] = { 4, 12, 20, 36, 68, 100, 132, 196, 8, 52 };

	return read_size(ctx, i, kib[(i * 7) % 10] * 1024);
}

static void sizes(void)
{
	struct module *mods[NPREC];
	struct reads r;
	char err[ERR_MAX], instance[64];
	static char space[MAX_IO + 4096];

	if (loop_device_setup(&r.dev, DEVICE_MIB, NULL, err, sizeof(err))) {
		fprintf(stderr, "hist_accuracy: no loop device for the size bench: %s\n", err);
		return;
	}
	r.buf = space + (4096 - (uintptr_t)space % 4096) % 4096;
	snprintf(instance, sizeof(instance), "%s-read", r.dev.name);
	for (int k = 0; k < NPREC; k++) {
		mods[k] = start_module("block", "Disk", r.dev.name, precisions[k]);
		if (!mods[k]) {
			fprintf(stderr, "cannot start the block module at precision %u\n", precisions[k]);
			exit(1);
		}
	}
	const struct distribution fixed = { "O_DIRECT reads, fixed 16 KiB", "io_size", instance, 600, fixed_16k, &r,
					    1024, "KiB" };
	const struct distribution mixed = { "O_DIRECT reads, mixed 4-196 KiB", "io_size", instance, 600, mixed_read, &r,
					    1024, "KiB" };
	run_distribution(&fixed, mods);
	run_distribution(&mixed, mods);
	for (int k = 0; k < NPREC; k++)
		module_free(mods[k]);
	loop_device_remove(&r.dev);
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
			struct module *m = start_module("syscalls", "Latency", "getppid", ps[k]);

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

static double thread_cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* CPU time of one read (module_read: maps read, deltas, percentiles into a sink that keeps
 * nothing), whole system, median of 15 reads 200 ms apart. */
static void read_cost(const char *latency, int precision)
{
	struct module *m = start_module_for("syscalls", "Latency", latency, precision, true);
	struct estimates e = { .metric = "", .instance = "" };
	struct metric_sink sink = { .ctx = &e, .counter = ignore_counter, .histogram = keep_histogram,
				    .gauge = ignore_gauge };
	double us[15];

	if (!m) {
		fprintf(stderr, "cannot start the syscalls module with Latency \"%s\"\n", latency);
		exit(1);
	}
	module_read(m, &sink);
	for (int i = 0; i < 15; i++) {
		double t0;

		usleep(200000);
		t0 = thread_cpu_us();
		module_read(m, &sink);
		us[i] = thread_cpu_us() - t0;
	}
	printf("  Latency \"%s\" at precision %u: %.0f us CPU per read\n", latency, m->precision, median(us, 15));
	module_free(m);
}

int main(void)
{
	int cpu, other;

	if (geteuid() != 0) {
		fprintf(stderr, "hist_accuracy loads BPF programs: run it as root\n");
		return 77;
	}
	ebpf_log_set_handler(bench_quiet_log);
	choose_cpus(&cpu, &other);
	pin_to_cpu(cpu);
	sleeps();
	sizes();
	cost_per_event();
	printf("\nread cost, whole system (median of 15 reads 200 ms apart)\n");
	read_cost("fsync", 0);
	read_cost("fsync", -1);
	read_cost("all", 0);
	read_cost("all", -1);
	return 0;
}
