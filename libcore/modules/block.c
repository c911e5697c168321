/* The `block` module: per disk and operation, completed IOs, bytes, latency from issue to
 * completion, request sizes and, with QueueTime, the time from insert to issue
 * (biolatency, biosnoop and bitesize, continuously); with By "cgroup" also IOs, bytes and
 * latency per cgroup that issued the requests and operation, the disks summed. */
#include "libcore/engine/map_layout.h"
#include "libcore/engine/module.h"
#include "libcore/engine/module_cgroup.h"

#include "block.h"
#include "block.skel.h"

MODULE_SKELETON(block);
#include "libcore/modules/block_untraced.h"
#include "libcore/kernel/btf_facts.h"
#include "libcore/decode/disk_names.h"
#include "base/label_value.h"
#include "base/log.h"
#include "libcore/decode/name_filter.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct probe_candidate io_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { PROG_NAME(blk_issue_btf), PROG_NAME(blk_complete_btf) }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { PROG_NAME(blk_issue_raw), PROG_NAME(blk_complete_raw) }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { PROG_NAME(blk_issue_tp), PROG_NAME(blk_complete_tp) }, { NULL } },
};

/* With QueueTime or By "cgroup", insert joins the same flavour: the key of `queued` and
 * `cgroup_inflight` (request or disk + sector) must be the same at insert and at issue. Its issue and complete programs are
 * copies of the ones above, since a program belongs to one probe point. */
static const struct probe_candidate queue_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { PROG_NAME(blk_insert_btf), PROG_NAME(blk_issue_btf_q), PROG_NAME(blk_complete_btf_q) }, { MAP_NAME(queued) } },
	{ ATTACH_RAW_TP, NULL, { PROG_NAME(blk_insert_raw), PROG_NAME(blk_issue_raw_q), PROG_NAME(blk_complete_raw_q) }, { MAP_NAME(queued) } },
	{ ATTACH_TRACEPOINT, NULL, { PROG_NAME(blk_insert_tp), PROG_NAME(blk_issue_tp_q), PROG_NAME(blk_complete_tp_q) }, { MAP_NAME(queued) } },
};

enum { POINT_IO, POINT_IO_QUEUE };
static const struct module_point points[] = {
	[POINT_IO] = MODULE_POINT_OFF("block_rq_issue+block_rq_complete", io_candidates),
	[POINT_IO_QUEUE] = MODULE_POINT_OFF("block_rq_insert+block_rq_issue+block_rq_complete", queue_candidates),
};

static const char *const op_names[BLOCK_OP_COUNT] = { "read", "write", "discard", "flush", "other" };

/* What the running kernel's BTF says, for rodata. */
struct kernel_facts {
	int issue_rq_arg, insert_rq_arg;
	int queue_flag_stats; /* -1: unknown */
	uint32_t rqf_stats;   /* 0: unknown */
};

struct block {
	/* configuration */
	struct name_filter disks_filter;
	bool queue_time;
	/* derived at start */
	struct kernel_facts facts;
	uint32_t max_rows; /* of map `disks`, from the disks this machine has (disk_table_rows) */
	/* reading */
	struct block_untraced untraced; /* what diskstats counted and the programs did not */
	bool have_diskstats;            /* this read's /proc/diskstats was read */
};

static const struct module_option options[] = {
	{ "Disk" },
	{ "IgnoreSelected", MODOPT_BOOL, offsetof(struct block, disks_filter.ignore_selected) },
	{ "QueueTime", MODOPT_BOOL, offsetof(struct block, queue_time) },
	CGROUP_HIST_OPTION_KEYS,
	{ NULL },
};

enum { FEATURE_QUEUE_TIME = 1 };

/* Self-metrics, always sent so that "nothing lost" is visible as a zero. */
static const struct view_row stat_rows[] = {
	{ BLOCK_STAT_ROWS_FULL, "dropped", "rows_full", VIEW_ALWAYS },
	{ BLOCK_STAT_INFLIGHT_FULL, "dropped", "inflight_full", VIEW_ALWAYS },
	{ BLOCK_STAT_QUEUED_FULL, "dropped", "queued_full", VIEW_ALWAYS, FEATURE_QUEUE_TIME },
	{ BLOCK_STAT_NO_START, "issue_time", "unknown", VIEW_ALWAYS },
	{ BLOCK_STAT_START_REQUEST, "issue_time", "request", VIEW_ALWAYS },
	{ BLOCK_STAT_START_HASH, "issue_time", "hash", VIEW_ALWAYS },
};

/* A key of `disks` is the disk's dev_t, named as /proc/diskstats names it (looked up again at
 * every read: a replugged disk may have another's old dev_t), and the operation. */
static const struct view_label disk_labels[] = {
	{ .name = "disk", .offset = offsetof(struct block_key, dev), .size = sizeof(uint32_t),
	  .decode = { "majorminor", "kernel" } },
	{ .name = "op", .offset = offsetof(struct block_key, op), .size = sizeof(uint32_t), .names = op_names,
	  .nnames = BLOCK_OP_COUNT },
};

/* Only series with data: a flush moves no bytes, so it has no bytes series. */
static const struct view_field row_fields[] = {
	{ "ios", VALUE_COUNTER, offsetof(struct block_row, ios) },
	{ "bytes", VALUE_COUNTER, offsetof(struct block_row, bytes) },
	{ "latency", VALUE_HISTOGRAM, offsetof(struct block_row, latency), HIST_UNIT_NANOSECONDS },
	{ "io_size", VALUE_HISTOGRAM, offsetof(struct block_row, size), HIST_UNIT_BYTES },
	{ "queue_latency", VALUE_HISTOGRAM, offsetof(struct block_row, queue), HIST_UNIT_NANOSECONDS,
	  .needs = FEATURE_QUEUE_TIME },
};

static void read_diskstats(struct module *m);
static bool count_traced(void *ctx, const void *key, const void *value, const char *const *labels);

/* `disks`: a hash of (dev, op) rows, its histograms packed for the precision. */
static const struct map_view views[] = {
	{ VIEW_PERCPU_COUNTERS(MAP_NAME(stats), BLOCK_STAT_COUNT, stat_rows) },
	{ .map = MAP_NAME(disks), .shape = VIEW_HASH, .value_size = sizeof(struct block_row), .key_size = sizeof(struct block_key),
	  VIEW_LABELLED_FIELDS(disk_labels, row_fields),
	  .packed_head = offsetof(struct block_row, latency), .packed_rows = BLOCK_HISTS, .fresh_labels = true,
	  .before_read = read_diskstats, .entry = count_traced },
	MODULE_CGROUP_FULL_VIEW,
};

/* By "cgroup": per (cgroup, operation) the counts and the latency, named as the host-wide
 * rows' operation ("block.<cgroup>/ios-read", "latency-write-99"); the disks summed. */
static const struct view_field cgroup_count_fields[] = {
	{ "ios", VALUE_COUNTER, offsetof(struct block_cgroup_counts, ios) },
	{ "bytes", VALUE_COUNTER, offsetof(struct block_cgroup_counts, bytes) },
};

static const char *op_row_name(const struct module *m, uint32_t row, char *buf, size_t len)
{
	return row < BLOCK_OP_COUNT ? op_names[row] : NULL;
}

/* Counter rows (32 bytes) for every operation of every cgroup; histogram rows, which count
 * in the per-cgroup rows' own precision budget, for three per cgroup on average (read,
 * write, flush: discards and the others are rare), in a table all cgroups share. */
#define CGROUP_LATENCY_ROWS 3
static const struct cgroup_table cgroup_tables[] = {
	{ .map = MAP_NAME(cgroup_counts), .fields = cgroup_count_fields, .nfields = COUNT_OF(cgroup_count_fields),
	  .nrows = BLOCK_OP_COUNT, .rows_per_cgroup = BLOCK_OP_COUNT, .row_instance = op_row_name, .row_label = "op" },
	{ .map = MAP_NAME(cgroup_latency), .hist_metric = "latency", .unit = HIST_UNIT_NANOSECONDS, .nrows = BLOCK_OP_COUNT,
	  .rows_per_cgroup = CGROUP_LATENCY_ROWS, .row_instance = op_row_name, .row_label = "op" },
};
/* cgroup_inflight: each request's cgroup from issue to completion. */
static const char *const cgroup_aux_maps[] = { MODULE_CGROUP_AUX_MAPS, MAP_NAME(cgroup_inflight), NULL };

static int block_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	struct block *b = m->priv;

	/* Disk, the one key of the table left: not a bool, not a cgroup option */
	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	for (int i = 0; i < o->nvalues; i++)
		if (name_filter_add(&b->disks_filter, "Disk", o->values[i].string, err, errlen))
			return -1;
	return 0;
}


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
	btf_facts_close(btf);
}

/* Rows of the preallocated `disks` hash (three histograms each, 26 KB at precision 5): room
 * for every operation of twice the block devices this machine has at start (hot-plugged
 * ones included), at least 64 and at most BLOCK_MAX_ROWS. A row that does not fit is
 * counted in dropped-rows_full and the table's fill is a self-metric. A machine with 10
 * devices gets 100 rows (2.6 MB at precision 5), one with 200 the whole 1,024 (precision 3
 * by default: 7 MB). */
static uint32_t disk_table_rows(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	uint32_t devices = 0, rows;

	while (d && (e = readdir(d)))
		devices += e->d_name[0] != '.';
	if (d)
		closedir(d);
	rows = 2 * devices * BLOCK_OP_COUNT;
	return rows < 64 ? 64 : rows > BLOCK_MAX_ROWS ? BLOCK_MAX_ROWS : rows;
}

static uint32_t possible_cpus(const struct module *m)
{
	int n = map_layout_possible_cpus(m);

	return n > 0 ? (uint32_t)n : 1;
}

static int block_prepare(struct module *m, char *err, size_t errlen)
{
	struct block *b = m->priv;
	bool insert;

	read_kernel_facts(&b->facts);
	/* By "cgroup" needs block_rq_insert too: the submitter inserts a request that another
	 * task may issue later (the programs keep no insert time without QueueTime). */
	insert = b->queue_time || module_cgroup_on(m->cgroup);
	m->probes.points[POINT_IO].enabled = !insert;
	m->probes.points[POINT_IO_QUEUE].enabled = insert;
	m->features = b->queue_time ? FEATURE_QUEUE_TIME : 0;
	/* `disks` is one hash for all CPUs, preallocated: counted as an eighth of its
	 * histograms against the budget, with the spare element per possible CPU that the
	 * kernel adds to a preallocated hash (256 rows' worth at 256 CPUs: precision 4 there). */
	b->max_rows = disk_table_rows();
	m->hist_rows = (b->max_rows + possible_cpus(m)) * BLOCK_HISTS / 8;
	return 0;
}

/* Bytes of a `disks` value packed for precision p. */
#define PACKED_ROW_SIZE(p) HIST_PACKED_ROW_OFFSET(offsetof(struct block_row, latency), BLOCK_HISTS, (p))
_Static_assert(sizeof(struct block_row) == PACKED_ROW_SIZE(HIST_PRECISION_MAX), "histogram rows come last");

static int block_configure(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	const struct block *b = m->priv;
	struct bpf_map *disks;
	int e;
	uint8_t *issue_rq_arg = MODULE_RODATA(obj, issue_rq_arg);
	uint8_t *insert_rq_arg = MODULE_RODATA(obj, insert_rq_arg);
	int8_t *queue_flag_stats = MODULE_RODATA(obj, queue_flag_stats);
	uint32_t *rqf_stats = MODULE_RODATA(obj, rqf_stats);
	bool *queue_time = MODULE_RODATA(obj, queue_time);

	if (!issue_rq_arg || !insert_rq_arg || !queue_flag_stats || !rqf_stats || !queue_time)
		return module_hook_fail(err, errlen, "its BPF object lacks the block module's rodata (a stale build?)");
	*issue_rq_arg = b->facts.issue_rq_arg;
	*insert_rq_arg = b->facts.insert_rq_arg;
	*queue_flag_stats = b->facts.queue_flag_stats;
	*rqf_stats = b->facts.rqf_stats;
	*queue_time = b->queue_time;
	disks = MODULE_MAP(obj, disks);
	e = bpf_map__set_value_size(disks, PACKED_ROW_SIZE(m->precision));
	if (!e)
		e = bpf_map__set_max_entries(disks, b->max_rows);
	/* By "cgroup" alone attaches the insert programs, which write `queued` only with
	 * QueueTime: one entry then, not a hash of 10,240 preallocated (977 KiB) never used. */
	if (!e && !b->queue_time)
		e = bpf_map__set_max_entries(MODULE_MAP(obj, queued), 1);
	return e ? module_hook_fail(err, errlen, "cannot size its maps: %s", strerror(-e)) : 0;
}

static int block_start(struct module *m, char *err, size_t errlen)
{
	struct block *b = m->priv;
	int e = block_untraced_start(&b->untraced);

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

/* Before `disks` is read: every IO diskstats counts has then passed the programs already. */
static void read_diskstats(struct module *m)
{
	struct block *b = m->priv;

	b->have_diskstats = b->untraced.started && block_untraced_read_kernel(&b->untraced) == 0;
}

/* Every row of a read: its IOs for the untraced count, and whether the Disk filter sends it. */
static bool count_traced(void *ctx, const void *key, const void *value, const char *const *labels)
{
	struct module *m = ctx;
	struct block *b = m->priv;
	const struct block_key *k = key;
	const struct block_row *row = value;

	block_untraced_set_traced(&b->untraced, k->dev, k->op, row->ios);
	return name_filter_collects(&b->disks_filter, labels[0]);
}

struct untraced_emit {
	struct block *b;
	const struct metric_sink *sink;
};

/* Named as the `disks` series are (series_name.h): the disk made safe as every label, so
 * that "cciss/c0d0" is "cciss_c0d0" here too ('/' would split collectd's identifier). */
static void emit_untraced(void *ctx, const char *disk, unsigned int op, uint64_t untraced)
{
	struct untraced_emit *ue = ctx;
	char safe[LABEL_VALUE_MAX], instance[LABEL_VALUE_MAX + 16];

	if (!name_filter_collects(&ue->b->disks_filter, disk))
		return;
	snprintf(instance, sizeof(instance), "%s-%s", label_value_safe(disk, safe), op_names[op]);
	ue->sink->counter(ue->sink->ctx, METRIC("untraced"), instance, untraced);
}

/* After the views: what diskstats counted and the programs did not. */
static void block_send(struct module *m, const struct metric_sink *sink)
{
	struct block *b = m->priv;
	struct untraced_emit ue = { .b = b, .sink = sink };

	if (b->have_diskstats)
		block_untraced_each(&b->untraced, emit_untraced, &ue);
}

static void block_destroy(struct module *m)
{
	struct block *b = m->priv;

	name_filter_free(&b->disks_filter);
	block_untraced_free(&b->untraced);
}

const struct module_ops block_module = {
	.name = "block",
	.description = "per disk and operation: IOs, bytes, latency and size distributions, queue time; "
		       "optionally per cgroup",
	.options = options,
	.priv_size = sizeof(struct block),
	MODULE_OBJECT(block),
	.cost_events = (const char *const[]){ "ios", NULL },
	MODULE_CGROUP_TABLES(cgroup_tables, cgroup_aux_maps),
	.by_command = true,
	.cgroup_whose = " that issued the requests",
	.set_option = block_set_option,
	.prepare = block_prepare,
	.configure = block_configure,
	.start = block_start,
	.send = block_send,
	.destroy = block_destroy,
};
