/* What each module costs the host, measured without the run-time statistics' tax.
 *
 * The kernel's BPF run-time statistics (run_time_ns, run_cnt per program) cost two clock
 * reads on every run of every BPF program on the host while they are on, about as much as
 * a counting program itself. So they are held (bpf_enable_stats, one fd for all modules:
 * the statistics are global) only for a window of one read interval in every CostPeriod
 * intervals (default 60, 1.7 % of the time, lengthened up to 240 while the modules' runs are
 * cheap, so that their tax per event stays under 2 % of what the modules themselves cost:
 * cost_period_default_for). The window is bracketed by the modules' own reads: a round
 * opens at a read once CostPeriod intervals have passed, each running module measures from
 * its next read to the one after it, and the statistics are released when the last module
 * has measured. So each module's programs' run time and runs and its own event count
 * (module_ops.cost_events: the counters and histograms whose totals count its events) are
 * taken over the same span, which prices an event exactly even though the statistics slow
 * the workload down while they are on.
 *
 * A program's run time leaves out what its attach method costs around it (the tracepoint's
 * dispatch, the trampoline): each hit of an attach point adds the method's overhead in
 * nanoseconds once, however many of the module's programs run there, more on a syscall
 * tracepoint than elsewhere (attach_overhead_ns, measured by bench/cost_window and
 * bench/cost_modules). Between windows each read sends the
 * price of an event times the events since the last read; a module without event counts
 * (a user's program) sends its last window's cost per second.
 *
 * Where the statistics cannot be turned on (no CAP_SYS_ADMIN, a kernel before 5.8) it is
 * logged once and no cost is sent; the modules run as before. CollectCost true holds the
 * statistics on all the time (self_metrics.h); the windows go on the same.
 */
#ifndef EBPF_CORE_COST_WINDOW_H
#define EBPF_CORE_COST_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct module;

#define COST_PERIOD_DEFAULT 60

/* The duty cycle's tax: while the statistics are on, every run of a BPF program pays about
 * COST_STATS_TAX_NS more (the two clock reads, and the other programs its event passes
 * through; bench/cost_modules' "tax" per run, at most 276 ns, signals'). Left at its
 * default, the period is lengthened so that a module whose runs cost ns_per_run (as its last
 * window measured them, attach overhead included) pays at most COST_DUTY_TAX_MAX of that:
 * COST_STATS_TAX_NS / (COST_DUTY_TAX_MAX * ns_per_run) intervals, from COST_PERIOD_DEFAULT
 * up to COST_PERIOD_STRETCH_MAX times it (the price is renewed at least that often). 1.5 %,
 * not the 2 % aimed at: a module's measured cost may read up to 1.25x what it is (signals'
 * 1.21x), and the tax must stay within 2 % of what it is. */
#define COST_STATS_TAX_NS 280.0
#define COST_DUTY_TAX_MAX 0.015
#define COST_PERIOD_STRETCH_MAX 4
double cost_period_default_for(double ns_per_run);

/* CostPeriod: one read interval in every `period` holds the statistics (2 to 100000). 0, or
 * -1 with a message saying what is wrong. Before the modules' first reads. */
int cost_window_configure(double period, char *err, size_t errlen);
/* Releases the statistics if a window holds them (at shutdown). */
void cost_window_stop(void);

/* The engine's side (module.c): a started module joins, a stopping one leaves before its
 * object closes. */
void cost_window_join(struct module *m);
void cost_window_leave(struct module *m);

/* What the attach method of a program of this type, expected attach type and ELF section
 * adds to each hit of its attach point, in nanoseconds, beyond the run_time_ns of the
 * programs there (the table in cost_window.c): more on a syscall tracepoint (a section's
 * target sys_enter, sys_exit, raw_syscalls/..., syscalls/...) than elsewhere, most on user
 * space's code (uprobe, uretprobe, usdt: a trap each hit). A hit of a point is the most
 * runs of any of the module's programs on it. */
double attach_overhead_ns(uint32_t prog_type, uint32_t attach_type, const char *section);

/* At each read of m (self_metrics.c): events is the module's event count of this read
 * (has_events false without cost_events). Opens, joins and closes the windows. Sets
 * *ns_per_s to the module's CPU cost per second (nanoseconds of CPU per second, attach
 * overhead included) and returns true, or false while no window has measured it. */
bool cost_window_read(struct module *m, bool has_events, uint64_t events, double *ns_per_s);

/* The governor changed what m runs (cost_control.h): its price per event is void, and a
 * window measures it from now (this read) to its next read, opened now if none is open.
 * Returns the count of m's windows so far: a cost is of the new setup once
 * cost_window_measure() counts more. */
uint64_t cost_window_renew(struct module *m);

/* The module's cost of its last read, for a governor: false if none. */
bool cost_window_last(const struct module *m, double *ns_per_s);

/* The cost of the read interval before the last cost_window_renew(), priced by the window
 * that renewal opened (once it measured): what that read cost at its own load, with the
 * statistics off. False without event counts or before that window priced an event. */
bool cost_window_repriced(const struct module *m, double *ns_per_s);

/* The last window's measurement of m: for tests and benches. */
struct cost_measure {
	uint64_t windows;      /* windows that measured m so far */
	double seconds;        /* the last one's length */
	double raw_ns_per_s;   /* its run_time_ns summed over the programs, per second */
	double ns_per_s;       /* with each run's attach overhead */
	uint64_t runs, events; /* its runs, and its events (cost_events) */
	uint64_t hits;         /* its attach points' hits: each point's most runs of a program there */
};
bool cost_window_measure(const struct module *m, struct cost_measure *out);

/* The rounds' state (tests, benches): whether a window holds the statistics now, and the
 * period the last round closed with, in its window's lengths (CostPeriod as given, or by
 * default lengthened by cost_period_default_for() the cheapest run of the modules' last
 * windows; 0 before a round closed). */
struct cost_rounds {
	bool open;
	double last_period;
};
struct cost_rounds cost_window_rounds(void);

#endif
