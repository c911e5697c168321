/* What the block tests (test_block, test_block_flush) share: the checks that the kernel lets
 * them run, the loop device they create, the block module set up and started on it, one read
 * of what it sent for that disk, the disk's /proc/diskstats counts (the witness that does not
 * depend on our programs) and the O_DIRECT writes both workloads begin with. */
#ifndef EBPF_TESTS_BPF_BLOCK_TEST_SUPPORT_H
#define EBPF_TESTS_BPF_BLOCK_TEST_SUPPORT_H

#include "libcore/engine/module.h"
#include "tests/support/loop_device.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one read sent for one operation of the disk (<disk>-read, -write, -flush). */
struct block_op_seen {
	uint64_t ios, bytes;
	struct hist_interval latency, size, queue;
	bool got_latency, got_size, got_queue;
	uint64_t untraced;
	bool got_untraced;
};

struct block_seen {
	struct block_op_seen read, write, flush;
	int other_disks; /* series of disks the Disk option did not select */
	uint64_t inflight_full, issue_request, issue_hash;
	uint64_t rows_full, queued_full, no_start; /* printed: tell a lost event from a counted drop */
	uint64_t recursion; /* nested tracepoint runs the kernel skipped (see prog_misses.h) */
	int wrong_units; /* this disk's latency not in nanoseconds, or io_size not in bytes */
};

/* SKIPs the test unless it may load BPF programs and trace block events (root, BTF, tracefs
 * mounted or mountable), then attaches a loop device of mib MiB over a file in /var/tmp
 * (SKIP when it cannot). */
void block_test_setup(struct loop_device *dev, int mib);

/* Sets a string or boolean option of m; the option must be taken. */
void block_set_string(struct module *m, const char *key, const char *value);
void block_set_bool(struct module *m, const char *key, bool value);

/* The block module attached by method only and reading disk only, not started yet. */
struct module *block_test_module(const char *method, const char *disk);
/* Starts m: 0, or -1 after saying why and freeing m (a failed check). */
int block_start(struct module *m, const char *method);

/* One read of m: what it sent for disk, and its drop and issue-time counters (the last
 * value of a series wins); checks that every histogram came in its unit. */
struct block_seen block_read(struct module *m, const char *disk);

/* The disk's completed IO as /proc/diskstats counts it. */
struct block_diskstats {
	uint64_t reads, writes, flushes;
	bool has_flushes; /* the kernel has flush fields (5.5 on) */
};
/* 0, or -1 when the disk is not in /proc/diskstats. */
int block_diskstats(const char *disk, struct block_diskstats *d);

/* /dev/<disk> opened O_DIRECT, with an aligned buffer of size bytes of 0x5a; aborts when it
 * cannot (nothing after it could be checked). */
struct block_direct {
	int fd;
	void *buf;
};
struct block_direct block_direct_open(const char *disk, size_t size);
/* n writes of size bytes, one after the other from offset 0. */
void block_direct_writes(const struct block_direct *d, int n, size_t size);
void block_direct_close(struct block_direct *d);

/* got must be want exactly, or short by no more than what users are shown as lost
 * (visible: nested runs the kernel skipped, untraced); never more: the programs must not
 * invent IO. Says the figures when they differ. */
void block_check_count(const char *what, uint64_t got, uint64_t want, uint64_t visible);

#endif
