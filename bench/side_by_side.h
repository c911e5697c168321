/* The rounds of a side-by-side bench: every configuration (no probe, the module in its
 * variants, bpftrace) measured in every round, in an order rotated from round to round,
 * each as the fastest of many short batches of a workload, with its added cost taken over
 * no-probe batches run just before it. Shared by syscall_cost, block_cost, runqueue_cost. */
#ifndef EBPF_BENCH_SIDE_BY_SIDE_H
#define EBPF_BENCH_SIDE_BY_SIDE_H

#include "base/options.h"
#include "base/log.h"

#include <stdbool.h>
#include <stddef.h>

#define SBS_MAX_CFG 20
#define SBS_MAX_ROUNDS 32
#define SBS_MAX_BATCHES 100

/* What attach() returns. */
enum { SBS_ATTACHED = 0, SBS_LEFT_OUT = 1, SBS_FAILED = -1 };

struct module;

struct side_by_side {
	/* Filled by the bench. Configuration 0 is "no probe": attach() is not called for it. */
	int ncfg, rounds, batches;
	const char *const *tracepoints; /* NULL-terminated: whose foreign probes to look for */
	void *ctx;
	double (*batch)(void *ctx);                   /* one batch of the workload: ns per unit */
	int (*attach)(void *ctx, int cfg, int round); /* SBS_*; SBS_LEFT_OUT: skipped from now on */
	void (*detach)(void *ctx);                    /* safe whatever attach() got to */
	/* results */
	double ns[SBS_MAX_CFG][SBS_MAX_ROUNDS];
	double added[SBS_MAX_CFG][SBS_MAX_ROUNDS]; /* over the no-probe batches run just before */
	bool left_out[SBS_MAX_CFG];
	int measurements, foreign; /* how many measurements saw someone else's probes */
};

/* Runs all rounds. 0, or -1 as soon as an attach() fails (detached again). */
int sbs_run(struct side_by_side *s);

/* One row per configuration, left-out ones skipped: ns per unit (median of the rounds,
 * min .. max), added ns (median), x no probe (ns over the no-probe row's ns), and, when
 * ref[c] >= 0, added ns over that of configuration ref[c]. */
void sbs_print_table(const struct side_by_side *s, const char *const *labels, const int *ref, const char *unit);

/* The warning to print when foreign probes were seen; nothing otherwise. */
void sbs_warn_foreign(const struct side_by_side *s, const char *where);

/* Log handler for the benches: libcore logs each start at INFO, a round-by-round bench
 * would drown its table in them; warnings and errors still go to stderr. */
void bench_quiet_log(enum ebpf_log_level level, const char *msg);

/* Which map layout a bench starts a module in (libcore/engine/map_layout.h): as this
 * machine gets it, every map per-CPU (the layout before map_layout.h), or as a machine
 * with BENCH_MANY_CPUS possible CPUs gets it (its counter tables over the rule's bytes
 * shared), so that all three are timed side by side in one run. */
enum bench_layout { LAYOUT_HERE, LAYOUT_BEFORE, LAYOUT_MANY_CPUS };
#define BENCH_MANY_CPUS 256

/* What a bench of the run-time statistics does first: stdout line-buffered, the log quiet
 * (bench_quiet_log, libbpf's too); 0, or 1 with a message when not root (the statistics need
 * CAP_SYS_ADMIN). */
int bench_stats_setup(const char *bench);

/* m (made, not started: NULL is a failure too) started in LAYOUT_HERE, the cost windows
 * set to CostPeriod `period` (cost_window.h): 0, or -1 with a message and m freed. */
int bench_start_cost_windows(struct module *m, const char *name, double period);

/* module_set_option(m, key, v) with one value; -1 with the error printed. */
int bench_set_option(struct module *m, const char *key, struct opt_value v);

/* module_start(m) in that layout; its result. */
int bench_start_in_layout(struct module *m, enum bench_layout layout);

/* "counts per-CPU, latency shared": how the started module's array maps are laid out. */
void module_layout(const struct module *m, char *buf, size_t len);

/* "tp_btf+task_storage, raw_tp": how the module's enabled probe points attached. */
void module_methods(const struct module *m, char *buf, size_t len);

#endif
