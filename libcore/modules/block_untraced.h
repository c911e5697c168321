/* IOs the kernel accounted for a disk that the block programs never saw: per request-based
 * disk and operation, /proc/diskstats' completions since the module started minus the traced
 * ones. Zero when nothing is lost; anything else is a loss users can see, graph and alert on
 * (`derive-untraced-<disk>-<op>`), whatever its cause (a nested run the kernel skipped, a
 * program the kernel did not call, a completion path without the tracepoint).
 *
 * Order makes it sound: diskstats is read before the maps, and the kernel accounts an IO
 * after its block_rq_complete tracepoint, so every IO diskstats shows has already passed
 * the programs. IOs in flight when the module started may be traced but not in the
 * baseline: they can hide as many losses, never invent one. Flushes are left out: the
 * flush machinery completes requests that diskstats counts differently. */
#ifndef EBPF_CORE_BLOCK_UNTRACED_H
#define EBPF_CORE_BLOCK_UNTRACED_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/kernel/diskstats.h"

#define UNTRACED_OPS 3 /* read, write, discard: enum block_op and enum diskstats_op agree */

struct untraced_disk {
	uint32_t dev;
	char name[DISK_NAME_LEN];
	bool request_based;              /* /sys/block/<name>/mq: only those pass block_rq_* */
	bool has[UNTRACED_OPS];
	uint64_t base[UNTRACED_OPS];     /* diskstats when the module started (0: disk came later) */
	uint64_t kernel[UNTRACED_OPS];   /* diskstats now */
	uint64_t traced[UNTRACED_OPS];   /* the programs' count, this read */
	uint64_t reported[UNTRACED_OPS]; /* the largest shortfall seen: a DERIVE never goes back */
};

struct block_untraced {
	struct untraced_disk *v;
	int n, cap;
	bool started;
	const char *diskstats; /* NULL: /proc/diskstats (tests point it elsewhere) */
	const char *sysfs;     /* NULL: /sys */
};

/* Takes the baseline; call once the programs are attached. 0 or -errno. */
int block_untraced_start(struct block_untraced *u);
/* Reads diskstats; call before reading the maps. 0 or -errno. */
int block_untraced_read_kernel(struct block_untraced *u);
/* The traced completions of one map row (op < UNTRACED_OPS, else ignored). */
void block_untraced_set_traced(struct block_untraced *u, uint32_t dev, unsigned int op, uint64_t ios);
/* For every request-based disk with kernel IO since start: fn(disk, op, shortfall). */
void block_untraced_each(struct block_untraced *u,
			 void (*fn)(void *ctx, const char *disk, unsigned int op, uint64_t untraced), void *ctx);
void block_untraced_free(struct block_untraced *u);

#endif
