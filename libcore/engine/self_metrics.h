/* Self-metrics: what every module reports about itself, written once for all modules.
 *
 * Read through the module's loaded BPF object (m->probes.obj: its maps and programs), so
 * no module has code of its own for them. module_read() calls self_metrics_read() once,
 * after the module's values. Per module (names as the metric_sink sees them):
 *
 *   counter "dropped"   "recursion"        runs the kernel skipped (prog_stats.h), always sent
 *   gauge   "attach"    "<point>-<method>" candidates that failed before the attached one
 *   gauge   "map_fill"  "<map>"            entries / max_entries in percent, per map that
 *                                          can fill (hash maps; map_entries.h)
 *   counter "untraced"  "<point>"          firings of a witnessed point that its program did
 *                                          not run for (witness.h), always sent for those
 *   gauge   "cpu_cost"  ""                 the CPU the module costs the host, in percent of
 *                                          one CPU (cost_window.h), once a window priced it
 * and with CollectCost on (self_metrics_cost_start), per loaded program and per module:
 *   counter "runs"        "<program>"      times the program ran
 *   counter "run_time"    "<program>"      nanoseconds it ran
 *   counter "cpu_time_ms" ""               the module's programs' run time in milliseconds:
 *                                          its rate is the CPU the module costs per second
 * The modules' own drop counters (counter "dropped", instance what was lost) are sent by
 * the modules; README (Self-metrics) lists them all.
 */
#ifndef EBPF_CORE_SELF_METRICS_H
#define EBPF_CORE_SELF_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "libcore/engine/module.h"

/* CollectCost: turns the kernel's BPF run-time statistics on for as long as this process
 * runs (until self_metrics_cost_stop) and makes every module send its cost. Where this
 * process may not turn them on but sysctl kernel.bpf_stats_enabled is already 1, the cost
 * is sent all the same. 0, or -1 with a message saying why and how to fix it (the cost is
 * then not sent). */
int self_metrics_cost_start(char *err, size_t errlen);
/* Closes the statistics' fd (the kernel turns them off when no one else holds one). */
void self_metrics_cost_stop(void);
bool self_metrics_cost_on(void);

/* Once the module's maps are created: what the kernel charges for them (kernel_memory). */
void self_metrics_start(struct module *m);
/* Sends m's self-metrics into sink; those read from the object only while it is loaded.
 * cpu_cost carries the cost by the read's event count (m->sinks.events). */
void self_metrics_read(struct module *m, const struct metric_sink *sink);

#endif
