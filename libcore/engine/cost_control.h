/* The cost governor at work on a running module: at each read, the module's cost
 * (cost_window.h) against its CpuBudget (cpu_budget.h) through the rule (cost_governor.h),
 * and each step applied (the sampling shift written to the module's `sampling` map, or its
 * most expensive programs detached or attached again, module_ops.cost_steps), sent as the
 * gauge `sample_rate` (N) and said in a module_state event with subject "cost" (collectd
 * notification, SNMP trap). doc/modules.md, Cost. */
#ifndef EBPF_CORE_COST_CONTROL_H
#define EBPF_CORE_COST_CONTROL_H

#include <stddef.h>

struct module;
struct metric_sink;

/* The budget of modules without a CpuBudget of their own (ns of CPU per second; <= 0: none).
 * libcore's own default is none; the collectd plugin sets CPU_BUDGET_DEFAULT_NS or its
 * CpuBudget. Before the modules start. */
void cost_control_default_budget(double ns_per_s);
/* The budget m runs with: its own, else the default; <= 0 none. */
double cost_control_budget(const struct module *m);

/* The engine's side (module.c): after the module started (and joined the cost windows),
 * and before it stops (what the governor detached is detached with the rest). */
void cost_control_start(struct module *m);
void cost_control_stop(struct module *m);
/* At each read, after the cost is sent (self_metrics.c). */
void cost_control_read(struct module *m, const struct metric_sink *sink);

/* Samples m's expensive part 1 in 2^shift (shift <= SAMPLE_SHIFT_MAX) by hand, as the
 * governor does (for benches): 0, or -errno (-ENOENT: m has no sampling map). */
int cost_control_sample(struct module *m, unsigned int shift);

/* What the governor may do to m, for `collectd -T`: "CpuBudget 10% of one CPU (100 ms/s):
 * samples Latency 1 in 2 to 1 in 64, then detaches sys_enter". */
const char *cost_control_describe(const struct module *m, char *buf, size_t len);

#endif
