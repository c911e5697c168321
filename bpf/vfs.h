/* Map layout of the `vfs` module, shared by vfs.bpf.c and libcore/mod_vfs.c. Fixed-width
 * types only; every value is a cumulative u64 the kernel only adds to. */
#ifndef EBPF_VFS_H
#define EBPF_VFS_H

#include <linux/types.h>

#include "include/hist_row.h"

/* Rows of map `ops`: one per VFS operation. */
enum vfs_op {
	VFS_OP_READ = 0,  /* vfs_read;  fallback: read, pread64, readv, preadv, preadv2 */
	VFS_OP_WRITE,     /* vfs_write; fallback: write, pwrite64, writev, pwritev, pwritev2 */
	VFS_OP_FSYNC,     /* vfs_fsync_range; fallback: fsync, fdatasync */
	VFS_OP_OPEN,      /* vfs_open;  fallback: open, openat, openat2, creat */
	VFS_OPS,
};

/* Value of map `ops` (per-CPU array, VFS_OPS rows). */
struct vfs_op_stats {
	__u64 calls;                    /* completed calls */
	__u64 errors;                   /* calls that returned < 0 */
	struct hist_row latency;        /* nanoseconds from entry to return */
	struct hist_row bytes;          /* read/write: bytes returned by successful calls */
};

/* By "cgroup": map `cgroup_counts` holds a struct cgroup_call_counts per struct
 * cgroup_row_key (the calling task's cgroup at CgroupDepth; row = enum vfs_op); latency and
 * bytes (read and write only) are in `cgroup_latency` and `cgroup_bytes`, a bare hist_row
 * per key. */

/* Syscall numbers the fallback programs see; rodata `syscall_op` maps each to op + 1. */
#define VFS_SYSCALL_ROWS 512

/* Index into map `stats` (per-CPU array). */
enum vfs_stat {
	VFS_STAT_START_LOST = 0, /* no room for a start time (hash full): no latency sample */
	VFS_STAT_COUNT,
};

#endif
