/* What each module costs the host, measured without the run-time statistics' tax.
 *
 * The kernel's BPF run-time statistics (run_time_ns, run_cnt per program) cost two clock
 * reads on every run of every BPF program on the host while they are on, about as much as
 * a counting program itself. So one holder for all modules (the statistics are global)
 * turns them on only for a short window on a duty cycle (CostWindow of every CostPeriod;
 * default 1 s of every 60 s: 1.7 % of the time, so the tax is under 2 % of each program's
 * own cost), and in the window reads each running module's programs' run time and runs.
 * Each program's run time is scaled by what its attach method costs the workload beyond
 * it (attach_overhead_ratio: the tracepoint's dispatch, measured by bench/cost_window).
 *
 * Between windows the cost is carried by the module's own event counts (module_ops
 * .cost_events: the counters and histograms whose totals count its events): the window
 * prices an event (its cost per second over the event rate of the reads around it), each
 * read sends that price times the events since the last read. A module without event
 * counts (a user's program) sends the last window's cost until the next window.
 *
 * Where the statistics cannot be turned on (no CAP_SYS_ADMIN, a kernel before 5.8) the
 * holder logs it once and no cost is sent; the modules run as before. CollectCost true
 * holds the statistics on all the time (self_metrics.h) and does not change this.
 */
#ifndef EBPF_CORE_COST_WINDOW_H
#define EBPF_CORE_COST_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct module;

#define COST_PERIOD_DEFAULT 60.0
#define COST_WINDOW_DEFAULT 1.0

/* CostPeriod and CostWindow in seconds, before cost_window_start(). 0, or -1 with a
 * message saying what is wrong (window not shorter than the period, out of range). */
int cost_window_configure(double period, double window, char *err, size_t errlen);
/* Starts the holder's thread: its first window opens at once, then one every period.
 * 0 or -errno (the thread could not start; the cost is then not sent). */
int cost_window_start(void);
/* Stops the thread and closes the statistics' fd if a window holds it. */
void cost_window_stop(void);

/* The engine's side (module.c): a started module joins the windows, a stopping one
 * leaves before its object closes. */
void cost_window_join(struct module *m);
void cost_window_leave(struct module *m);

/* What attach method a program of this type and expected attach type runs on costs the
 * workload per run, over its run_time_ns (the table in cost_window.c). */
double attach_overhead_ratio(uint32_t prog_type, uint32_t attach_type);

/* At each read of m (self_metrics.c): events is the module's event count (what its
 * cost_events summed to in this read; has_events false without them). Sets *ns_per_s to
 * the module's CPU cost per second (nanoseconds of CPU per second of time, attach overhead
 * included) and returns true, or false while no window has priced it yet or the
 * statistics are not available. */
bool cost_window_read(struct module *m, bool has_events, uint64_t events, double *ns_per_s);

/* The module's last cost from cost_window_read(), for a governor: false if none. */
bool cost_window_last(const struct module *m, double *ns_per_s);

/* The last window's measurement of m, raw (without the attach overhead) and with it, in
 * nanoseconds of CPU per second, and the window's runs: for tests and benches. */
struct cost_measure {
	uint64_t windows;     /* windows that measured m so far */
	double raw_ns_per_s;  /* sum of run_time_ns over the window, per second */
	double ns_per_s;      /* with each program's attach_overhead_ratio */
	uint64_t runs;
};
bool cost_window_measure(const struct module *m, struct cost_measure *out);

/* Whether a window holds the statistics now (tests check the duty cycle). */
bool cost_window_open(void);

#endif
