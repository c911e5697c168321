#define _GNU_SOURCE /* sched_setaffinity */
#include "module_costs.h"

#include "libcore/engine/module.h"
#include "measure.h"
#include "base/err_max.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct module *new_syscalls(bool latency_all, int precision)
{
	struct module *m = module_new(module_find("syscalls"), NULL);
	struct opt_value all = { .type = OPT_STRING, .string = "all" };
	struct opt_value p = { .type = OPT_NUMBER, .number = precision };
	struct option o = { .key = "Latency", .values = &all, .nvalues = 1 };
	struct option po = { .key = "Precision", .values = &p, .nvalues = 1 };
	char err[ERR_MAX];

	if (!m)
		return NULL;
	if ((latency_all && module_set_option(m, &o, err, sizeof(err))) ||
	    (precision >= 0 && module_set_option(m, &po, err, sizeof(err)))) {
		fprintf(stderr, "Latency all: %s\n", err);
		module_free(m);
		return NULL;
	}
	return m;
}

/* ---- 2. CPU per read ----------------------------------------------------------------------- */

struct series_count {
	long counters, histograms;
};

/* The sink does nothing but count: what is measured is the module's own work. */
static void count_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	const char *metric = id->name;
	(void)metric;
	(void)instance;
	(void)value;
	((struct series_count *)ctx)->counters++;
}

static void count_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			    const struct hist_interval *h)
{
	const char *metric = id->name;
	(void)metric;
	(void)instance;
	(void)unit;
	(void)h;
	((struct series_count *)ctx)->histograms++;
}

/* A mix of syscalls on another CPU, so that many rows of every map have data each read. */
static pid_t start_workload(int cpu)
{
	pid_t pid = fork();
	char buf[64];
	int zero, null;

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pin_to_cpu(cpu);
	zero = open("/dev/zero", O_RDONLY);
	null = open("/dev/null", O_WRONLY);
	for (;;) {
		syscall(SYS_getppid);
		if (read(zero, buf, sizeof(buf)) < 0 || write(null, buf, sizeof(buf)) < 0)
			_exit(1);
		lseek(zero, 0, SEEK_SET);
		close(-1);
		sched_yield();
	}
}

static double tv_us(struct timeval a, struct timeval b)
{
	return (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_usec - a.tv_usec);
}

/* Reads m `reads` times; each read's thread CPU time lands in cpu_us. */
static int read_loop(struct module *m, int reads, double *cpu_us, struct rusage *r0, struct rusage *r1,
		     struct series_count *sc)
{
	struct metric_sink sink = { .ctx = sc, .counter = count_counter, .histogram = count_histogram };
	int err = 0;

	module_read(m, &sink); /* the first read covers everything since attach */
	getrusage(RUSAGE_SELF, r0);
	for (int i = 0; i < reads && !err; i++) {
		uint64_t t0;

		usleep(1000); /* let each interval gather data, as a real 10 s interval would */
		*sc = (struct series_count){ 0 };
		t0 = thread_cpu_ns();
		err = module_read(m, &sink);
		cpu_us[i] = (double)(thread_cpu_ns() - t0) / 1e3;
	}
	getrusage(RUSAGE_SELF, r1);
	if (err)
		fprintf(stderr, "module_read failed: %s\n", m->last_error);
	return err ? -1 : 0;
}

int read_cost(int reads, int workload_cpu)
{
	double *cpu_us = calloc((size_t)reads, sizeof(double));
	struct module *m = new_syscalls(true, -1);
	struct series_count sc = { 0 };
	struct rusage r0, r1;
	pid_t w;
	int err = -1;

	if (!cpu_us || !m)
		goto out;
	if (module_start(m)) {
		fprintf(stderr, "syscalls module (latency all) did not start: %s\n", m->last_error);
		goto out;
	}
	w = start_workload(workload_cpu);
	usleep(100000);
	err = read_loop(m, reads, cpu_us, &r0, &r1, &sc);
	if (w > 0) {
		kill(w, SIGKILL);
		waitpid(w, NULL, 0);
	}
	if (err)
		goto out;
	printf("\n2. User-space CPU per read: module_read() with latency for all syscalls, a no-op sink and\n"
	       "   a syscall workload on CPU %d; %d reads, %ld counter + %ld histogram series per read\n\n",
	       workload_cpu, reads, sc.counters, sc.histograms);
	printf("   CPU per read: median %.0f us, mean %.0f us, max %.0f us   (target <= 1000 us)\n",
	       median(cpu_us, reads), mean_of(cpu_us, reads), max_of(cpu_us, reads));
	printf("   of which user %.0f us, system %.0f us (getrusage, includes the 1 ms sleeps' syscalls)\n",
	       tv_us(r0.ru_utime, r1.ru_utime) / reads, tv_us(r0.ru_stime, r1.ru_stime) / reads);
out:
	module_free(m);
	free(cpu_us);
	return err;
}

/* ---- 4. memory ------------------------------------------------------------------------------ */

/* By "cgroup" on m (MaxSeries and CgroupDepth at their defaults); false when refused. */
static bool by_cgroup_on(struct module *m)
{
	struct opt_value cgroup = { .type = OPT_STRING, .string = "cgroup" };
	struct option o = { .key = "By", .values = &cgroup, .nvalues = 1 };
	char err[ERR_MAX];

	return module_set_option(m, &o, err, sizeof(err)) == 0;
}

/* In a fresh fork of the bench, so that each module starts from the same heap: in one
 * process glibc keeps what the first module freed and the second would look cheaper. */
struct rss rss_of_start(bool latency_all, bool by_cgroup)
{
	struct rss r = { -1, -1, false };
	int p[2];
	pid_t pid;

	if (pipe(p))
		return r;
	pid = fork();
	if (pid == 0) {
		struct module *m;

		close(p[0]);
		r.before = vmrss_kib();
		m = new_syscalls(latency_all, -1);
		r.started = m && (!by_cgroup || by_cgroup_on(m)) && module_start(m) == 0;
		r.after = vmrss_kib();
		if (write(p[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		module_free(m);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &r, sizeof(r)) != sizeof(r))
		r.started = false;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return r;
}

static void print_one(const char *label, const struct rss *r)
{
	if (r->started)
		printf("   %-26s %7ld -> %7ld  (+%ld)\n", label, r->before, r->after, r->after - r->before);
	else
		printf("   %-26s did not start\n", label);
}

void print_rss(const struct rss rss[RSS_CASES])
{
	static const char *const labels[RSS_CASES] = { "counters only:", "counters + latency:",
							"+ By \"cgroup\":", "+ latency, By \"cgroup\":" };

	printf("\n4. VmRSS of the process before and after module_start() (KiB, each in a fresh fork)\n\n");
	for (int i = 0; i < RSS_CASES; i++)
		print_one(labels[i], &rss[i]);
}
