// SPDX-License-Identifier: GPL-2.0
/* fs module: latency distributions of read, write, open and fsync per filesystem type,
 * timed in the filesystem's own file_operations (ext4_file_read_iter, xfs_file_fsync, ...),
 * as ext4dist / xfsdist / fsdist do.
 *
 * User space picks up to FS_SLOTS filesystems and sets each program's function at run time
 * (libcore/probe.h); the programs of slot s and operation op time row s * FS_OPS + op.
 * Entry points are generated per (slot, op) and only pass their row to the two workers.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include "include/hist_row.bpf.h"
#include "include/start_time.bpf.h"
#include <bpf/bpf_tracing.h>
#include "fs.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0; /* 0: every process */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FS_ROWS);
	__uint(key_size, sizeof(__u32));
	/* Sized by user space for its precision (hist_row.h): no BTF types to disagree. */
	__uint(value_size, sizeof(struct hist_row));
} latency SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FS_STAT_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Start times by thread and row: a write can call fsync inside (O_SYNC). */
START_HASH_MAP(start, struct start_thread_key, 16384);

static __always_inline bool wanted(void)
{
	return tgid_filter_passes(filter_tgid);
}

static __always_inline void on_entry(__u32 row)
{
	struct start_thread_key key = start_thread_key(row);
	__u64 ts;

	if (!wanted())
		return;
	ts = bpf_ktime_get_ns();
	start_hash_put(&start, &key, ts, &stats, FS_STAT_START_LOST);
}

static __always_inline void on_exit(__u32 row)
{
	struct start_thread_key key = start_thread_key(row);
	struct hist_row *h;
	__u64 start_ns, delta;

	if (!wanted())
		return;
	start_ns = start_hash_take(&start, &key);
	if (!start_ns) /* began before we attached */
		return;
	delta = bpf_ktime_get_ns() - start_ns;
	h = bpf_map_lookup_elem(&latency, &row);
	if (h)
		hist_record(h, delta);
}

/* The four programs of one (slot, op): fentry/fexit and kprobe/kretprobe. */
#define FS_PROGS(slot, op, OP)                                                 \
	SEC("fentry")                                                          \
	int BPF_PROG(fs##slot##_##op##_entry_fentry)                           \
	{                                                                      \
		on_entry(slot * FS_OPS + OP);                                  \
		return 0;                                                      \
	}                                                                      \
	SEC("fexit")                                                           \
	int BPF_PROG(fs##slot##_##op##_exit_fexit)                             \
	{                                                                      \
		on_exit(slot * FS_OPS + OP);                                   \
		return 0;                                                      \
	}                                                                      \
	SEC("kprobe")                                                          \
	int BPF_KPROBE(fs##slot##_##op##_entry_kprobe)                         \
	{                                                                      \
		on_entry(slot * FS_OPS + OP);                                  \
		return 0;                                                      \
	}                                                                      \
	SEC("kretprobe")                                                       \
	int BPF_KRETPROBE(fs##slot##_##op##_exit_kretprobe)                    \
	{                                                                      \
		on_exit(slot * FS_OPS + OP);                                   \
		return 0;                                                      \
	}

#define FS_SLOT(slot)                                                          \
	FS_PROGS(slot, read, FS_OP_READ)                                       \
	FS_PROGS(slot, write, FS_OP_WRITE)                                     \
	FS_PROGS(slot, open, FS_OP_OPEN)                                       \
	FS_PROGS(slot, fsync, FS_OP_FSYNC)

FS_SLOT(0)
FS_SLOT(1)
FS_SLOT(2)
FS_SLOT(3)
