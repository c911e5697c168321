/* CpuBudget: how much CPU a module may cost the host (doc/modules.md, Cost), in the units
 * operators think in: a share of one CPU ("0.5%", as top counts: 100% is one CPU busy) or
 * milliseconds of CPU per second ("5ms"); "off" for none. Kept as nanoseconds of CPU per
 * second, what cost_window.h measures. */
#ifndef EBPF_CORE_CPU_BUDGET_H
#define EBPF_CORE_CPU_BUDGET_H

#include <stddef.h>

struct option;

/* The collectd plugin's default for every module: 10% of one CPU (100 ms/s). */
#define CPU_BUDGET_DEFAULT_NS 1e8
/* "off": the cost is only sent. */
#define CPU_BUDGET_OFF (-1.0)

/* One string value: *ns_per_s set and 0, or -1 with a message naming the option, the value
 * and the accepted forms. */
int cpu_budget_parse(const struct option *o, double *ns_per_s, char *err, size_t errlen);
/* "10% of one CPU (100 ms/s)" or "off". */
const char *cpu_budget_text(double ns_per_s, char *buf, size_t len);

#endif
