#include "libcore/engine/cost_window.h"

#include "base/log.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/prog_stats.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What an event costs the workload per hit of an attach point beyond the run_time_ns of the
 * programs run there: the attach point's own work (the tracepoint's dispatch, the BPF
 * trampoline), less the statistics' clock reads that run_time_ns counts. A cost per hit,
 * charged once however many of a module's programs run at the point: vfs's syscall fallback
 * (four programs on sys_enter, four on sys_exit) showed about 0 ns per run beyond run_time_ns
 * where one program alone on sys_exit showed 52, and charging each run sent it 1.39x the
 * bench once its calls priced its cost. Measured on the development VM (2 cores, kernel 6.18),
 * medians of three runs, as added ns per event with the statistics off less run_time_ns per
 * event with them on, per hit:
 *  - on the syscall tracepoints (bench/cost_window, a getppid() loop): the syscalls module's
 *    counters program alone on sys_exit 52 ns on tp_btf, 58 on raw_tp, 110 on the classic
 *    tracepoint; its Latency "all" pair (one program on sys_enter, one on sys_exit, tp_btf)
 *    only 8 ns per hit; vfs's eight (bench/cost_modules) 33 ns per hit; a user's program on
 *    the classic sys_enter_getppid (bench/cost_modules, through <Program> and ExporterConfig)
 *    110 and 109. Any program there sends every syscall of the host through the kernel's
 *    syscall slow path (its tracepoint work), which run_time_ns leaves out: these points cost
 *    more per hit than the others.
 *  - elsewhere, tp_btf (bench/cost_modules): runqueue 21 ns (one program a point), tcp 20
 *    and signals 23 (two a point: the module's and its witness); block's figure is lost in
 *    its loop device's noise.
 * Added per hit, not as a ratio of run_time_ns, which grows with the programs' work while
 * the dispatch does not (the ratio was 1.84x for the counters program, 1.06x for the pair).
 * tp_btf on the syscall points takes 40 ns, between the shapes, so that all land within
 * 25 % of the bench (counters 0.90x, Latency "all" 1.16x, vfs 0.95x); elsewhere 20 ns.
 * raw_tp takes its counters figure scaled as tp_btf's (x 40/52); the classic tracepoint its
 * measured 110 ns. raw_tp and the classic tracepoint away from the syscall points were not
 * measured and take the same figures.
 * fentry/fexit and kprobes cannot be measured on this project's machine (it refuses fentry
 * and has no kprobes): their figures are estimates from Debian's 6.1 and 6.12 under qemu's
 * TCG (`make bench-cost-vm`, medians of three runs each), where tp_btf's signals point took
 * about 6x its native 23 ns per hit; divided by that factor, fentry took 12 ns per hit
 * (dcache) and 23 (pagecache), a kprobe 58 and 66. They take 20 and 60, until a host
 * with hardware virtualization or these methods in its kernel measures them.
 * uprobes are measured here (bench/cost_modules, section uprobes: contrib/programs'
 * gai_latency, a uprobe and a uretprobe on getaddrinfo()): 569 to 623 ns a hit beyond
 * run_time_ns over six runs (the trap into the kernel and back), 600 for uprobe, uretprobe
 * and usdt alike (the pair's sum was measured, not each). */
static const struct {
	uint32_t prog_type, attach_type; /* attach_type ~0u: any */
	int syscall_point;               /* 1: on a syscall tracepoint, 0: elsewhere, -1: either */
	double ns;
} overhead[] = {
	{ BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, 1, 40 }, /* tp_btf */
	{ BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, 0, 20 },
	{ BPF_PROG_TYPE_RAW_TRACEPOINT, ~0u, -1, 45 },      /* raw_tp */
	{ BPF_PROG_TYPE_TRACEPOINT, ~0u, -1, 110 },         /* tracepoint */
	{ BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, -1, 20 }, /* estimates (above) */
	{ BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, -1, 20 },
	{ BPF_PROG_TYPE_KPROBE, ~0u, -1, 60 },               /* kprobe, kretprobe; not uprobes */
};
#define UPROBE_NS 600.0 /* a hit of a uprobe, uretprobe or usdt point (above) */

/* The program attaches to a syscall tracepoint: its section names it ("tp_btf/sys_exit",
 * "raw_tp/sys_enter", "tp/raw_syscalls/sys_enter", "tracepoint/syscalls/sys_enter_sync"). */
static bool on_syscall_point(const char *sec)
{
	const char *t = sec ? strchr(sec, '/') : NULL;

	if (!t++)
		return false;
	return !strncmp(t, "sys_enter", 9) || !strncmp(t, "sys_exit", 8) || !strncmp(t, "raw_syscalls/", 13) ||
	       !strncmp(t, "syscalls/", 9);
}

/* A probe on user-space code: uprobe, uretprobe (and their .multi), usdt; of type KPROBE too. */
static bool on_user_point(const char *sec)
{
	return sec && (!strncmp(sec, "uprobe", 6) || !strncmp(sec, "uretprobe", 9) || !strncmp(sec, "usdt", 4));
}

double attach_overhead_ns(uint32_t prog_type, uint32_t attach_type, const char *section)
{
	bool syscall_point = on_syscall_point(section);

	if (on_user_point(section))
		return prog_type == BPF_PROG_TYPE_KPROBE ? UPROBE_NS : 0;
	for (size_t i = 0; i < sizeof(overhead) / sizeof(overhead[0]); i++)
		if (overhead[i].prog_type == prog_type &&
		    (overhead[i].attach_type == ~0u || overhead[i].attach_type == attach_type) &&
		    (overhead[i].syscall_point < 0 || overhead[i].syscall_point == syscall_point))
			return overhead[i].ns;
	return 0;
}


struct sums {
	double raw, weighted; /* run time, and with the attach overhead of each hit of a point */
	uint64_t runs, hits;
};

/* One module. Every field is under `lock`. */
struct module_cost {
	struct module_cost *next;
	struct module *m;
	/* its part of the open window */
	bool measuring;
	uint64_t round;               /* the last round it joined */
	double start_t;
	struct sums start;
	uint64_t start_events;
	/* the last window's result */
	struct cost_measure last;
	double ns_per_event;          /* 0: not priced (no window with events yet) */
	/* the reads */
	bool have_last;
	double last_t;
	uint64_t last_events;
	bool have_cost;
	double cost;
	/* the last read's interval, and that of the read before the last renewal */
	uint64_t interval_events, renewed_events;
	double interval_dt, renewed_dt;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct module_cost *modules;
static double period = COST_PERIOD_DEFAULT;
static bool period_set; /* CostPeriod given: kept as it is */
/* The round: the statistics held from open_round() until the last module measured. */
static int stats_fd = -1;
static bool round_open, unavailable;
static uint64_t round_id;
static double round_t, next_round_t, last_period;
static int measuring;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int cost_window_configure(double p, char *err, size_t errlen)
{
	if (!(p >= 2 && p <= 100000)) {
		snprintf(err, errlen, "CostPeriod %g: give how many read intervals make one period, from 2 to 100000; "
			 "the run-time statistics are on for one of them (left out: %d, up to %d while the "
			 "modules' runs are cheap)", p, COST_PERIOD_DEFAULT, COST_PERIOD_STRETCH_MAX * COST_PERIOD_DEFAULT);
		return -1;
	}
	pthread_mutex_lock(&lock);
	period = p;
	period_set = true;
	pthread_mutex_unlock(&lock);
	return 0;
}

double cost_period_default_for(double ns_per_run)
{
	double p = ns_per_run > 0 ? COST_STATS_TAX_NS / (COST_DUTY_TAX_MAX * ns_per_run) : 0;

	if (p < COST_PERIOD_DEFAULT)
		return COST_PERIOD_DEFAULT;
	return p > COST_PERIOD_STRETCH_MAX * COST_PERIOD_DEFAULT ? COST_PERIOD_STRETCH_MAX * COST_PERIOD_DEFAULT : p;
}

/* The period of the next round: CostPeriod as given, or by default as long as the cheapest
 * run of the modules' last windows needs to keep its duty cycle's tax within 2 % (the
 * statistics are on for every module at once). */
static double next_period(void)
{
	double p = period;

	if (period_set)
		return p;
	for (struct module_cost *c = modules; c; c = c->next)
		if (c->last.windows && c->last.runs) {
			double q = cost_period_default_for(c->last.ns_per_s * c->last.seconds / (double)c->last.runs);

			p = q > p ? q : p;
		}
	return p;
}

/* An attach point: the method (the section's prefix) and the last part of its target
 * ("tp_btf/sys_enter" -> tp_btf, sys_enter), so that the programs on one point share it. */
struct point {
	const char *sec;
	size_t method_len;
	const char *target;
	double ns;      /* the method's overhead per hit */
	uint64_t hits;  /* the most runs of a program on it: every program there runs once a hit */
};

#define MAX_POINTS 64

static bool same_point(const struct point *p, const char *sec, size_t method_len, const char *target)
{
	return p->method_len == method_len && !strncmp(p->sec, sec, method_len) && !strcmp(p->target, target);
}

/* Each program's point; a section that names none ("tp_btf" alone, the target set by the
 * loader) or a point beyond the table counts as a point of its own. */
static void add_point(struct point *points, int *n, const struct bpf_program *prog, double ns, uint64_t runs,
		      double *own, uint64_t *own_hits)
{
	const char *sec = bpf_program__section_name(prog), *slash = sec ? strchr(sec, '/') : NULL;
	const char *target = slash ? strrchr(sec, '/') + 1 : NULL;
	size_t method_len = slash ? (size_t)(slash - sec) : 0;

	if (!target || !*target) {
		*own += (double)runs * ns;
		*own_hits += runs;
		return;
	}
	for (int i = 0; i < *n; i++)
		if (same_point(&points[i], sec, method_len, target)) {
			points[i].hits = runs > points[i].hits ? runs : points[i].hits;
			return;
		}
	if (*n == MAX_POINTS) {
		*own += (double)runs * ns;
		*own_hits += runs;
		return;
	}
	points[(*n)++] = (struct point){ sec, method_len, target, ns, runs };
}

/* The run time of m's programs and their runs, and with the attach overhead: once per hit of
 * each point, however many of m's programs run there (vfs's syscall fallback runs four on
 * sys_enter and four on sys_exit: two hits a syscall, not eight). */
static struct sums program_sums(const struct module *m)
{
	struct sums s = { 0 };
	struct point points[MAX_POINTS];
	struct bpf_program *prog;
	double overhead = 0;
	int n = 0;

	if (!m->probes.obj)
		return s;
	bpf_object__for_each_program(prog, m->probes.obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0) /* not loaded: another candidate's program */
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		s.raw += (double)info.run_time_ns;
		s.runs += info.run_cnt;
		if (info.run_cnt)
			add_point(points, &n, prog,
				  attach_overhead_ns(info.type, bpf_program__expected_attach_type(prog),
						     bpf_program__section_name(prog)),
				  info.run_cnt, &overhead, &s.hits);
	}
	for (int i = 0; i < n; i++) {
		overhead += (double)points[i].hits * points[i].ns;
		s.hits += points[i].hits;
	}
	s.weighted = s.raw + overhead;
	return s;
}

static void open_round(double t)
{
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0 && !bpf_stats_sysctl_on()) {
		ebpf_log(EBPF_LOG_NOTICE, "cost: cannot turn on the kernel's BPF run-time statistics (%s): no "
			 "module's cpu_cost is sent, the modules run as before; run collectd with CAP_SYS_ADMIN "
			 "on a kernel of 5.8 or later", strerror(errno));
		unavailable = true;
		return;
	}
	round_open = true;
	round_id++;
	round_t = t;
}

/* The last module measured, or the round ran out of time: the statistics off again, the next
 * round CostPeriod windows' length after this one opened. */
static void close_round(double t)
{
	if (stats_fd >= 0)
		close(stats_fd);
	stats_fd = -1;
	round_open = false;
	last_period = next_period();
	next_round_t = round_t + last_period * (t - round_t);
	for (struct module_cost *c = modules; c; c = c->next)
		c->measuring = false;
	measuring = 0;
}

void cost_window_stop(void)
{
	pthread_mutex_lock(&lock);
	if (round_open)
		close_round(now_s());
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
		struct module_cost *c = *p;

		if (c->m != m)
			continue;
		*p = c->next;
		if (c->measuring && !--measuring)
			close_round(now_s());
		free(c);
		break;
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

/* The end of c's window, at this read: its cost over the window, and the price of one of its
 * events. Counts that went back (the module reloaded) measure nothing. */
static void finish(struct module_cost *c, double t, bool has_events, uint64_t events)
{
	struct sums s = program_sums(c->m);
	double dt = t - c->start_t;

	c->measuring = false;
	if (dt > 0 && s.raw >= c->start.raw && s.runs >= c->start.runs && (!has_events || events >= c->start_events)) {
		c->last = (struct cost_measure){ .windows = c->last.windows + 1, .seconds = dt,
						 .raw_ns_per_s = (s.raw - c->start.raw) / dt,
						 .ns_per_s = (s.weighted - c->start.weighted) / dt,
						 .runs = s.runs - c->start.runs,
						 .hits = s.hits >= c->start.hits ? s.hits - c->start.hits : 0,
						 .events = has_events ? events - c->start_events : 0 };
		if (c->last.events) /* a window without events keeps the last price */
			c->ns_per_event = (s.weighted - c->start.weighted) / (double)c->last.events;
	}
	if (!--measuring) /* after the result: the next period follows from it */
		close_round(t);
}

bool cost_window_read(struct module *m, bool has_events, uint64_t events, double *ns_per_s)
{
	double t = now_s();
	struct module_cost *c;
	bool have;

	pthread_mutex_lock(&lock);
	c = find(m);
	if (!c) {
		pthread_mutex_unlock(&lock);
		return false;
	}
	if (c->measuring && c->round == round_id)
		finish(c, t, has_events, events);
	/* a round no module closes (reads stopped): given up after three of its opener's intervals */
	if (round_open && c->have_last && t - round_t > 3 * (t - c->last_t) + 1)
		close_round(t);
	if (!round_open && !unavailable && t >= next_round_t)
		open_round(t);
	if (round_open && c->round != round_id) {
		c->round = round_id;
		c->measuring = true;
		measuring++;
		c->start_t = t;
		c->start = program_sums(m);
		c->start_events = events;
	}
	if (c->have_last && events < c->last_events) /* counts went back: the price is void */
		c->ns_per_event = 0;
	c->have_cost = c->last.windows > 0;
	if (has_events && c->ns_per_event > 0 && c->have_last && t > c->last_t && events >= c->last_events)
		c->cost = c->ns_per_event * (double)(events - c->last_events) / (t - c->last_t);
	else /* nothing to carry it by: the last window's own figure */
		c->cost = c->last.ns_per_s;
	c->interval_events = c->have_last && events >= c->last_events ? events - c->last_events : 0;
	c->interval_dt = c->have_last ? t - c->last_t : 0;
	c->have_last = true;
	c->last_t = t;
	c->last_events = events;
	*ns_per_s = c->cost;
	have = c->have_cost;
	pthread_mutex_unlock(&lock);
	return have;
}

uint64_t cost_window_renew(struct module *m)
{
	double t = now_s();
	struct module_cost *c;
	uint64_t windows = 0;

	pthread_mutex_lock(&lock);
	c = find(m);
	if (c) {
		c->ns_per_event = 0;
		c->renewed_events = c->interval_events;
		c->renewed_dt = c->interval_dt;
		if (!round_open && !unavailable)
			open_round(t);
		if (round_open) {
			if (!(c->measuring && c->round == round_id))
				measuring++;
			c->round = round_id;
			c->measuring = true;
			c->start_t = t;
			c->start = program_sums(m);
			c->start_events = c->last_events;
		}
		windows = c->last.windows;
	}
	pthread_mutex_unlock(&lock);
	return windows;
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

bool cost_window_repriced(const struct module *m, double *ns_per_s)
{
	struct module_cost *c;
	bool have;

	pthread_mutex_lock(&lock);
	c = find(m);
	have = c && c->ns_per_event > 0 && c->renewed_dt > 0;
	if (have)
		*ns_per_s = c->ns_per_event * (double)c->renewed_events / c->renewed_dt;
	pthread_mutex_unlock(&lock);
	return have;
}

bool cost_window_measure(const struct module *m, struct cost_measure *out)
{
	struct module_cost *c;
	bool have;

	pthread_mutex_lock(&lock);
	c = find(m);
	have = c && c->last.windows;
	if (have)
		*out = c->last;
	pthread_mutex_unlock(&lock);
	return have;
}

struct cost_rounds cost_window_rounds(void)
{
	struct cost_rounds r;

	pthread_mutex_lock(&lock);
	r = (struct cost_rounds){ .open = round_open, .last_period = last_period };
	pthread_mutex_unlock(&lock);
	return r;
}
