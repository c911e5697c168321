/* Clocks, order statistics and system state for the benches. */
#ifndef EBPF_BENCH_MEASURE_H
#define EBPF_BENCH_MEASURE_H

#include <stdint.h>

/* CLOCK_MONOTONIC, for wall time. */
uint64_t now_ns(void);
/* CPU time of the calling thread only (user + system), excludes sleeps and children. */
uint64_t thread_cpu_ns(void);

/* Of n > 0 values; v is left as it is. */
double median(const double *v, int n);
double min_of(const double *v, int n);
double max_of(const double *v, int n);
double mean_of(const double *v, int n);

/* Moves the calling thread to one CPU, for steadier timings. */
void pin_to_cpu(int cpu);

/* VmRSS of this process in KiB, -1 if /proc says nothing. */
long vmrss_kib(void);

/* BPF links that may sit on the given tracepoints (NULL-terminated names): tp_btf and
 * raw_tp programs on them, and any classic tracepoint program (their links do not say
 * where). Called when this process holds none, it counts someone else's probes, whose
 * cost would land in every configuration. */
int foreign_tracepoint_links(const char *const *names);
/* The same for sys_enter and sys_exit. */
int foreign_syscall_links(void);

/* The first CPU this process may run on, and another one (the same if there is none). */
void choose_cpus(int *cpu, int *other_cpu);

/* Wall nanoseconds per call of n getppid() syscalls in a tight loop. */
double syscall_loop_ns(long n);

#endif
