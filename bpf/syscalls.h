/* Map layout of the `syscalls` module, shared by syscalls.bpf.c and libcore/mod_syscalls.c.
 * Fixed-width types only. Every value is a cumulative u64 that the kernel only adds to. */
#ifndef EBPF_SYSCALLS_H
#define EBPF_SYSCALLS_H

#include <linux/types.h>

#include "include/hist_row.h"

/* Rows of the per-syscall maps, indexed by syscall number. x86_64 and arm64 both number
 * their native syscalls below 512; numbers at or above it (x32 ABI, bogus ids) are counted
 * in SYSCALL_STAT_OUT_OF_RANGE instead. */
#define MAX_SYSCALLS 512

/* Value of map `counts` (per-CPU array, MAX_SYSCALLS rows). */
struct syscall_counts {
	__u64 calls;  /* completed calls (sys_exit seen) */
	__u64 errors; /* calls that returned a negative value (-errno) */
};

/* Value of map `latency` (per-CPU array, one row per syscall with latency enabled):
 * struct hist_row of nanoseconds spent in the syscall. */

/* Index into map `stats` (per-CPU array): events the module could not account normally. */
enum syscall_stat {
	SYSCALL_STAT_OUT_OF_RANGE = 0, /* syscall number >= MAX_SYSCALLS (not -1: no syscall) */
	SYSCALL_STAT_START_LOST,       /* no room to store a start time (tid hash full) */
	SYSCALL_STAT_COUNT,
};

/* The module's probe points, in its points table's order: the row of each in map
 * `witness` (include/witness.bpf.h). One of the first two runs at a time: counters alone, or with latency. */
enum syscalls_point {
	SYSCALLS_POINT_COUNTERS,
	SYSCALLS_POINT_LATENCY, /* sys_enter and sys_exit: one row, both tracepoints' firings */
	SYSCALLS_POINT_SLOTS,   /* By "cgroup" or "command": what keeps the slot caches true */
	SYSCALLS_POINTS,
};

#endif
