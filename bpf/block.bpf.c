// SPDX-License-Identifier: GPL-2.0
/* block module: per disk and operation, completed IOs, bytes, latency from issue to
 * completion, request sizes, and (QueueTime) time from insert to issue.
 *
 * Tracepoints block_rq_issue, block_rq_complete and block_rq_insert, each as tp_btf,
 * raw_tp and classic tracepoint; user space loads one flavour (libcore/probe.c).
 *
 * The issue time: when the queue collects blk-stat statistics (QUEUE_FLAG_STATS: wbt,
 * iolatency, ... are on), the kernel itself stamps rq->io_start_time_ns right after
 * block_rq_issue and marks the request RQF_STATS; then completion reads it with CO-RE
 * and no map is touched at issue. Otherwise the issue time goes into `inflight`, a hash
 * keyed by request, sized for the queue depth, with what does not fit counted.
 *
 * Signatures and flag numbers come from the running kernel's BTF, read by user space
 * (libcore/btf_facts.c) into rodata before load: block_rq_issue and block_rq_insert lost
 * their request_queue argument in 5.11 (a54895fa057c), and QUEUE_FLAG_STATS / __RQF_STATS
 * are enumerators only in recent kernels. Branches on rodata constants are pruned by
 * the verifier, so the argument a kernel does not have is never read.
 *
 * By "cgroup" (cgroup_key.bpf.h): at insert and issue the request's cgroup goes into
 * `cgroup_inflight` (keyed as `inflight`), and its completion adds IOs, bytes and latency
 * into the (cgroup, operation) rows, the disks summed. The insert programs are attached
 * with QueueTime or By "cgroup", and keep an insert time only with QueueTime. The host-wide
 * maps and stats are the same with it on or off: the per-cgroup path only adds to its own.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include "include/hist_row.bpf.h"
#include "include/start_time.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "block.h"
#include "include/cgroup_key.bpf.h"
#include "include/cgroup_hist.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load, from the kernel's BTF. */
const volatile __u8 issue_rq_arg = 0;     /* position of the request in block_rq_issue's args */
const volatile __u8 insert_rq_arg = 0;    /* same for block_rq_insert */
const volatile __s8 queue_flag_stats = -1; /* bit QUEUE_FLAG_STATS of queue_flags, -1 unknown */
const volatile __u32 rqf_stats = 0;        /* mask RQF_STATS of rq_flags, 0 unknown */
const volatile bool queue_time = false;    /* QueueTime: insert -> issue */

#define REQ_OP_MASK 0xff        /* (1 << REQ_OP_BITS) - 1, since 4.10 */
#define REQ_OP_DRV_IN 34        /* passthrough ops (DRV_IN, DRV_OUT): no io_start_time_ns */
#define EEXIST 17

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLOCK_MAX_ROWS);
	__uint(key_size, sizeof(struct block_key));
	/* Packed by user space for its precision (hist_row.h): no BTF types to disagree. */
	__uint(value_size, sizeof(struct block_row));
} disks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLOCK_MAX_INFLIGHT);
	__type(key, struct block_rq_key);
	__type(value, struct block_start);
} inflight SEC(".maps");

/* QueueTime: insert times, the shared start-time store (a full hash is counted). */
START_HASH_MAP(queued, struct block_rq_key, BLOCK_MAX_INFLIGHT);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLOCK_STAT_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* By "cgroup": rows per (cgroup, operation), sized by user space; the cgroup of each
 * request from its insert or issue to its completion (a full hash is counted in cgroup_full, that
 * request then counts host-wide only). All created only with By "cgroup". */
CGROUP_COUNTS_MAP(cgroup_counts, struct block_cgroup_counts);
CGROUP_HIST_MAP(cgroup_latency);
CGROUP_AUX_MAPS(struct hist_row);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLOCK_MAX_INFLIGHT);
	__type(key, struct block_rq_key);
	__type(value, struct row_whose); /* a row key's first 16 bytes: the cgroup, or the command */
} cgroup_inflight SEC(".maps");

/* A new row of `disks` starts from this (zero) value. */
static const struct block_row empty_row;

/* Histogram k (enum block_hist) of a `disks` row, packed for hist_precision. */
static __always_inline struct hist_row *block_hist(struct block_row *r, __u32 k)
{
	return (void *)r + HIST_PACKED_ROW_OFFSET(__builtin_offsetof(struct block_row, latency), k, hist_precision);
}

/* One completion as both tracepoint flavours see it. */
struct completion {
	__u32 dev;
	__u32 op;
	__u64 bytes;   /* completed by this call */
	bool final;    /* the request is done (not a partial completion) */
	__u64 start;   /* issue time, 0 if unknown */
	__u64 size;    /* request size at issue */
};

static __always_inline void count_stat(__u32 which)
{
	add_to_row(&stats, which, 1);
}

static __always_inline struct block_row *row_of(__u32 dev, __u32 op)
{
	struct block_key k = { .dev = dev, .op = op };
	struct block_row *r = bpf_map_lookup_elem(&disks, &k);
	int err; /* not a long: keep_cgroup() says why */

	if (r)
		return r;
	err = bpf_map_update_elem(&disks, &k, &empty_row, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		count_stat(BLOCK_STAT_ROWS_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&disks, &k);
}

static __always_inline __u32 op_of_flags(__u32 cmd_flags)
{
	switch (cmd_flags & REQ_OP_MASK) {
	case 0: return BLOCK_OP_READ;
	case 1: return BLOCK_OP_WRITE;
	case 2: return BLOCK_OP_FLUSH;
	case 3: /* discard */
	case 5: /* secure erase */
		return BLOCK_OP_DISCARD;
	default: return BLOCK_OP_OTHER;
	}
}

/* The classic tracepoints spell the op as blk_fill_rwbs() does: an optional 'F'
 * (REQ_PREFLUSH), then the op letter, then flags. */
static __always_inline __u32 op_of_rwbs(char c0, char c1)
{
	if (c0 == 'F' && (c1 == 'W' || c1 == 'R' || c1 == 'D' || c1 == 'N' || c1 == 'F'))
		c0 = c1;
	switch (c0) {
	case 'R': return BLOCK_OP_READ;
	case 'W': return BLOCK_OP_WRITE;
	case 'D': return BLOCK_OP_DISCARD;
	case 'F': return BLOCK_OP_FLUSH;
	default: return BLOCK_OP_OTHER;
	}
}

/* dev_t of the request's disk, as the block tracepoints report it. */
static __always_inline __u32 rq_dev(struct request *rq)
{
	struct request___rq_disk *old = (void *)rq;
	struct gendisk *disk;

	if (bpf_core_field_exists(old->rq_disk))
		disk = BPF_CORE_READ(old, rq_disk);
	else
		disk = BPF_CORE_READ(rq, q, disk);
	if (!disk)
		return 0;
	return ((__u32)BPF_CORE_READ(disk, major) << 20) | (__u32)BPF_CORE_READ(disk, first_minor);
}

/* True when the kernel will stamp io_start_time_ns itself after this tracepoint
 * (blk_mq_start_request: QUEUE_FLAG_STATS set and not a passthrough request). */
static __always_inline bool kernel_stamps_issue(struct request *rq, __u32 cmd_flags)
{
	__u64 flags;

	if (queue_flag_stats < 0 || (cmd_flags & REQ_OP_MASK) >= REQ_OP_DRV_IN)
		return false;
	flags = BPF_CORE_READ(rq, q, queue_flags);
	return (flags >> queue_flag_stats) & 1;
}

/* ---- By "cgroup" -------------------------------------------------------------------- */

/* The cgroup the block layer charges a request to: its first bio's blkcg (the io
 * controller's cgroup of the submitter; for page-cache writeback, of the pages' owner).
 * Kernels without CONFIG_BLK_CGROUP have no bi_blkg. */
struct cgroup_subsys_state___blk {
	struct cgroup___cgk *cgroup;
};

struct blkcg___blk {
	struct cgroup_subsys_state___blk css;
};

struct blkcg_gq___blk {
	struct blkcg___blk *blkcg;
};

struct bio___blk {
	struct blkcg_gq___blk *bi_blkg;
};

struct request___blk {
	struct bio___blk *bio;
};

struct task_struct___blk {
	unsigned int flags;
};

struct cgroup___blk {
	void *root; /* the hierarchy */
};

#define PF_KTHREAD 0x00200000

static __always_inline bool current_is_kthread(void)
{
	struct task_struct___blk *t = (void *)bpf_get_current_task();

	return BPF_CORE_READ(t, flags) & PF_KTHREAD;
}

/* Whether cg is in the cgroup2 hierarchy, as the current task's cgroup2 cgroup is. Not when
 * cgroup v1's blkio is mounted (hybrid systems): the io controller's cgroups are then v1's,
 * whose ids name nothing in cgroup2. */
static __always_inline bool in_cgroup2(const struct cgroup___cgk *cg)
{
	const struct task_struct___cgk *t = (void *)bpf_get_current_task();
	const struct cgroup___blk *dfl = (void *)BPF_CORE_READ(t, cgroups, dfl_cgrp);

	return dfl && BPF_CORE_READ((const struct cgroup___blk *)cg, root) == BPF_CORE_READ(dfl, root);
}

/* whose (a row key: the cgroup, or with By "command" the command) for the request of key
 * until it completes; with BPF_NOEXIST only if none is kept. Cgroup 0 (outside the
 * selection, cgroup_select) with BPF_ANY: the request is no selected cgroup's, whatever was
 * kept before. */
static __always_inline void keep_whose(struct block_rq_key *key, const struct cgroup_row_key *k, __u64 flags)
{
	/* An int: 5.10 hands the helper's error back zero-extended (-EEXIST as 4294967279). */
	int err;

	if (!by_command && !k->cgroup) {
		if (flags == BPF_ANY)
			bpf_map_delete_elem(&cgroup_inflight, key);
		return;
	}
	err = bpf_map_update_elem(&cgroup_inflight, key, k, flags); /* its first 16 bytes */
	if (err && err != -EEXIST)
		add_to_row(&cgroup_full, 0, 1);
}

/* The current task's cgroup for a request it inserts (at_insert) or issues. The submitter
 * inserts a request, or issues it at once without a scheduler queue; a request dispatched
 * later from a queue is issued by whichever task runs the queue (kblockd, another
 * submitter), so an issue never replaces the cgroup left at insert, and neither does a
 * kernel thread's insert (a requeue from kblockd): a kernel thread's own cgroup says nothing
 * of whose IO it is. */
static __always_inline void cgroup_by_task(struct block_rq_key *key, bool at_insert)
{
	struct cgroup_row_key whose;

	row_key_current(&whose, 0);
	keep_whose(key, &whose, at_insert && !current_is_kthread() ? BPF_ANY : BPF_NOEXIST);
}

static __always_inline void keep_cgroup(struct block_rq_key *key, __u64 cgroup, __u64 flags)
{
	struct cgroup_row_key whose;

	__builtin_memset(&whose, 0, sizeof(whose));
	whose.cgroup = cgroup;
	keep_whose(key, &whose, flags);
}

/* The request's cgroup at cgroup_depth, kept until it completes. The bio's blkcg where it
 * is at least that deep (the io controller is enabled down to it); else the task's
 * (cgroup_by_task): a shallower blkcg is only an ancestor of the submitter. But a kernel
 * thread that moves a request nobody left a cgroup for (writeback) takes the shallower
 * blkcg (the pages' owner's ancestor): the best there is. */
static __always_inline void cgroup_of_request(struct block_rq_key *key, struct request *rq, bool at_insert)
{
	struct request___blk *r = (void *)rq;
	struct bio___blk *bio;
	struct cgroup___cgk *cg = NULL;

	/* By "command": the task's (a kworker's for writeback: the kernel knows no command of
	 * the pages' owner, only its cgroup, By "cgroup"'s). */
	if (!by_command && bpf_core_field_exists(((struct bio___blk *)0)->bi_blkg)) {
		bio = BPF_CORE_READ(r, bio);
		if (bio)
			cg = BPF_CORE_READ(bio, bi_blkg, blkcg, css.cgroup);
	}
	if (cg && in_cgroup2(cg) && BPF_CORE_READ(cg, level) >= (int)cgroup_depth)
		keep_cgroup(key, cgroup_at_depth(cg), BPF_ANY);
	else if (cg && in_cgroup2(cg) && current_is_kthread())
		keep_cgroup(key, cgroup_at_depth(cg), BPF_NOEXIST);
	else
		cgroup_by_task(key, at_insert);
}

/* At completion: bytes into the request's (cgroup, op) row; when it is done, its IO and
 * latency too, and the cgroup is forgotten. A request issued before the programs were
 * attached has no cgroup: it counts host-wide only, as it has no latency there. */
static __always_inline void cgroup_account(struct block_rq_key *key, const struct completion *c)
{
	struct cgroup_row_key k;
	struct block_cgroup_counts *counts;
	struct row_whose *whose = bpf_map_lookup_elem(&cgroup_inflight, key);
	struct hist_row *h;
	void *zero;
	__u64 now;

	if (!whose)
		return;
	__builtin_memcpy(&k, whose, sizeof(*whose));
	k.row = c->op;
	k.pad = 0;
	if (c->final)
		bpf_map_delete_elem(&cgroup_inflight, key);
	zero = cgroup_zero_row();
	if (!zero)
		return;
	counts = cgroup_row(&cgroup_counts, &k, zero, &cgroup_full);
	if (counts) {
		counter_add(&counts->bytes, c->bytes);
		if (c->final)
			counter_add(&counts->ios, 1);
	}
	if (!c->final)
		return;
	now = bpf_ktime_get_ns();
	if (c->start && c->start <= now && (h = cgroup_row(&cgroup_latency, &k, zero, &cgroup_full)))
		cgroup_hist_record(h, now - c->start);
}

/* ---- workers ------------------------------------------------------------------------ */

static __always_inline void on_insert(struct block_rq_key *key)
{
	start_hash_put(&queued, key, bpf_ktime_get_ns(), &stats, BLOCK_STAT_QUEUED_FULL);
}

/* At issue: the queue time ends, and the issue time is kept unless the kernel keeps it. */
static __always_inline void on_issue(struct block_rq_key *key, __u32 dev, __u32 op, __u64 bytes,
				     bool kernel_stamps)
{
	struct block_start st = { .ns = bpf_ktime_get_ns(), .bytes = bytes };
	struct block_row *r;
	__u64 queued_at;

	if (queue_time) {
		queued_at = start_hash_take(&queued, key);
		if (queued_at) {
			r = row_of(dev, op);
			if (r)
				hist_record(block_hist(r, BLOCK_HIST_QUEUE), st.ns - queued_at);
		}
	}
	if (kernel_stamps)
		return;
	if (bpf_map_update_elem(&inflight, key, &st, BPF_ANY))
		count_stat(BLOCK_STAT_INFLIGHT_FULL);
}

/* Moves the issue time kept in `inflight` into c, if there is one. */
static __always_inline void take_start(struct block_rq_key *key, struct completion *c)
{
	struct block_start *st = bpf_map_lookup_elem(&inflight, key);

	if (!st)
		return;
	c->start = st->ns;
	c->size = st->bytes;
	bpf_map_delete_elem(&inflight, key);
	count_stat(BLOCK_STAT_START_HASH);
}

static __always_inline void account(const struct completion *c)
{
	struct block_row *r = row_of(c->dev, c->op);
	__u64 now;

	if (!r)
		return;
	counter_add(&r->bytes, c->bytes);
	if (!c->final)
		return;
	counter_add(&r->ios, 1);
	/* Sizes are of data moved: a flush, and the empty write that asks for one (REQ_PREFLUSH
	 * without data, which /proc/diskstats counts as a write), move none. */
	if (c->size)
		hist_record(block_hist(r, BLOCK_HIST_SIZE), c->size);
	now = bpf_ktime_get_ns();
	if (c->start && c->start <= now)
		hist_record(block_hist(r, BLOCK_HIST_LATENCY), now - c->start);
	else
		count_stat(BLOCK_STAT_NO_START);
}

/* tp_btf and raw_tp: the request itself. */
static __always_inline void on_issue_rq(struct request *rq)
{
	struct block_rq_key key = { .id = (__u64)rq };
	__u32 cmd;

	if (!rq)
		return;
	cmd = BPF_CORE_READ(rq, cmd_flags);
	on_issue(&key, rq_dev(rq), op_of_flags(cmd), BPF_CORE_READ(rq, __data_len), kernel_stamps_issue(rq, cmd));
	if (by_cgroup)
		cgroup_of_request(&key, rq, false);
}

static __always_inline void on_insert_rq(struct request *rq)
{
	struct block_rq_key key = { .id = (__u64)rq };

	if (!rq)
		return;
	if (queue_time)
		on_insert(&key);
	if (by_cgroup)
		cgroup_of_request(&key, rq, true);
}

static __always_inline void on_complete_rq(struct request *rq, __u32 nr_bytes)
{
	struct block_rq_key key = { .id = (__u64)rq };
	struct completion c = { .bytes = nr_bytes };
	__u32 remaining;

	if (!rq)
		return;
	remaining = BPF_CORE_READ(rq, __data_len);
	c.dev = rq_dev(rq);
	c.op = op_of_flags(BPF_CORE_READ(rq, cmd_flags));
	c.final = nr_bytes >= remaining; /* the tracepoint fires before __data_len shrinks */
	c.size = remaining;
	if (c.final) {
		__u64 ts = 0;

		if (rqf_stats && (BPF_CORE_READ(rq, rq_flags) & rqf_stats))
			ts = BPF_CORE_READ(rq, io_start_time_ns);
		if (ts) {
			c.start = ts;
			c.size = (__u64)BPF_CORE_READ(rq, stats_sectors) << 9;
			count_stat(BLOCK_STAT_START_REQUEST);
		} else {
			take_start(&key, &c);
		}
	}
	account(&c);
	if (by_cgroup)
		cgroup_account(&key, &c);
}

/* Before 5.11 block_rq_issue/insert were (q, rq), since then (rq). */
static __always_inline struct request *issue_arg(__u64 *ctx)
{
	if (issue_rq_arg == 1)
		return (struct request *)ctx[1];
	return (struct request *)ctx[0];
}

static __always_inline struct request *insert_arg(__u64 *ctx)
{
	if (insert_rq_arg == 1)
		return (struct request *)ctx[1];
	return (struct request *)ctx[0];
}

/* ---- entry points: tp_btf ----------------------------------------------------------- */

SEC("tp_btf/block_rq_insert")
int blk_insert_btf(__u64 *ctx)
{
	on_insert_rq(insert_arg(ctx));
	return 0;
}

SEC("tp_btf/block_rq_issue")
int blk_issue_btf(__u64 *ctx)
{
	on_issue_rq(issue_arg(ctx));
	return 0;
}

SEC("tp_btf/block_rq_complete")
int blk_complete_btf(__u64 *ctx)
{
	on_complete_rq((struct request *)ctx[0], (__u32)ctx[2]);
	return 0;
}

/* The same, for the QueueTime candidate: a program belongs to one probe point. */
SEC("tp_btf/block_rq_issue")
int blk_issue_btf_q(__u64 *ctx)
{
	on_issue_rq(issue_arg(ctx));
	return 0;
}

SEC("tp_btf/block_rq_complete")
int blk_complete_btf_q(__u64 *ctx)
{
	on_complete_rq((struct request *)ctx[0], (__u32)ctx[2]);
	return 0;
}

/* ---- entry points: raw_tp ----------------------------------------------------------- */

SEC("raw_tp/block_rq_insert")
int blk_insert_raw(__u64 *ctx)
{
	on_insert_rq(insert_arg(ctx));
	return 0;
}

SEC("raw_tp/block_rq_issue")
int blk_issue_raw(__u64 *ctx)
{
	on_issue_rq(issue_arg(ctx));
	return 0;
}

SEC("raw_tp/block_rq_complete")
int blk_complete_raw(__u64 *ctx)
{
	on_complete_rq((struct request *)ctx[0], (__u32)ctx[2]);
	return 0;
}

SEC("raw_tp/block_rq_issue")
int blk_issue_raw_q(__u64 *ctx)
{
	on_issue_rq(issue_arg(ctx));
	return 0;
}

SEC("raw_tp/block_rq_complete")
int blk_complete_raw_q(__u64 *ctx)
{
	on_complete_rq((struct request *)ctx[0], (__u32)ctx[2]);
	return 0;
}

/* ---- entry points: classic tracepoints (no request pointer: disk + sector) ----------- */

SEC("tp/block/block_rq_insert")
int blk_insert_tp(struct trace_event_raw_block_rq *ctx)
{
	struct block_rq_key key = { .id = ctx->dev, .sector = ctx->sector };

	if (queue_time)
		on_insert(&key);
	if (by_cgroup)
		cgroup_by_task(&key, true);
	return 0;
}

static __always_inline void on_issue_tp(struct trace_event_raw_block_rq *ctx)
{
	struct block_rq_key key = { .id = ctx->dev, .sector = ctx->sector };

	on_issue(&key, ctx->dev, op_of_rwbs(ctx->rwbs[0], ctx->rwbs[1]), ctx->bytes, false);
	/* No request here, so no bio: the cgroup of the task that inserts or issues it. */
	if (by_cgroup)
		cgroup_by_task(&key, false);
}

/* Each completion is taken as the whole request: without the request the tracepoint
 * cannot tell a partial completion (rare: errors, some SCSI paths) from the last one. */
static __always_inline void on_complete_tp(struct completion *c, __u64 sector)
{
	struct block_rq_key key = { .id = c->dev, .sector = sector };

	c->final = true;
	c->size = c->bytes;
	take_start(&key, c);
	account(c);
	if (by_cgroup)
		cgroup_account(&key, c);
}

/* The record's fields under either of its type names (kernel_types.h); the branch for the
 * name this kernel lacks is pruned before the verifier sees it. */
static __always_inline void on_complete_record(void *ctx)
{
	struct completion c = {};

	if (bpf_core_type_exists(struct trace_event_raw_block_rq_completion)) {
		struct trace_event_raw_block_rq_completion *r = ctx;

		c.dev = r->dev;
		c.op = op_of_rwbs(r->rwbs[0], r->rwbs[1]);
		c.bytes = (__u64)r->nr_sector << 9;
		on_complete_tp(&c, r->sector);
	} else {
		struct trace_event_raw_block_rq_complete *r = ctx;

		c.dev = r->dev;
		c.op = op_of_rwbs(r->rwbs[0], r->rwbs[1]);
		c.bytes = (__u64)r->nr_sector << 9;
		on_complete_tp(&c, r->sector);
	}
}

SEC("tp/block/block_rq_issue")
int blk_issue_tp(struct trace_event_raw_block_rq *ctx)
{
	on_issue_tp(ctx);
	return 0;
}

SEC("tp/block/block_rq_complete")
int blk_complete_tp(void *ctx)
{
	on_complete_record(ctx);
	return 0;
}

SEC("tp/block/block_rq_issue")
int blk_issue_tp_q(struct trace_event_raw_block_rq *ctx)
{
	on_issue_tp(ctx);
	return 0;
}

SEC("tp/block/block_rq_complete")
int blk_complete_tp_q(void *ctx)
{
	on_complete_record(ctx);
	return 0;
}
