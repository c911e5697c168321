/* Root test: the cost governor's last step, and its way back, on the real syscalls module
 * (libcore/engine/cost_control.c). `Latency "all"` under a budget no getppid() loop can keep
 * (10 us of CPU a second), reads every 0.15 s, cost windows every 2 reads:
 *  - sample_rate doubles read by read (never skips, never goes back) to 64, then sys_enter is
 *    detached: its link is gone, the sys_exit program still counts every getppid() of this
 *    process and the histogram gains nothing; one "cost" event per step (WARNING), and one
 *    "still over" event once at the shed level;
 *  - the programs detached are attached again by the governor's own call when it steps back
 *    (probe_point_reattach_prog): latency records again. */
#define _GNU_SOURCE
#include "libcore/engine/cost_window.h"
#include "libcore/engine/events.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"
#include "bpf/syscalls.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>

static atomic_bool stop;
static int cost_events, over_events;

static void *getppid_loop(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		syscall(SYS_getppid);
	return NULL;
}

static void on_event(const struct ebpf_event *e)
{
	if (e->kind == EBPF_EVENT_MODULE_STATE && !strcmp(e->subject, "cost")) {
		cost_events++;
		over_events += strstr(e->message, "still costs") != NULL;
	}
}

struct got {
	double rate;
	uint64_t calls, lat;
};

static struct got read_once(struct module *m)
{
	struct recording r = { 0 };
	const struct hist_interval *h;
	struct got g = { 0 };

	CHECK(recording_read(&r, m) == 0);
	CHECK(recorded_gauge(&r, "sample_rate", "", &g.rate));
	g.calls = recorded_counter(&r, "calls", "getppid");
	h = recorded_histogram(&r, "latency", "getppid", HIST_UNIT_NANOSECONDS);
	g.lat = h ? h->count : 0; /* this read's */
	recording_free(&r);
	return g;
}

int main(void)
{
	struct opt_value lat = { .type = OPT_STRING, .string = "all" }, budget = { .type = OPT_STRING, .string = "0.01ms" };
	struct option lo = { .key = "Latency", .values = &lat, .nvalues = 1 };
	struct option bo = { .key = "CpuBudget", .values = &budget, .nvalues = 1 };
	struct probe_point *p;
	struct module *m;
	char err[512];
	double prev_rate = 1;
	int reads = 0, steps = 0;
	pthread_t t;
	struct got a, b;

	mt_require_root();
	ebpf_event_set_handler(on_event);
	CHECK(cost_window_configure(2, err, sizeof(err)) == 0);
	m = module_new(module_find("syscalls"), NULL);
	m->filter_tgid = getpid();
	CHECK(module_set_option(m, &lo, err, sizeof(err)) == 0);
	CHECK(module_set_option(m, &bo, err, sizeof(err)) == 0);
	if (module_start(m)) {
		printf("syscalls did not start: %s\n", m->last_error);
		return 1;
	}
	p = &m->probes.points[SYSCALLS_POINT_LATENCY];
	CHECK(pthread_create(&t, NULL, getppid_loop, NULL) == 0);
	while (p->links[0] && reads < 80) {
		struct got g;

		usleep(150000);
		g = read_once(m);
		reads++;
		if (g.rate != prev_rate) {
			steps++;
			CHECK(g.rate == prev_rate * 2); /* one doubling per step */
			printf("  read %d: 1 in %.0f\n", reads, g.rate);
		}
		prev_rate = g.rate;
	}
	CHECK(prev_rate == 64);
	CHECK(steps == 6);
	CHECK(p->links[0] == NULL); /* sys_enter detached */
	CHECK(p->links[1] != NULL); /* sys_exit runs */
	printf("  read %d: sys_enter detached (%d reads in all)\n", reads, reads);
	a = read_once(m);
	usleep(300000);
	b = read_once(m);
	printf("  shed: getppid calls +%llu, latency +%llu\n", (unsigned long long)(b.calls - a.calls),
	       (unsigned long long)b.lat);
	CHECK(b.calls > a.calls + 1000);
	CHECK(b.lat == 0);
	for (int i = 0; i < 6; i++) {
		usleep(150000);
		read_once(m);
	}
	printf("  %d cost events, %d of them 'still over'\n", cost_events, over_events);
	CHECK(cost_events == 8); /* 6 doublings, the shed, over once */
	CHECK(over_events == 1);

	/* the way back: the governor's own call attaches sys_enter again */
	CHECK(probe_point_reattach_prog(&m->probes, p, 0) == 0);
	CHECK(p->links[0] != NULL);
	read_once(m);
	usleep(200000);
	b = read_once(m);
	printf("  attached again: latency +%llu\n", (unsigned long long)b.lat);
	CHECK(b.lat > 0);
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	module_free(m);
	cost_window_stop();
	return testing_done();
}
