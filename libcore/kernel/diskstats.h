/* What the kernel itself accounted per disk (/proc/diskstats): completed reads, writes,
 * discards and flushes. The block module compares its traced counts with these, so that an
 * IO the programs never saw shows as a value instead of vanishing (README, block). */
#ifndef EBPF_CORE_DISKSTATS_H
#define EBPF_CORE_DISKSTATS_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/decode/disk_names.h"

/* The operations /proc/diskstats counts, in the order of enum block_op's first four. */
enum diskstats_op { DISKSTATS_READ, DISKSTATS_WRITE, DISKSTATS_DISCARD, DISKSTATS_FLUSH, DISKSTATS_OPS };

struct diskstats_disk {
	uint32_t dev;                     /* kernel dev_t: major << 20 | minor */
	char name[DISK_NAME_LEN];
	uint64_t completed[DISKSTATS_OPS];
	bool has[DISKSTATS_OPS];          /* discards since 4.18, flushes since 5.5 */
};

/* Parses one line of /proc/diskstats: 0, or -1 if it is not one. */
int diskstats_parse_line(const char *line, struct diskstats_disk *out);

/* Calls fn for every line of `path` (NULL: /proc/diskstats). 0, or -errno. */
int diskstats_each(const char *path, void (*fn)(void *ctx, const struct diskstats_disk *d), void *ctx);

#endif
