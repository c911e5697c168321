/* Root test of CollectCost (libcore/engine/self_metrics.c): with the kernel's BPF run-time
 * statistics on, a module whose probe fired sends, per loaded program, its run count and
 * run time, and its cpu_time_ms; with them off it sends none of these names.
 *
 * The syscalls module (counters only, this process only) is read before and after CALLS
 * getppid() calls. Its program runs for every syscall of the machine (the process filter is
 * inside the program), so the run count must grow by at least CALLS and the run time by
 * more than 0; exact figures are the kernel's. A second module started after
 * self_metrics_cost_stop() must send no runs, run_time or cpu_time_ms at all, even where
 * another process keeps the kernel's statistics on. */
#define _GNU_SOURCE
#include "libcore/engine/self_metrics.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"
#include "base/err_max.h"

#include <sys/syscall.h>

#define CALLS 20000

struct seen {
	int runs_sent, run_time_sent, cpu_sent;
	uint64_t runs, run_time_ns, cpu_ms;
};

/* runs and run_time come once per loaded program: summed; cpu_time_ms once, for the module. */
static void note_counter(struct seen *s, const struct recorded_value *v)
{
	if (!strcmp(v->metric, "runs")) {
		s->runs_sent++;
		s->runs += v->counter;
	} else if (!strcmp(v->metric, "run_time")) {
		s->run_time_sent++;
		s->run_time_ns += v->counter;
	} else if (!strcmp(v->metric, "cpu_time_ms")) {
		CHECK_STR(v->instance, "");
		s->cpu_sent++;
		s->cpu_ms = v->counter;
	}
}

static struct seen read_module(struct module *m)
{
	struct recording r = { 0 };
	struct seen s = { 0 };

	CHECK(recording_read(&r, m) == 0);
	for (int i = 0; i < r.n; i++)
		if (r.values[i].kind == RECORDED_COUNTER)
			note_counter(&s, &r.values[i]);
	recording_free(&r);
	printf("  read: runs %llu (%d program(s)), run_time %llu ns (%d), cpu_time_ms %llu (sent %d)\n",
	       (unsigned long long)s.runs, s.runs_sent, (unsigned long long)s.run_time_ns, s.run_time_sent,
	       (unsigned long long)s.cpu_ms, s.cpu_sent);
	return s;
}

static void cost_on(void)
{
	char err[ERR_MAX] = "";
	struct module *m;
	struct seen a, b;

	CHECK(self_metrics_cost_start(err, sizeof(err)) == 0);
	if (err[0])
		printf("  %s\n", err);
	CHECK(self_metrics_cost_on());
	m = mt_started("syscalls", "auto");
	if (!m)
		return;
	a = read_module(m);
	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	b = read_module(m);
	CHECK(a.runs_sent == 1 && b.runs_sent == 1); /* one counters program is loaded */
	CHECK(b.run_time_sent == 1 && b.cpu_sent == 1);
	CHECK(b.runs >= a.runs + CALLS);
	CHECK(b.run_time_ns > a.run_time_ns);
	CHECK(b.cpu_ms == b.run_time_ns / 1000000);
	printf("  %llu runs cost %llu ns: %.0f ns per run\n", (unsigned long long)(b.runs - a.runs),
	       (unsigned long long)(b.run_time_ns - a.run_time_ns),
	       (double)(b.run_time_ns - a.run_time_ns) / (double)(b.runs - a.runs));
	module_free(m);
}

static void cost_off(void)
{
	struct module *m;
	struct seen s;

	self_metrics_cost_stop();
	CHECK(!self_metrics_cost_on());
	m = mt_started("syscalls", "auto");
	if (!m)
		return;
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	s = read_module(m);
	CHECK(s.runs_sent == 0 && s.run_time_sent == 0 && s.cpu_sent == 0);
	module_free(m);
}

int main(void)
{
	mt_require_root();
	mt_log_reset();
	printf("CollectCost true:\n");
	cost_on();
	printf("CollectCost false:\n");
	cost_off();
	return testing_done();
}
