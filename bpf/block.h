/* Map layout of the `block` module, shared by block.bpf.c and libcore/mod_block.c.
 * Fixed-width types only. Every value is a cumulative u64 that the kernel only adds to. */
#ifndef EBPF_BLOCK_H
#define EBPF_BLOCK_H

#include <linux/types.h>

#include "include/hist_row.h"

/* Rows of map `disks` (disk x operation): an open key set, so a hash with a cap; a row
 * that does not fit is counted in BLOCK_STAT_ROWS_FULL. User space sizes it for the
 * machine's disks at start, up to 1024 rows: 200 disks with all five operations. */
#define BLOCK_MAX_ROWS 1024
/* Requests in flight whose start time the kernel does not keep for us (map `inflight`),
 * and requests waiting in a scheduler queue (map `queued`, with QueueTime): sized for the
 * queue depth of many busy disks; what does not fit is counted, never silently lost. */
#define BLOCK_MAX_INFLIGHT 10240

/* Operation, from the request's cmd_flags & REQ_OP_MASK (or the tracepoint's rwbs). */
enum block_op {
	BLOCK_OP_READ = 0,
	BLOCK_OP_WRITE,
	BLOCK_OP_DISCARD,  /* discard and secure erase */
	BLOCK_OP_FLUSH,
	BLOCK_OP_OTHER,    /* write zeroes, zone management, driver passthrough */
	BLOCK_OP_COUNT,
};

/* Key of map `disks`. dev is the kernel's dev_t of the whole disk: major << 20 | minor. */
struct block_key {
	__u32 dev;
	__u32 op;
};

/* Value of map `disks`, at full size; the map holds it packed for the module's precision
 * (HIST_PACKED_ROW_OFFSET in hist_row.h): rows BLOCK_HIST_* from `latency` on. */
enum block_hist { BLOCK_HIST_LATENCY, BLOCK_HIST_SIZE, BLOCK_HIST_QUEUE, BLOCK_HISTS };
struct block_row {
	__u64 ios;                 /* completed requests */
	__u64 bytes;               /* bytes completed */
	struct hist_row latency; /* ns from issue (to the device) to completion */
	struct hist_row size;    /* bytes of each request, as issued */
	struct hist_row queue;   /* ns from insert (into the scheduler) to issue; QueueTime */
};

/* Key of maps `inflight` and `queued`: the request's address, or with the classic
 * tracepoints (which carry no pointer) the disk and the first sector. */
struct block_rq_key {
	__u64 id;
	__u64 sector;
};

struct block_start {
	__u64 ns;
	__u64 bytes; /* request size at issue */
};

/* By "cgroup": value of map `cgroup_counts`, keyed by struct cgroup_row_key (the cgroup
 * that issued the request, at CgroupDepth; row = enum block_op), the disks summed. Its
 * latency is in `cgroup_latency`, a bare hist_row per key. */
struct block_cgroup_counts {
	__u64 ios;   /* completed requests */
	__u64 bytes; /* bytes completed */
};

/* Index into map `stats` (per-CPU array). */
enum block_stat {
	BLOCK_STAT_ROWS_FULL = 0,    /* a disk x op row did not fit in `disks`: IO not counted */
	BLOCK_STAT_INFLIGHT_FULL,    /* no room in `inflight`: that request has no latency */
	BLOCK_STAT_QUEUED_FULL,      /* no room in `queued`: that request has no queue time */
	BLOCK_STAT_NO_START,         /* completed without a known issue time (issued before we attached) */
	BLOCK_STAT_START_REQUEST,    /* issue time read from the request (io_start_time_ns) */
	BLOCK_STAT_START_HASH,       /* issue time from map `inflight` */
	BLOCK_STAT_COUNT,
};

#endif
