/* The `block` module: per disk and operation, completed IOs, bytes, latency from issue to
 * completion, request sizes and, with QueueTime, the time from insert to issue
 * (biolatency, biosnoop and bitesize, continuously). */
#include "libcore/engine/module.h"

#include "block.h"
#include "block.skel.h"
#include "libcore/modules/block_untraced.h"
#include "libcore/kernel/btf_facts.h"
#include "libcore/decode/disk_names.h"
#include "libcore/engine/log.h"
#include "libcore/decode/name_filter.h"
#include "libcore/engine/percpu_read.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct probe_candidate io_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "blk_issue_btf", "blk_complete_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "blk_issue_raw", "blk_complete_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "blk_issue_tp", "blk_complete_tp" }, { NULL } },
};

/* With QueueTime, insert joins the same flavour: the key of `queued` (request or disk +
 * sector) must be the same at insert and at issue. Its issue and complete programs are
 * copies of the ones above, since a program belongs to one probe point. */
static const struct probe_candidate queue_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "blk_insert_btf", "blk_issue_btf_q", "blk_complete_btf_q" }, { "queued" } },
	{ ATTACH_RAW_TP, NULL, { "blk_insert_raw", "blk_issue_raw_q", "blk_complete_raw_q" }, { "queued" } },
	{ ATTACH_TRACEPOINT, NULL, { "blk_insert_tp", "blk_issue_tp_q", "blk_complete_tp_q" }, { "queued" } },
};

enum { POINT_IO, POINT_IO_QUEUE, NPOINTS };

static const char *const op_names[BLOCK_OP_COUNT] = { "read", "write", "discard", "flush", "other" };

/* User-space state of one row of map `disks`. */
struct row_state {
	struct block_key key;
	struct hist_tracker latency, size, queue;
};

/* What the running kernel's BTF says, for rodata. */
struct kernel_facts {
	int issue_rq_arg, insert_rq_arg;
	int queue_flag_stats; /* -1: unknown */
	uint32_t rqf_stats;   /* 0: unknown */
};

struct block {
	struct block_bpf *skel;
	/* configuration */
	struct name_filter disks_filter;
	bool queue_time;
	/* derived at start */
	unsigned int precision; /* of the histogram rows, hist_config_precision() */
	struct kernel_facts facts;
	struct probe_point points[NPOINTS];
	/* reading */
	struct percpu_reader stats_reader;
	uint64_t stats[BLOCK_STAT_COUNT];
	struct row_state *rows;
	int nrows;
	struct disk_names names;
	struct block_untraced untraced; /* what diskstats counted and the programs did not */
};

static const char *const option_names[] = { "Disk", "IgnoreSelected", "QueueTime", NULL };

static int block_create(struct module *m)
{
	struct block *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->points[POINT_IO] = (struct probe_point){
		.name = "block_rq_issue+block_rq_complete", .candidates = io_candidates, .ncandidates = 3, .chosen = -1 };
	b->points[POINT_IO_QUEUE] = (struct probe_point){ .name = "block_rq_insert+block_rq_issue+block_rq_complete",
							   .candidates = queue_candidates,
							   .ncandidates = 3,
							   .chosen = -1 };
	m->priv = b;
	m->probes.points = b->points;
	m->probes.npoints = NPOINTS;
	return 0;
}

static int block_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	struct block *b = m->priv;

	if (!strcasecmp(o->key, "Disk")) {
		if (opt_expect_strings(o, 1, err, errlen))
			return -1;
		for (int i = 0; i < o->nvalues; i++)
			if (name_filter_add(&b->disks_filter, "Disk", o->values[i].string, err, errlen))
				return -1;
		return 1;
	}
	if (!strcasecmp(o->key, "IgnoreSelected"))
		return opt_get_boolean(o, &b->disks_filter.ignore_selected, err, errlen) ? -1 : 1;
	if (!strcasecmp(o->key, "QueueTime"))
		return opt_get_boolean(o, &b->queue_time, err, errlen) ? -1 : 1;
	return 0;
}

/* Bench-only hook (bench/block_cost.c sets it; nothing else may): take the kernel's issue
 * time as unknown, so that every request's goes through the `inflight` hash, as on kernels
 * whose BTF lacks QUEUE_FLAG_STATS or on queues without statistics. Not an option: users
 * have no reason to pay for the hash. Declared by its one user, not in a header. */
bool block_bench_force_issue_hash;

/* Tracepoint signatures and flag numbers from BTF; defaults (request first, no kernel
 * issue time) when BTF lacks them, which only costs the hash. */
static void read_kernel_facts(struct kernel_facts *f)
{
	struct btf *btf = btf_facts_open();
	long long qf, rqf;

	*f = (struct kernel_facts){ .queue_flag_stats = -1 };
	if (!btf)
		return;
	f->issue_rq_arg = btf_tracepoint_nargs(btf, "block_rq_issue") == 2;
	f->insert_rq_arg = btf_tracepoint_nargs(btf, "block_rq_insert") == 2;
	if (btf_enum_value(btf, "QUEUE_FLAG_STATS", &qf) && btf_enum_value(btf, "__RQF_STATS", &rqf) && qf >= 0 &&
	    qf < 64 && rqf >= 0 && rqf < 32) {
		f->queue_flag_stats = (int)qf;
		f->rqf_stats = 1u << rqf;
	}
	if (block_bench_force_issue_hash) {
		f->queue_flag_stats = -1;
		f->rqf_stats = 0;
	}
	btf_facts_close(btf);
}

/* Bytes of a `disks` value packed for precision p. */
#define PACKED_ROW_SIZE(p) HIST_PACKED_ROW_OFFSET(offsetof(struct block_row, latency), BLOCK_HISTS, (p))
_Static_assert(sizeof(struct block_row) == PACKED_ROW_SIZE(HIST_PRECISION_MAX), "histogram rows come last");

static struct bpf_object *open_object(void *ctx)
{
	struct block *b = ctx;

	b->skel = block_bpf__open();
	if (!b->skel)
		return NULL;
	b->skel->rodata->issue_rq_arg = b->facts.issue_rq_arg;
	b->skel->rodata->insert_rq_arg = b->facts.insert_rq_arg;
	b->skel->rodata->queue_flag_stats = b->facts.queue_flag_stats;
	b->skel->rodata->rqf_stats = b->facts.rqf_stats;
	b->skel->rodata->queue_time = b->queue_time;
	b->skel->rodata->hist_precision = b->precision;
	bpf_map__set_value_size(b->skel->maps.disks, PACKED_ROW_SIZE(b->precision));
	return b->skel->obj;
}

static int load_object(void *ctx)
{
	struct block *b = ctx;

	return block_bpf__load(b->skel);
}

static void close_object(void *ctx)
{
	struct block *b = ctx;

	block_bpf__destroy(b->skel);
	b->skel = NULL;
}

static int block_start(struct module *m, char *err, size_t errlen)
{
	struct block *b = m->priv;
	struct probe_object po = { .ctx = b, .open = open_object, .load = load_object, .close = close_object };
	int e;

	read_kernel_facts(&b->facts);
	/* `disks` is one hash for all CPUs, preallocated for BLOCK_MAX_ROWS rows: counted as an
	 * eighth of its histograms against the per-CPU budget, it gets precision 3 by default
	 * (7 MB; precision 5 would take 27 MB). */
	b->precision = hist_config_precision(&m->hist, BLOCK_MAX_ROWS * BLOCK_HISTS / 8);
	b->points[POINT_IO].enabled = !b->queue_time;
	b->points[POINT_IO_QUEUE].enabled = b->queue_time;
	if (probe_set_start(&m->probes, &po, err, errlen))
		return -1;
	b->rows = calloc(BLOCK_MAX_ROWS, sizeof(*b->rows));
	e = b->rows ? percpu_reader_init(&b->stats_reader, bpf_map__fd(b->skel->maps.stats), BLOCK_STAT_COUNT,
					 sizeof(uint64_t))
		    : -ENOMEM;
	if (e) {
		snprintf(err, errlen, "cannot set up map readers: %s", strerror(-e));
		return -1;
	}
	e = block_untraced_start(&b->untraced);
	if (e)
		ebpf_log(EBPF_LOG_WARNING, "%s: cannot read /proc/diskstats (%s): no untraced-<disk>-<op> values",
			 m->label, strerror(-e));
	if (b->facts.queue_flag_stats >= 0)
		ebpf_log(EBPF_LOG_INFO,
			 "%s: issue times read from the request where the queue keeps statistics "
			 "(QUEUE_FLAG_STATS bit %d, RQF_STATS 0x%x), else kept in a hash of %d requests",
			 m->label, b->facts.queue_flag_stats, b->facts.rqf_stats, BLOCK_MAX_INFLIGHT);
	else
		ebpf_log(EBPF_LOG_INFO, "%s: issue times kept in a hash of %d requests (no QUEUE_FLAG_STATS in BTF)",
			 m->label, BLOCK_MAX_INFLIGHT);
	return 0;
}

static struct row_state *row_state(struct block *b, const struct block_key *k)
{
	for (int i = 0; i < b->nrows; i++)
		if (b->rows[i].key.dev == k->dev && b->rows[i].key.op == k->op)
			return &b->rows[i];
	if (b->nrows == BLOCK_MAX_ROWS)
		return NULL; /* cannot happen: the map has as many rows */
	b->rows[b->nrows].key = *k;
	hist_tracker_init(&b->rows[b->nrows].latency, 1, b->precision);
	hist_tracker_init(&b->rows[b->nrows].size, 1, b->precision);
	hist_tracker_init(&b->rows[b->nrows].queue, 1, b->precision);
	return &b->rows[b->nrows++];
}

static void emit_hist(const struct metric_sink *sink, const char *metric, const char *instance, enum hist_unit unit,
		      struct hist_tracker *t, const struct hist_row *h)
{
	struct hist_interval iv;

	hist_advance(t, (const uint64_t *)h->slots, h->sum, &iv);
	if (iv.total_count)
		sink->histogram(sink->ctx, metric, instance, unit, &iv);
}

static void emit_row(struct block *b, const struct metric_sink *sink, struct row_state *rs, const struct block_row *r)
{
	const char *disk = disk_name(&b->names, rs->key.dev);
	char instance[DISK_NAME_LEN + 16];

	if (!name_filter_collects(&b->disks_filter, disk))
		return;
	snprintf(instance, sizeof(instance), "%s-%s", disk,
		 rs->key.op < BLOCK_OP_COUNT ? op_names[rs->key.op] : "other");
	/* Only series with data: a flush moves no bytes, so it has no bytes series. */
	if (r->ios)
		sink->counter(sink->ctx, "ios", instance, r->ios);
	if (r->bytes)
		sink->counter(sink->ctx, "bytes", instance, r->bytes);
	emit_hist(sink, "latency", instance, HIST_UNIT_NANOSECONDS, &rs->latency, &r->latency);
	emit_hist(sink, "io_size", instance, HIST_UNIT_BYTES, &rs->size, &r->size);
	if (b->queue_time)
		emit_hist(sink, "queue_latency", instance, HIST_UNIT_NANOSECONDS, &rs->queue, &r->queue);
}

/* Rows are never deleted, so walking the hash while the kernel adds rows misses at most
 * the new ones, which the next read sees. */
static int read_rows(struct block *b, const struct metric_sink *sink)
{
	int fd = bpf_map__fd(b->skel->maps.disks);
	struct block_key key, next;
	struct block_row row;
	uint64_t packed[sizeof(struct block_row) / 8];
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct row_state *rs;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, packed))
			continue; /* rows are never deleted; treat a miss as "not yet" */
		hist_rows_unpack(packed, &row, offsetof(struct block_row, latency), BLOCK_HISTS, b->precision);
		rs = row_state(b, &key);
		if (rs)
			emit_row(b, sink, rs, &row);
		block_untraced_set_traced(&b->untraced, key.dev, key.op, row.ios);
	}
	return errno == ENOENT ? 0 : -errno;
}

struct untraced_emit {
	struct block *b;
	const struct metric_sink *sink;
};

static void emit_untraced(void *ctx, const char *disk, unsigned int op, uint64_t untraced)
{
	struct untraced_emit *ue = ctx;
	char instance[DISK_NAME_LEN + 16];

	if (!name_filter_collects(&ue->b->disks_filter, disk))
		return;
	snprintf(instance, sizeof(instance), "%s-%s", disk, op_names[op]);
	ue->sink->counter(ue->sink->ctx, "untraced", instance, untraced);
}

static int block_read(struct module *m, const struct metric_sink *sink)
{
	struct block *b = m->priv;
	struct untraced_emit ue = { .b = b, .sink = sink };
	bool have_diskstats;
	int err;

	/* Before the maps: every IO diskstats counts has then passed the programs already. */
	have_diskstats = b->untraced.started && block_untraced_read_kernel(&b->untraced) == 0;
	err = percpu_reader_read(&b->stats_reader, b->stats);
	if (!err)
		err = read_rows(b, sink);
	if (err)
		return err;
	/* Self-metrics, always sent so that "nothing lost" is visible as a zero. */
	sink->counter(sink->ctx, "dropped", "rows_full", b->stats[BLOCK_STAT_ROWS_FULL]);
	sink->counter(sink->ctx, "dropped", "inflight_full", b->stats[BLOCK_STAT_INFLIGHT_FULL]);
	if (b->queue_time)
		sink->counter(sink->ctx, "dropped", "queued_full", b->stats[BLOCK_STAT_QUEUED_FULL]);
	sink->counter(sink->ctx, "issue_time", "unknown", b->stats[BLOCK_STAT_NO_START]);
	sink->counter(sink->ctx, "issue_time", "request", b->stats[BLOCK_STAT_START_REQUEST]);
	sink->counter(sink->ctx, "issue_time", "hash", b->stats[BLOCK_STAT_START_HASH]);
	if (have_diskstats)
		block_untraced_each(&b->untraced, emit_untraced, &ue);
	return 0;
}

static void block_destroy(struct module *m)
{
	struct block *b = m->priv;

	if (!b)
		return;
	probe_set_stop(&m->probes);
	if (b->skel)
		close_object(b);
	percpu_reader_free(&b->stats_reader);
	name_filter_free(&b->disks_filter);
	disk_names_free(&b->names);
	block_untraced_free(&b->untraced);
	free(b->rows);
	free(b);
	m->priv = NULL;
}

const struct module_ops block_module = {
	.name = "block",
	.description = "per disk and operation: IOs, bytes, latency and size distributions, queue time",
	.in_default_set = false,
	.option_names = option_names,
	.create = block_create,
	.set_option = block_set_option,
	.start = block_start,
	.read = block_read,
	.destroy = block_destroy,
};
