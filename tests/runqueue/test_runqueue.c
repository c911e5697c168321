/* Root test: loads the real runqueue programs with every attach method (the programs
 * count only this process's threads). More spinning threads than CPUs for two seconds
 * must give waits above 100 us and 1 ms and a total wait of at least half the
 * (threads - CPUs) x seconds the scheduler cannot avoid; threads that sleep and wake for
 * as long must wait far less in total. With
 * PerCPU, the per-CPU series add up to the total. The witnesses (witness.h) run only with
 * `Witness true`: then the point sends "untraced", and with the module's sched_wakeup
 * program detached the sleeping threads' wakeups are in it. Sampled 1 in 4 (the cost
 * governor's sampling, cost_control.h), the sleeping threads' waits per sleep, scaled, are
 * within 15% of the unsampled run's. */
#include "base/log.h"
#include "libcore/engine/cost_control.h"
#include "libcore/engine/module.h"
#include "tests/support/attach_methods.h"
#include "tests/support/bpf_requirements.h"
#include "tests/support/detach_program.h"
#include "tests/support/start_on_method.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <math.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define RUN_SECONDS 2
#define WAIT_100US 100000.0
#define WAIT_1MS 1000000.0

struct seen {
	struct hist_interval all;
	bool got_all;
	uint64_t per_cpu_count;
	int per_cpu_series;
	uint64_t start_lost;
	int untraced_points; /* points that sent "untraced" (only with Witness true) */
	uint64_t untraced;
};

static struct seen read_module(struct module *m)
{
	struct recording r = { 0 };
	struct seen s = { 0 };
	const struct hist_interval *all;

	CHECK(recording_read(&r, m) == 0);
	s.start_lost = recorded_counter(&r, "dropped", "start_lost");
	s.untraced_points = recorded_count(&r, RECORDED_COUNTER, "untraced", NULL);
	s.untraced = recorded_counter(&r, "untraced", NULL);
	all = recorded_histogram(&r, "latency", "all", HIST_UNIT_NANOSECONDS);
	if (all) {
		s.all = *all;
		s.got_all = true;
	}
	for (int i = 0; i < r.n; i++) {
		const struct recorded_value *v = &r.values[i];

		if (v->kind != RECORDED_HISTOGRAM)
			continue;
		CHECK(!strcmp(v->metric, "latency") && v->unit == HIST_UNIT_NANOSECONDS);
		if (!strncmp(v->instance, "cpu", 3)) {
			s.per_cpu_count += v->hist->count;
			s.per_cpu_series++;
		}
	}
	recording_free(&r);
	return s;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	double end = now_s() + RUN_SECONDS;
	volatile unsigned long n = 0;

	while (now_s() < end)
		n++;
	return arg;
}

static uint64_t sleeps_done; /* sleep_wake's sleeps, all threads */

static void *sleep_wake(void *arg)
{
	double end = now_s() + RUN_SECONDS;

	while (now_s() < end) {
		usleep(2000);
		__atomic_add_fetch(&sleeps_done, 1, __ATOMIC_RELAXED);
	}
	return arg;
}

static void run_threads(void *(*fn)(void *), int n)
{
	pthread_t t[64];

	for (int i = 0; i < n; i++)
		CHECK(pthread_create(&t[i], NULL, fn, NULL) == 0);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

static void set_option(struct module *m, const char *key, struct opt_value v)
{
	char err[ERR_MAX] = "";
	struct option o = { .key = key, .values = &v, .nvalues = 1 };

	CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
}

/* The sleeping threads again, their waits sampled 1 in 4 where they begin and weighted 4
 * where they end: as many waits per sleep as unsampled (idle: the run before, `sleeps` its
 * sleeps), within 15% (at ~2,000 waits, 1 in 4 has a standard error of 4%). */
static void run_sampled(struct module *m, const struct seen *idle, uint64_t sleeps)
{
	double per_sleep, per_sleep_sampled;
	struct seen s;

	CHECK(cost_control_sample(m, 2) == 0);
	(void)read_module(m); /* the waits that ended before N was 4 (weight 1) go with this read */
	sleeps_done = 0;
	run_threads(sleep_wake, 2);
	s = read_module(m);
	CHECK(cost_control_sample(m, 0) == 0);
	per_sleep = sleeps ? (double)idle->all.count / (double)sleeps : 0;
	per_sleep_sampled = sleeps_done ? (double)s.all.count / (double)sleeps_done : 0;
	printf("  sampled 1 in 4: %llu waits (scaled) for %llu sleeps, %.3f per sleep; unsampled %.3f\n",
	       (unsigned long long)s.all.count, (unsigned long long)sleeps_done, per_sleep_sampled, per_sleep);
	CHECK(per_sleep > 0 && fabs(per_sleep_sampled / per_sleep - 1) <= 0.15);
	CHECK(s.all.count % 4 == 0);
}

static void run_method(const char *method)
{
	struct module *m = module_new(module_find("runqueue"), NULL);
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nspin = ncpus * 3 > 64 ? 64 : ncpus * 3;
	double busy_long, busy_1ms, idle_long, idle_1ms;
	struct seen busy, idle;
	char used[64];

	m->filter_tgid = getpid();
	set_option(m, "AttachOrder", (struct opt_value){ .type = OPT_STRING, .string = method });
	set_option(m, "PerCPU", (struct opt_value){ .type = OPT_BOOLEAN, .boolean = true });
	if (!start_or_fail(m, method))
		return;
	probe_point_method(&m->probes.points[0], used, sizeof(used));
	printf("%-10s attached via %s\n", method, used);
	CHECK(!strncmp(used, method, strlen(method)));
	read_module(m);

	run_threads(spin, nspin);
	busy = read_module(m);
	sleeps_done = 0;
	run_threads(sleep_wake, 2);
	idle = read_module(m);
	if (strcmp(method, "tracepoint"))
		run_sampled(m, &idle, sleeps_done);

	busy_long = busy.got_all ? hist_count_between(&busy.all, WAIT_100US, INFINITY) : 0;
	busy_1ms = busy.got_all ? hist_count_between(&busy.all, WAIT_1MS, INFINITY) : 0;
	idle_long = idle.got_all ? hist_count_between(&idle.all, WAIT_100US, INFINITY) : 0;
	idle_1ms = idle.got_all ? hist_count_between(&idle.all, WAIT_1MS, INFINITY) : 0;
	printf("  busy (%d spinning threads on %ld CPUs): %llu waits, %.0f over 100 us, %.0f over 1 ms, "
	       "p50 %.0f us, p99 %.0f us\n",
	       nspin, ncpus, (unsigned long long)busy.all.count, busy_long, busy_1ms,
	       hist_percentile(&busy.all, 50) / 1e3, hist_percentile(&busy.all, 99) / 1e3);
	printf("  idle (2 threads sleeping 2 ms): %llu waits, %.0f over 100 us, %.0f over 1 ms, p50 %.1f us\n",
	       (unsigned long long)idle.all.count, idle_long, idle_1ms,
	       idle.got_all ? hist_percentile(&idle.all, 50) / 1e3 : 0);
	CHECK(busy.got_all);
	CHECK(busy.all.count > 0);
	CHECK(busy.all.sum > 0);
	CHECK(busy_long >= 10);
	CHECK(busy_1ms >= 10);
	/* With nspin threads on ncpus CPUs, nspin - ncpus of them wait at every instant: the
	 * waits add up to (nspin - ncpus) * RUN_SECONDS at least (more when other processes
	 * compete); half of that is a bound no scheduler misses. Counts of long waits depend
	 * on the scheduler's slices and on the machine's other load (tests run in parallel),
	 * the total time waited does not: the idle run's must be far smaller. */
	printf("  waited in total: busy %.2f s, idle %.3f s\n", busy.all.sum / 1e9, idle.all.sum / 1e9);
	CHECK(busy.all.sum >= (uint64_t)((nspin - ncpus) * RUN_SECONDS * 1e9 / 2));
	CHECK(idle.all.sum * 4 < busy.all.sum);
	CHECK_EQ_U64(busy.per_cpu_count, busy.all.count);
	CHECK(busy.per_cpu_series >= 1 && busy.per_cpu_series <= ncpus);
	CHECK_EQ_U64(busy.start_lost, 0);
	CHECK_EQ_U64(busy.untraced_points, 0); /* the witnesses are opt-in here */
	if (strcmp(method, "tracepoint")) {
		/* Wakeups are attributed to this process (not with classic tracepoints and a
		 * process filter, see runqueue.bpf.c): ~1000 per thread per run. */
		CHECK(idle.got_all);
		CHECK(idle.all.count >= 500);
		CHECK_EQ_U64(idle.per_cpu_count, idle.all.count);
	}
	module_free(m);
}

/* `Witness true` (tp_btf, raw_tp) with the module's sched_wakeup program detached, as a
 * kernel that skipped it would leave it: each of the sleeping threads' sleeps ends in a
 * wakeup that the witness counts and the program does not. The witness sees the whole
 * machine, so other wakeups only add. A sleep's end can find the thread not yet off its
 * CPU (no wakeup then), hence half of the sleeps as the floor. */
static void run_witness(const char *method)
{
	struct module *m = module_new(module_find("runqueue"), NULL);
	struct seen a, b;

	m->filter_tgid = getpid();
	set_option(m, "AttachOrder", (struct opt_value){ .type = OPT_STRING, .string = method });
	set_option(m, "Witness", (struct opt_value){ .type = OPT_BOOLEAN, .boolean = true });
	if (!start_or_fail(m, method))
		return;
	a = read_module(m);
	/* a variant that shares the witnesses with another got them loaded too */
	CHECK(!strstr(m->probes.points[0].failures, "witness"));
	CHECK_EQ_U64(a.untraced_points, 1);
	detach_module_program(m, "sched_wakeup+sched_wakeup_new+sched_switch");
	sleeps_done = 0;
	run_threads(sleep_wake, 2);
	b = read_module(m);
	printf("%-10s Witness true, sched_wakeup's program detached: %llu sleeps, untraced %llu\n", method,
	       (unsigned long long)sleeps_done, (unsigned long long)(b.untraced - a.untraced));
	CHECK_EQ_U64(b.untraced_points, 1);
	CHECK(sleeps_done >= 100);
	CHECK(b.untraced - a.untraced >= sleeps_done / 2);
	module_free(m);
}

int main(int argc, char **argv)
{
	struct method_list methods;
	require_bpf_tracing("/sys/kernel/tracing/events/sched");

	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n; i++) {
		run_method(methods.names[i]);
		if (strcmp(methods.names[i], "tracepoint")) /* the classic method has no witness */
			run_witness(methods.names[i]);
	}
	return testing_done();
}
