/* What a running `syscalls` module costs off the syscall path: sections 2 (CPU per read)
 * and 4 (memory) of bench/syscall_cost. */
#ifndef EBPF_BENCH_MODULE_COSTS_H
#define EBPF_BENCH_MODULE_COSTS_H

#include <stdbool.h>

struct module;

/* The module as production runs it: filter_tgid 0, every process counted. NULL on error. */
/* The syscalls module, counters only or with Latency "all", at `precision` (-1: the default
 * the module chooses). Not started. */
struct module *new_syscalls(bool latency_all, int precision);

/* Starts a latency-all module, reads it `reads` times while a child process does
 * syscalls on workload_cpu, and prints section 2. 0, or -1 (with a message on stderr). */
int read_cost(int reads, int workload_cpu);

struct rss {
	long before, after; /* VmRSS in KiB around module_start() */
	bool started;
};

/* Section 4: syscalls started with counters only or Latency "all", with or without By
 * "cgroup" (rss_of_start(i & 1, i & 2) for case i). */
#define RSS_CASES 4
struct rss rss_of_start(bool latency_all, bool by_cgroup);
void print_rss(const struct rss rss[RSS_CASES]);

#endif
