#include "libcore/engine/cost_window.h"

#include "base/log.h"
#include "libcore/engine/module.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What an event costs the workload per run of a program, over the program's run_time_ns:
 * the attach point's own work (the tracepoint's dispatch, the BPF trampoline's entry and
 * exit), which run_time_ns leaves out. Measured by bench/cost_window (its section 1:
 * added ns per getppid() with the statistics off, over run_time_ns per run with them on,
 * the syscalls module's counters forced onto each method by AttachOrder) on the
 * development VM (2 cores, kernel 6.18), medians of 7 rounds. Methods not measured there
 * (fentry; kprobes and uprobes, absent or too slow to matter here) count their run time
 * only. */
static const struct {
	uint32_t prog_type, attach_type; /* attach_type ~0u: any */
	double ratio;
	const char *method;
} overhead[] = {
	{ BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, 1.60, "tp_btf" },
	{ BPF_PROG_TYPE_RAW_TRACEPOINT, ~0u, 1.60, "raw_tp" },
	{ BPF_PROG_TYPE_TRACEPOINT, ~0u, 1.60, "tracepoint" },
};

double attach_overhead_ratio(uint32_t prog_type, uint32_t attach_type)
{
	for (size_t i = 0; i < sizeof(overhead) / sizeof(overhead[0]); i++)
		if (overhead[i].prog_type == prog_type &&
		    (overhead[i].attach_type == ~0u || overhead[i].attach_type == attach_type))
			return overhead[i].ratio;
	return 1.0;
}

/* One module in the windows. Every field is under `lock`. */
struct module_cost {
	struct module_cost *next;
	struct module *m;
	/* the window: sums at its start */
	bool in_window;
	double start_raw, start_weighted;
	uint64_t start_runs;
	/* the last window's result */
	uint64_t windows;
	double raw_ns_per_s, ns_per_s;
	uint64_t runs;
	/* the reads */
	uint64_t windows_used;        /* windows the reads have priced events from */
	bool have_pre;                /* the last read before a window opened */
	double pre_t;
	uint64_t pre_events;
	bool have_last;               /* the last read */
	double last_t;
	uint64_t last_events;
	double ns_per_event;          /* 0: not priced (no events in the window's reads) */
	bool have_cost;
	double cost;                  /* the last read's ns per s */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct module_cost *modules;
static double period = COST_PERIOD_DEFAULT, window = COST_WINDOW_DEFAULT;
static pthread_t thread;
static bool running, stopping, window_open;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int cost_window_configure(double p, double w, char *err, size_t errlen)
{
	if (!(p >= 0.1 && p <= 86400)) {
		snprintf(err, errlen, "CostPeriod %g: give the seconds between two cost windows, from 0.1 to 86400 "
			 "(default %g)", p, COST_PERIOD_DEFAULT);
		return -1;
	}
	if (!(w >= 0.01 && w < p)) {
		snprintf(err, errlen, "CostWindow %g: give the seconds the run-time statistics stay on in each "
			 "CostPeriod (%g s), at least 0.01 and shorter than the period (default %g)", w, p,
			 COST_WINDOW_DEFAULT);
		return -1;
	}
	pthread_mutex_lock(&lock);
	period = p;
	window = w;
	pthread_mutex_unlock(&lock);
	return 0;
}

/* Sums over m's loaded programs: run time, run time times its method's ratio, runs. */
static void program_sums(const struct module *m, double *raw, double *weighted, uint64_t *runs)
{
	struct bpf_program *prog;

	*raw = *weighted = 0;
	*runs = 0;
	if (!m->probes.obj)
		return;
	bpf_object__for_each_program(prog, m->probes.obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0) /* not loaded: another candidate's program */
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		*raw += (double)info.run_time_ns;
		*weighted += (double)info.run_time_ns *
			     attach_overhead_ratio(info.type, bpf_program__expected_attach_type(prog));
		*runs += info.run_cnt;
	}
}

static bool stats_sysctl_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == '1';
}

/* Waits until `until` (monotonic seconds) or stop; with lock held. true if stopping. */
static bool wait_until(double until)
{
	while (!stopping) {
		double left = until - now_s();
		struct timespec ts;

		if (left <= 0)
			break;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)left;
		ts.tv_nsec += (long)((left - (double)(time_t)left) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&wake, &lock, &ts);
	}
	return stopping;
}

/* One window: the statistics on, every module's sums at both ends, off again. With lock
 * held; drops it while the statistics count. */
static void measure_window(bool *told)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	double t0, t1;

	if (fd < 0 && !stats_sysctl_on()) {
		if (!*told)
			ebpf_log(EBPF_LOG_NOTICE, "cost: cannot turn on the kernel's BPF run-time statistics for "
				 "the cost window (%s): no module's cpu_cost is sent, the modules run as before; "
				 "run collectd with CAP_SYS_ADMIN on a kernel of 5.8 or later", strerror(errno));
		*told = true;
		return;
	}
	window_open = true;
	t0 = now_s();
	for (struct module_cost *c = modules; c; c = c->next) {
		program_sums(c->m, &c->start_raw, &c->start_weighted, &c->start_runs);
		c->in_window = true;
	}
	wait_until(t0 + window);
	t1 = now_s();
	for (struct module_cost *c = modules; c; c = c->next) {
		double raw, weighted;
		uint64_t runs;

		if (!c->in_window)
			continue;
		c->in_window = false;
		program_sums(c->m, &raw, &weighted, &runs);
		if (raw < c->start_raw || runs < c->start_runs) /* reloaded: no measure */
			continue;
		c->raw_ns_per_s = (raw - c->start_raw) / (t1 - t0);
		c->ns_per_s = (weighted - c->start_weighted) / (t1 - t0);
		c->runs = runs - c->start_runs;
		c->windows++;
	}
	if (fd >= 0)
		close(fd);
	window_open = false;
}

static void *holder(void *arg)
{
	bool told = false;
	double next = now_s();

	(void)arg;
	pthread_mutex_lock(&lock);
	while (!wait_until(next)) {
		next += period;
		measure_window(&told);
		if (next < now_s()) /* a late wakeup: the next period starts now */
			next = now_s() + period - window;
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int cost_window_start(void)
{
	int e;

	pthread_mutex_lock(&lock);
	if (running) {
		pthread_mutex_unlock(&lock);
		return 0;
	}
	stopping = false;
	e = pthread_create(&thread, NULL, holder, NULL);
	running = !e;
	pthread_mutex_unlock(&lock);
	if (e)
		ebpf_log(EBPF_LOG_WARNING, "cost: cannot start the cost window's thread (%s): no module's cpu_cost "
			 "is sent", strerror(e));
	return -e;
}

void cost_window_stop(void)
{
	pthread_mutex_lock(&lock);
	if (!running) {
		pthread_mutex_unlock(&lock);
		return;
	}
	stopping = true;
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	pthread_mutex_lock(&lock);
	running = false;
	pthread_mutex_unlock(&lock);
}

void cost_window_join(struct module *m)
{
	struct module_cost *c = calloc(1, sizeof(*c));

	if (!c)
		return; /* no cost sent for this module */
	c->m = m;
	pthread_mutex_lock(&lock);
	c->next = modules;
	modules = c;
	pthread_mutex_unlock(&lock);
}

void cost_window_leave(struct module *m)
{
	pthread_mutex_lock(&lock);
	for (struct module_cost **p = &modules; *p; p = &(*p)->next) {
		if ((*p)->m == m) {
			struct module_cost *c = *p;

			*p = c->next;
			free(c);
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

static struct module_cost *find(const struct module *m)
{
	for (struct module_cost *c = modules; c; c = c->next)
		if (c->m == m)
			return c;
	return NULL;
}

/* A new window: the price of an event, from the event rate of the reads around it (the
 * last read before it opened to this one), taken as the rate while it measured. */
static void price_events(struct module_cost *c, double t, uint64_t events)
{
	c->windows_used = c->windows;
	if (c->have_pre && events > c->pre_events && t > c->pre_t)
		c->ns_per_event = c->ns_per_s / ((double)(events - c->pre_events) / (t - c->pre_t));
	else
		c->ns_per_event = 0;
}

bool cost_window_read(struct module *m, bool has_events, uint64_t events, double *ns_per_s)
{
	double t = now_s();
	struct module_cost *c;
	bool priced;

	pthread_mutex_lock(&lock);
	c = find(m);
	if (!c) {
		pthread_mutex_unlock(&lock);
		return false;
	}
	if (c->have_last && events < c->last_events) /* counts went back: start over */
		c->have_pre = c->have_last = false, c->ns_per_event = 0;
	if (c->windows != c->windows_used)
		price_events(c, t, has_events ? events : 0);
	priced = has_events && c->ns_per_event > 0 && c->have_last && t > c->last_t;
	c->have_cost = c->windows > 0;
	if (priced)
		c->cost = c->ns_per_event * (double)(events - c->last_events) / (t - c->last_t);
	else /* no events to carry it by: the last window's own figure */
		c->cost = c->ns_per_s;
	if (!window_open) {
		c->have_pre = true;
		c->pre_t = t;
		c->pre_events = events;
	}
	c->have_last = true;
	c->last_t = t;
	c->last_events = events;
	*ns_per_s = c->cost;
	priced = c->have_cost;
	pthread_mutex_unlock(&lock);
	return priced;
}

bool cost_window_last(const struct module *m, double *ns_per_s)
{
	struct module_cost *c;
	bool have;

	pthread_mutex_lock(&lock);
	c = find(m);
	have = c && c->have_cost;
	if (have)
		*ns_per_s = c->cost;
	pthread_mutex_unlock(&lock);
	return have;
}

bool cost_window_measure(const struct module *m, struct cost_measure *out)
{
	struct module_cost *c;
	bool have;

	pthread_mutex_lock(&lock);
	c = find(m);
	have = c && c->windows;
	if (have)
		*out = (struct cost_measure){ .windows = c->windows, .raw_ns_per_s = c->raw_ns_per_s,
					      .ns_per_s = c->ns_per_s, .runs = c->runs };
	pthread_mutex_unlock(&lock);
	return have;
}

bool cost_window_open(void)
{
	bool open;

	pthread_mutex_lock(&lock);
	open = window_open;
	pthread_mutex_unlock(&lock);
	return open;
}
