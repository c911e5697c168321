/* The `runqueue` module: how long runnable threads wait for a CPU (runqlat,
 * continuously), for the whole system and optionally per CPU. */
#include "libcore/engine/module.h"

#include "libcore/engine/log.h"
#include "libcore/engine/percpu_read.h"
#include "runqueue.h"
#include "runqueue.skel.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Task storage first: nothing to size, freed with the thread. The pid hash is for
 * kernels without task storage for tracing programs, and for raw_tp and classic
 * tracepoints, which cannot pass another task to the task storage helper. */
static const struct probe_candidate candidates[] = {
	{ ATTACH_TP_BTF, "task_storage",
	  { "rq_wakeup_btf_task", "rq_wakeup_new_btf_task", "rq_switch_btf_task" }, { "start_task" } },
	{ ATTACH_TP_BTF, "pid_hash",
	  { "rq_wakeup_btf_hash", "rq_wakeup_new_btf_hash", "rq_switch_btf_hash" }, { "start_pid" } },
	{ ATTACH_RAW_TP, "pid_hash",
	  { "rq_wakeup_raw_hash", "rq_wakeup_new_raw_hash", "rq_switch_raw_hash" }, { "start_pid" } },
	{ ATTACH_TRACEPOINT, "pid_hash",
	  { "rq_wakeup_tp_hash", "rq_wakeup_new_tp_hash", "rq_switch_tp_hash" }, { "start_pid" } },
};

struct runqueue {
	struct runqueue_bpf *skel;
	uint32_t filter_tgid;
	unsigned int precision; /* of the latency row, hist_config_precision() */
	bool per_cpu;
	struct probe_point point;
	/* reading */
	struct percpu_reader latency_reader, stats_reader;
	struct hist_row all;
	uint64_t stats[RUNQ_STAT_COUNT];
	struct hist_tracker all_tracker;
	struct hist_tracker *cpu_trackers; /* one per possible CPU, with PerCPU */
};

static const char *const option_names[] = { "PerCPU", NULL };

static int runqueue_create(struct module *m)
{
	struct runqueue *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->point = (struct probe_point){ .name = "sched_wakeup+sched_wakeup_new+sched_switch",
					 .candidates = candidates,
					 .ncandidates = sizeof(candidates) / sizeof(candidates[0]),
					 .enabled = true,
					 .chosen = -1 };
	m->priv = r;
	m->probes.points = &r->point;
	m->probes.npoints = 1;
	return 0;
}

static int runqueue_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	struct runqueue *r = m->priv;

	if (!strcasecmp(o->key, "PerCPU"))
		return opt_get_boolean(o, &r->per_cpu, err, errlen) ? -1 : 1;
	return 0;
}

static struct bpf_object *open_object(void *ctx)
{
	struct runqueue *r = ctx;

	r->skel = runqueue_bpf__open();
	if (!r->skel)
		return NULL;
	r->skel->rodata->filter_tgid = r->filter_tgid;
	r->skel->rodata->hist_precision = r->precision;
	bpf_map__set_value_size(r->skel->maps.latency, HIST_ROW_SIZE(r->precision));
	return r->skel->obj;
}

static int load_object(void *ctx)
{
	struct runqueue *r = ctx;

	return runqueue_bpf__load(r->skel);
}

static void close_object(void *ctx)
{
	struct runqueue *r = ctx;

	runqueue_bpf__destroy(r->skel);
	r->skel = NULL;
}

static int runqueue_start(struct module *m, char *err, size_t errlen)
{
	struct runqueue *r = m->priv;
	struct probe_object po = { .ctx = r, .open = open_object, .load = load_object, .close = close_object };
	int e;

	r->filter_tgid = m->filter_tgid;
	r->precision = hist_config_precision(&m->hist, 1);
	if (probe_set_start(&m->probes, &po, err, errlen))
		return -1;
	e = percpu_reader_init_prefix(&r->latency_reader, bpf_map__fd(r->skel->maps.latency), 1,
				      HIST_ROW_SIZE(r->precision), sizeof(struct hist_row));
	hist_tracker_init(&r->all_tracker, 1, r->precision);
	if (!e)
		e = percpu_reader_init(&r->stats_reader, bpf_map__fd(r->skel->maps.stats), RUNQ_STAT_COUNT,
				       sizeof(uint64_t));
	if (!e && r->per_cpu) {
		r->cpu_trackers = calloc(r->latency_reader.ncpus, sizeof(*r->cpu_trackers));
		if (!r->cpu_trackers)
			e = -ENOMEM;
		else
			hist_tracker_init(r->cpu_trackers, r->latency_reader.ncpus, r->precision);
	}
	if (e) {
		snprintf(err, errlen, "cannot set up map readers: %s", strerror(-e));
		return -1;
	}
	return 0;
}

static void emit(const struct metric_sink *sink, const char *instance, struct hist_tracker *t,
		 const struct hist_row *l)
{
	struct hist_interval h;

	hist_advance(t, (const uint64_t *)l->slots, l->sum, &h);
	if (h.total_count)
		sink->histogram(sink->ctx, "latency", instance, HIST_UNIT_NANOSECONDS, &h);
}

static int runqueue_read(struct module *m, const struct metric_sink *sink)
{
	struct runqueue *r = m->priv;
	int err;

	err = percpu_reader_read(&r->latency_reader, (uint64_t *)&r->all);
	if (!err)
		err = percpu_reader_read(&r->stats_reader, r->stats);
	if (err)
		return err;
	emit(sink, "all", &r->all_tracker, &r->all);
	/* The reader keeps the per-CPU values of its one row in raw[], CPU after CPU. */
	for (int cpu = 0; r->per_cpu && cpu < r->latency_reader.ncpus; cpu++) {
		const struct hist_row *l =
			(const struct hist_row *)(r->latency_reader.raw + (size_t)cpu * r->latency_reader.words);
		char instance[32];

		snprintf(instance, sizeof(instance), "cpu%d", cpu);
		emit(sink, instance, &r->cpu_trackers[cpu], l);
	}
	sink->counter(sink->ctx, "dropped", "start_lost", r->stats[RUNQ_STAT_START_LOST]);
	return 0;
}

static void runqueue_destroy(struct module *m)
{
	struct runqueue *r = m->priv;

	if (!r)
		return;
	probe_set_stop(&m->probes);
	if (r->skel)
		close_object(r);
	percpu_reader_free(&r->latency_reader);
	percpu_reader_free(&r->stats_reader);
	free(r->cpu_trackers);
	free(r);
	m->priv = NULL;
}

const struct module_ops runqueue_module = {
	.name = "runqueue",
	.description = "run-queue latency (wakeup to running), system-wide and per CPU",
	.in_default_set = false,
	.option_names = option_names,
	.create = runqueue_create,
	.set_option = runqueue_set_option,
	.start = runqueue_start,
	.read = runqueue_read,
	.destroy = runqueue_destroy,
};
