/* What the kernel knows about each loaded program of an object: how often it ran, for how
 * long, and how often it did not run.
 *
 * Runs not handed to us: tp_btf and raw_tp programs do not nest: when an interrupt fires the
 * same tracepoint while the program runs on that CPU (a block completion in an interrupt
 * during another completion, a wakeup from an interrupt during a wakeup), the kernel skips
 * the nested run and counts it in the program's recursion_misses (5.12+). Every module
 * reports the sum, so such a loss is never silent.
 *
 * Run count and run time (run_cnt, run_time_ns) only grow while the kernel's BPF run-time
 * statistics are on: bpf_enable_stats(BPF_STATS_RUN_TIME) for as long as its fd is open,
 * or sysctl kernel.bpf_stats_enabled=1. They cost two clock reads per run, so they are
 * off unless a user asks (CollectCost).
 */
#ifndef EBPF_CORE_PROG_STATS_H
#define EBPF_CORE_PROG_STATS_H

#include <stdbool.h>
#include <stdint.h>

struct bpf_object;

struct prog_stats {
	const char *name;           /* the program's name in the object */
	uint64_t runs;              /* run_cnt */
	uint64_t run_time_ns;       /* run_time_ns */
	uint64_t recursion_misses;  /* 0 where the kernel does not report it */
};

/* Calls fn for every loaded program of obj (not the other candidates' programs), in the
 * object's order. Programs the kernel cannot describe are skipped. */
void bpf_object_prog_stats(const struct bpf_object *obj, void (*fn)(void *ctx, const struct prog_stats *s),
			   void *ctx);

/* Whether sysctl kernel.bpf_stats_enabled is 1: the statistics on for the whole host,
 * whoever holds an fd. */
bool bpf_stats_sysctl_on(void);

#endif
