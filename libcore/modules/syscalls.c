/* The `syscalls` module: call and error counts per syscall (one sys_exit program), and
 * latency histograms for the syscalls the user lists (a sys_enter program too, so it is
 * opt-in: it costs about three times the counters). */
#include "libcore/engine/module.h"

#include "libcore/engine/log.h"
#include "libcore/engine/percpu_read.h"
#include "libcore/decode/syscall_names.h"
#include "syscalls.h"
#include "syscalls.skel.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>

_Static_assert(SYSCALL_TABLE_SIZE == MAX_SYSCALLS, "name table and maps must agree");

static const struct probe_candidate counter_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "count_exit_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "count_exit_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "count_exit_tp" }, { NULL } },
};

/* Task storage first: no size limit, freed with the task. The tid hash is for kernels
 * where these program types cannot use task storage. */
static const struct probe_candidate latency_candidates[] = {
	{ ATTACH_TP_BTF, "task_storage", { "lat_enter_btf_task", "lat_exit_btf_task" }, { "start_task" } },
	{ ATTACH_TP_BTF, "tid_hash", { "lat_enter_btf_hash", "lat_exit_btf_hash" }, { "start_tid" } },
	{ ATTACH_RAW_TP, "task_storage", { "lat_enter_raw_task", "lat_exit_raw_task" }, { "start_task" } },
	{ ATTACH_RAW_TP, "tid_hash", { "lat_enter_raw_hash", "lat_exit_raw_hash" }, { "start_tid" } },
	{ ATTACH_TRACEPOINT, "tid_hash", { "lat_enter_tp_hash", "lat_exit_tp_hash" }, { "start_tid" } },
};

enum { POINT_COUNTERS, POINT_LATENCY, NPOINTS };

struct syscalls {
	struct syscalls_bpf *skel;
	uint32_t filter_tgid;
	unsigned int precision; /* of the latency rows, hist_config_precision() */
	/* configuration */
	bool latency_all;
	bool latency_on[MAX_SYSCALLS];
	/* derived at start: row r of map `latency` holds syscall row_nr[r] */
	uint16_t nrows;
	uint16_t row_nr[MAX_SYSCALLS];
	struct probe_point points[NPOINTS];
	/* reading */
	struct percpu_reader counts_reader, latency_reader, stats_reader;
	struct syscall_counts *counts;
	struct hist_row *latency;
	uint64_t stats[SYSCALL_STAT_COUNT];
	struct hist_tracker *trackers;
};

static const char *const option_names[] = { "Latency", NULL };

/* These never return to user space, so they have no sys_exit and no latency (and on the
 * thread-id hash fallback each would leave its start entry behind). By number: a name is
 * only one of the ways to say it ("exit_group", "sys_231"). */
static bool never_returns(unsigned int nr)
{
	return nr == SYS_exit || nr == SYS_exit_group;
}

static int syscalls_create(struct module *m)
{
	struct syscalls *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->points[POINT_COUNTERS] = (struct probe_point){
		.name = "sys_exit", .candidates = counter_candidates, .ncandidates = 3, .chosen = -1 };
	s->points[POINT_LATENCY] = (struct probe_point){
		.name = "sys_enter+sys_exit", .candidates = latency_candidates, .ncandidates = 5, .chosen = -1 };
	m->priv = s;
	m->probes.points = s->points;
	m->probes.npoints = NPOINTS;
	return 0;
}

static int set_latency(struct syscalls *s, const struct option *o, char *err, size_t errlen)
{
	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	for (int i = 0; i < o->nvalues; i++) {
		const char *name = o->values[i].string;
		int nr;

		if (!strcasecmp(name, "all")) {
			s->latency_all = true;
			continue;
		}
		nr = syscall_number(name);
		if (nr < 0) {
			snprintf(err, errlen,
				 "Latency: \"%s\" is not a syscall on this architecture; use names as in "
				 "<asm/unistd.h> without the __NR_ prefix (e.g. \"fsync\", \"read\"), or \"all\"",
				 name);
			return -1;
		}
		if (never_returns((unsigned int)nr)) {
			snprintf(err, errlen, "Latency: \"%s\" never returns, so it has no latency; remove it", name);
			return -1;
		}
		s->latency_on[nr] = true;
	}
	return 1;
}

static int syscalls_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "Latency"))
		return set_latency(m->priv, o, err, errlen);
	return 0;
}

/* Assigns a `latency` map row to every syscall with latency enabled. */
static void assign_rows(struct syscalls *s)
{
	s->nrows = 0;
	for (unsigned int nr = 0; nr < MAX_SYSCALLS; nr++) {
		bool on = s->latency_on[nr];

		if (s->latency_all)
			on = syscall_table[nr] && !never_returns(nr);
		if (on)
			s->row_nr[s->nrows++] = nr;
	}
}

static struct bpf_object *open_object(void *ctx)
{
	struct syscalls *s = ctx;

	s->skel = syscalls_bpf__open();
	if (!s->skel)
		return NULL;
	s->skel->rodata->filter_tgid = s->filter_tgid;
	s->skel->rodata->hist_precision = s->precision;
	bpf_map__set_value_size(s->skel->maps.latency, HIST_ROW_SIZE(s->precision));
	for (uint16_t r = 0; r < s->nrows; r++)
		s->skel->rodata->latency_row[s->row_nr[r]] = r + 1;
	bpf_map__set_max_entries(s->skel->maps.latency, s->nrows ? s->nrows : 1);
	return s->skel->obj;
}

static int load_object(void *ctx)
{
	struct syscalls *s = ctx;

	return syscalls_bpf__load(s->skel);
}

static void close_object(void *ctx)
{
	struct syscalls *s = ctx;

	syscalls_bpf__destroy(s->skel);
	s->skel = NULL;
}

static int init_readers(struct syscalls *s)
{
	int err;

	s->counts = calloc(MAX_SYSCALLS, sizeof(struct syscall_counts));
	s->latency = calloc(s->nrows ? s->nrows : 1, sizeof(struct hist_row));
	s->trackers = calloc(s->nrows ? s->nrows : 1, sizeof(*s->trackers));
	if (!s->counts || !s->latency || !s->trackers)
		return -ENOMEM;
	err = percpu_reader_init(&s->counts_reader, bpf_map__fd(s->skel->maps.counts), MAX_SYSCALLS,
				 sizeof(struct syscall_counts));
	if (!err)
		err = percpu_reader_init(&s->stats_reader, bpf_map__fd(s->skel->maps.stats), SYSCALL_STAT_COUNT,
					 sizeof(uint64_t));
	if (!err && s->nrows)
		err = percpu_reader_init_prefix(&s->latency_reader, bpf_map__fd(s->skel->maps.latency), s->nrows,
						HIST_ROW_SIZE(s->precision), sizeof(struct hist_row));
	hist_tracker_init(s->trackers, s->nrows, s->precision);
	return err;
}

static int syscalls_start(struct module *m, char *err, size_t errlen)
{
	struct syscalls *s = m->priv;
	struct probe_object po = { .ctx = s, .open = open_object, .load = load_object, .close = close_object };
	int e;

	s->filter_tgid = m->filter_tgid;
	assign_rows(s);
	s->precision = hist_config_precision(&m->hist, s->nrows);
	s->points[POINT_COUNTERS].enabled = s->nrows == 0;
	s->points[POINT_LATENCY].enabled = s->nrows > 0;
	if (probe_set_start(&m->probes, &po, err, errlen))
		return -1;
	e = init_readers(s);
	if (e) {
		snprintf(err, errlen, "cannot set up map readers: %s", strerror(-e));
		return -1;
	}
	ebpf_log(EBPF_LOG_INFO, "%s: counting every syscall%s, latency for %u syscall%s", m->label,
		 s->filter_tgid ? " of one process" : "", s->nrows, s->nrows == 1 ? "" : "s");
	return 0;
}

static void emit_counts(struct syscalls *s, const struct metric_sink *sink)
{
	char buf[16];

	for (unsigned int nr = 0; nr < MAX_SYSCALLS; nr++) {
		const struct syscall_counts *c = &s->counts[nr];

		/* Only series with data: a syscall nobody called has no file, no graph. */
		if (c->calls)
			sink->counter(sink->ctx, "calls", syscall_name(nr, buf, sizeof(buf)), c->calls);
		if (c->errors)
			sink->counter(sink->ctx, "errors", syscall_name(nr, buf, sizeof(buf)), c->errors);
	}
}

static void emit_latency(struct syscalls *s, const struct metric_sink *sink)
{
	char buf[16];

	for (uint16_t r = 0; r < s->nrows; r++) {
		const struct hist_row *l = &s->latency[r];
		struct hist_interval h;

		hist_advance(&s->trackers[r], (const uint64_t *)l->slots, l->sum, &h);
		if (h.total_count)
			sink->histogram(sink->ctx, "latency", syscall_name(s->row_nr[r], buf, sizeof(buf)),
					HIST_UNIT_NANOSECONDS, &h);
	}
}

static int syscalls_read(struct module *m, const struct metric_sink *sink)
{
	struct syscalls *s = m->priv;
	int err;

	err = percpu_reader_read(&s->counts_reader, (uint64_t *)s->counts);
	if (!err)
		err = percpu_reader_read(&s->stats_reader, s->stats);
	if (!err && s->nrows)
		err = percpu_reader_read(&s->latency_reader, (uint64_t *)s->latency);
	if (err)
		return err;
	emit_counts(s, sink);
	emit_latency(s, sink);
	/* Self-metrics, always sent so that "nothing lost" is visible as a zero. */
	sink->counter(sink->ctx, "dropped", "out_of_range", s->stats[SYSCALL_STAT_OUT_OF_RANGE]);
	if (s->nrows)
		sink->counter(sink->ctx, "dropped", "start_lost", s->stats[SYSCALL_STAT_START_LOST]);
	return 0;
}

static void syscalls_destroy(struct module *m)
{
	struct syscalls *s = m->priv;

	if (!s)
		return;
	probe_set_stop(&m->probes);
	if (s->skel)
		close_object(s);
	percpu_reader_free(&s->counts_reader);
	percpu_reader_free(&s->latency_reader);
	percpu_reader_free(&s->stats_reader);
	free(s->counts);
	free(s->latency);
	free(s->trackers);
	free(s);
	m->priv = NULL;
}

const struct module_ops syscalls_module = {
	.name = "syscalls",
	.description = "per-syscall call and error counts; latency histograms for the listed syscalls",
	.in_default_set = true,
	.option_names = option_names,
	.create = syscalls_create,
	.set_option = syscalls_set_option,
	.start = syscalls_start,
	.read = syscalls_read,
	.destroy = syscalls_destroy,
};
