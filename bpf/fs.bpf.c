// SPDX-License-Identifier: GPL-2.0
/* fs module: latency distributions of read, write, open and fsync per filesystem type,
 * timed in the filesystem's own file_operations (ext4_file_read_iter, xfs_file_fsync, ...),
 * as ext4dist / xfsdist / fsdist do.
 *
 * User space picks up to FS_SLOTS filesystems and sets each program's function at run time
 * (libcore/probe.h); the programs of slot s and operation op time row s * FS_OPS + op.
 * Entry points are generated per (slot, op) and only pass their row to the two workers.
 *
 * By "cgroup" (cgroup_key.bpf.h): each sample also goes into the (cgroup, row) histogram of
 * the calling task's cgroup, read at the return. The host-wide rows are the same with it on
 * or off.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include "include/hist_row.bpf.h"
#include "include/start_time.bpf.h"
#include "include/cgroup_key.bpf.h"
#include "include/cgroup_hist.bpf.h"
#include <bpf/bpf_tracing.h>
#include "include/entry_points.bpf.h"
#include "fs.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0; /* 0: every process */

HIST_ROWS_MAP(latency, FS_ROWS);
COUNTER_ROWS_MAP(stats, FS_STAT_COUNT);

/* Start times by thread and row: a write can call fsync inside (O_SYNC). */
START_HASH_MAP(start, struct start_thread_key, 16384);

/* By "cgroup": a latency row per (cgroup, row), sized by user space and created only with
 * By "cgroup", as cgroup_zero and cgroup_full. */
CGROUP_HIST_MAP(cgroup_latency);
CGROUP_AUX_MAPS(struct hist_row);

/* The sample for the current task's cgroup (the host-wide row's slot of delta was
 * computed: its own here, once, at the per-cgroup precision). */
static __always_inline void record_by_cgroup(__u32 row, __u64 delta)
{
	struct cgroup_row_key key;
	void *zero = cgroup_zero_row();
	struct hist_row *h;

	if (!zero)
		return;
	row_key_current(&key, row);
	h = cgroup_row(&cgroup_latency, &key, zero, &cgroup_full);
	if (h)
		hist_record_at(h, cgroup_hist_slot_again(delta, zero), delta);
}

static __always_inline void on_entry(__u32 row)
{
	if (tgid_filter_passes(filter_tgid))
		start_thread_put(&start, row, &stats, FS_STAT_START_LOST);
}

static __always_inline void on_exit(__u32 row)
{
	struct hist_row *h;
	__u64 start_ns, delta;

	if (!tgid_filter_passes(filter_tgid))
		return;
	start_ns = start_thread_take(&start, row);
	if (!start_ns) /* began before we attached */
		return;
	delta = bpf_ktime_get_ns() - start_ns;
	h = bpf_map_lookup_elem(&latency, &row);
	if (h)
		hist_record(h, delta);
	if (by_cgroup)
		record_by_cgroup(row, delta);
}

/* The four programs of one (slot, op): fentry/fexit and kprobe/kretprobe (the exits read
 * no return value). */
#define FS_PROGS(slot, op, OP)                                                                \
	FENTRY_KPROBE(fs##slot##_##op##_entry, on_entry(slot * FS_OPS + OP))                  \
	SEC("fexit") int BPF_PROG(fs##slot##_##op##_exit_fexit) { on_exit(slot * FS_OPS + OP); return 0; } \
	SEC("kretprobe") int BPF_KRETPROBE(fs##slot##_##op##_exit_kretprobe) { on_exit(slot * FS_OPS + OP); return 0; }

#define FS_SLOT(slot)                                                          \
	FS_PROGS(slot, read, FS_OP_READ)                                       \
	FS_PROGS(slot, write, FS_OP_WRITE)                                     \
	FS_PROGS(slot, open, FS_OP_OPEN)                                       \
	FS_PROGS(slot, fsync, FS_OP_FSYNC)

FS_SLOT(0)
FS_SLOT(1)
FS_SLOT(2)
FS_SLOT(3)
