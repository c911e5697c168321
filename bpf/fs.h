/* Map layout of the `fs` module, shared by fs.bpf.c and libcore/mod_fs.c. Fixed-width
 * types only; cumulative u64 values the kernel only adds to. */
#ifndef EBPF_FS_H
#define EBPF_FS_H

#include <linux/types.h>

#include "include/hist_row.h"

/* Filesystems measured at once: each has its own programs (slot 0..FS_SLOTS-1), so that
 * a program knows which filesystem and operation it times without reading any struct. */
#define FS_SLOTS 4

enum fs_op {
	FS_OP_READ = 0, /* <fs>_file_read_iter */
	FS_OP_WRITE,    /* <fs>_file_write_iter */
	FS_OP_OPEN,     /* <fs>_file_open */
	FS_OP_FSYNC,    /* <fs>_sync_file / <fs>_file_fsync */
	FS_OPS,
};

/* Rows of map `latency`: slot * FS_OPS + op. */
#define FS_ROWS (FS_SLOTS * FS_OPS)

/* Value of map `latency` (per-CPU array, FS_ROWS rows): struct hist_row of nanoseconds
 * from entry to return. */

/* Index into map `stats`. */
enum fs_stat {
	FS_STAT_START_LOST = 0, /* no room for a start time: no sample */
	FS_STAT_COUNT,
};

#endif
