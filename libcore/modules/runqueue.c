/* The `runqueue` module: how long runnable threads wait for a CPU (runqlat,
 * continuously), for the whole system and optionally per CPU, and with By "cgroup" per
 * cgroup of the thread that waited. */
#include "libcore/engine/module.h"

#include "libcore/engine/module_cgroup.h"
#include "libcore/engine/wait_behind.h"
#include "base/err_max.h"
#include "base/log.h"
#include "include/cgroup_key.h"
#include "include/wait_behind.h"

#include "runqueue.h"
#include "runqueue.skel.h"

MODULE_SKELETON(runqueue);

#include <stddef.h>

/* Task storage first: nothing to size, freed with the thread. The pid hash is for
 * kernels without task storage for tracing programs, and for raw_tp and classic
 * tracepoints, which cannot pass another task to the task storage helper. */
/* The three tracepoints' witnesses (witness.h), with `Witness true`, come last. */
#define RUNQ_WITNESSES(flavour) PROG_NAME(witness_rq_wakeup_##flavour), PROG_NAME(witness_rq_wakeup_new_##flavour), \
	PROG_NAME(witness_rq_switch_##flavour)
static const struct probe_candidate candidates[] = {
	{ ATTACH_TP_BTF, "task_storage",
	  { PROG_NAME(rq_wakeup_btf_task), PROG_NAME(rq_wakeup_new_btf_task), PROG_NAME(rq_switch_btf_task), RUNQ_WITNESSES(btf) },
	  { MAP_NAME(start_task) }, MODULE_WITNESSES(3) },
	{ ATTACH_TP_BTF, "pid_hash",
	  { PROG_NAME(rq_wakeup_btf_hash), PROG_NAME(rq_wakeup_new_btf_hash), PROG_NAME(rq_switch_btf_hash), RUNQ_WITNESSES(btf) },
	  { MAP_NAME(start_pid) }, MODULE_WITNESSES(3) },
	{ ATTACH_RAW_TP, "pid_hash",
	  { PROG_NAME(rq_wakeup_raw_hash), PROG_NAME(rq_wakeup_new_raw_hash), PROG_NAME(rq_switch_raw_hash), RUNQ_WITNESSES(raw) },
	  { MAP_NAME(start_pid) }, MODULE_WITNESSES(3) },
	{ ATTACH_TRACEPOINT, "pid_hash",
	  { PROG_NAME(rq_wakeup_tp_hash), PROG_NAME(rq_wakeup_new_tp_hash), PROG_NAME(rq_switch_tp_hash) }, { MAP_NAME(start_pid) } },
};

static const struct module_point points[] = {
	MODULE_POINT("sched_wakeup+sched_wakeup_new+sched_switch", candidates),
};

struct runqueue {
	bool per_cpu;
	bool behind;                 /* Behind: the per-cgroup waits split by who held the CPU */
	struct wait_behind *wb;      /* its reader, made at the first read with By "cgroup" */
	const struct cgroup_rows *wb_rows; /* the rows it was made for */
};

enum { FEATURE_PER_CPU = 1, FEATURE_BEHIND = 2 };

static const struct module_option options[] = {
	{ "PerCPU", MODOPT_BOOL, offsetof(struct runqueue, per_cpu) },
	{ "Behind", MODOPT_BOOL, offsetof(struct runqueue, behind) },
	CGROUP_HIST_OPTION_KEYS,
	CGROUP_PRESSURE_KEY,
	{ NULL },
};

static const char *const all[] = { "all" };
static const struct view_label labels[] = { ROW_LABEL("all", .names = all, .nnames = COUNT_OF(all)) };

static const struct view_field latency_fields[] = {
	{ "latency", VALUE_HISTOGRAM, 0, HIST_UNIT_NANOSECONDS },
};

static const struct view_row stat_rows[] = {
	{ RUNQ_STAT_START_LOST, "dropped", "start_lost", VIEW_ALWAYS },
	{ RUNQ_STAT_BEHIND_FULL, "dropped", "behind_full", VIEW_ALWAYS, FEATURE_BEHIND },
};

/* One row, system-wide ("all"); with PerCPU also each CPU's own row ("cpu<N>"). */
static const struct map_view views[] = {
	{ .map = MAP_NAME(latency), .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(struct hist_row), .nrows = 1,
	  VIEW_LABELLED_FIELDS(labels, latency_fields),
	  .per_cpu_feature = FEATURE_PER_CPU },
	{ VIEW_PERCPU_COUNTERS(MAP_NAME(stats), RUNQ_STAT_COUNT, stat_rows) },
	MODULE_CGROUP_FULL_VIEW, /* waits whose cgroup found no room */
};

static const char *all_row(const struct module *m, uint32_t row, char *buf, size_t len)
{
	return "all";
}

/* One histogram per cgroup, the host-wide row's ("all": ebpf-runqueue.<cgroup>/latency-all-99). */
static const struct cgroup_table cgroup_tables[] = {
	{ .map = MAP_NAME(cgroup_latency), .hist_metric = "latency", .unit = HIST_UNIT_NANOSECONDS, .nrows = 1,
	  .rows_per_cgroup = 1, .row_instance = all_row },
};
/* cgroup_pending: the classic tracepoint's waits held until their thread's cgroup can be read. */
static const char *const cgroup_aux_maps[] = { MODULE_CGROUP_AUX_MAPS, MAP_NAME(cgroup_pending), NULL };

/* Behind splits the per-cgroup rows' waits: By "cgroup" only (a command is no holder of a CPU
 * the way a cgroup is, and its waits are not a cgroup's). */
static int runqueue_check_config(struct module *m, char *err, size_t errlen)
{
	const struct runqueue *r = m->priv;

	if (r->behind && (!m->cgroup || !m->cgroup->opts.on || m->cgroup->opts.command)) {
		snprintf(err, errlen, "Behind splits each cgroup's waits by the cgroup that held the CPU, so it needs "
			 "By \"cgroup\"%s: add By \"cgroup\", or remove Behind",
			 m->cgroup && m->cgroup->opts.command ? " (not By \"command\")" : "");
		return -1;
	}
	return 0;
}

/* PerCPU true: the latency view's histograms per CPU too (its per_cpu_feature). */
static int runqueue_prepare(struct module *m, char *err, size_t errlen)
{
	const struct runqueue *r = m->priv;

	m->features = (r->per_cpu ? FEATURE_PER_CPU : 0) | (r->behind ? FEATURE_BEHIND : 0);
	return 0;
}

/* Behind's rodata and maps: made only with it, its table sized per cgroup the rows are. */
static int runqueue_configure(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	const struct runqueue *r = m->priv;
	bool *behind = MODULE_RODATA(obj, behind);
	struct bpf_map *cpus = MODULE_MAP(obj, behind_cpus), *counts = MODULE_MAP(obj, behind_counts);
	int e;

	if (!behind || !cpus || !counts)
		return module_hook_fail(err, errlen, "its BPF object lacks the runqueue module's Behind maps (a stale build?)");
	*behind = r->behind;
	e = bpf_map__set_autocreate(cpus, r->behind);
	if (!e)
		e = bpf_map__set_autocreate(counts, r->behind);
	if (!e && r->behind)
		e = bpf_map__set_max_entries(counts, CGROUP_ROWS_PER_SERIES * m->cgroup->opts.max_series *
							     BEHIND_ENTRIES_PER_CGROUP);
	if (e)
		return module_hook_fail(err, errlen, "cannot size the Behind maps: %s", strerror(-e));
	return 0;
}

static void behind_send(void *ctx, struct cgroup_group *g, const struct metric_sink *sink)
{
	wait_behind_send(ctx, g, sink);
}

/* The Behind reader, once the per-cgroup rows are there (they start after the module). */
static int runqueue_read(struct module *m, char *err, size_t errlen)
{
	struct runqueue *r = m->priv;
	struct bpf_map *counts;

	if (!r->behind || !m->cgroup->rows || r->wb_rows == m->cgroup->rows)
		return 0;
	wait_behind_free(r->wb);
	r->wb = NULL;
	r->wb_rows = m->cgroup->rows;
	counts = MODULE_MAP(m->obj, behind_counts);
	r->wb = counts ? wait_behind_new(m->label, bpf_map__fd(counts), bpf_map__max_entries(counts),
					 m->cgroup->opts.max_series, WAIT_BEHIND_TOP, err, errlen)
		       : NULL;
	if (!r->wb) {
		char why[ERR_MAX];

		snprintf(why, sizeof(why), "%s", counts ? err : "no map behind_counts");
		return module_hook_fail(err, errlen, "Behind: %s", why);
	}
	cgroup_rows_after_places(m->cgroup->rows, behind_send, r->wb);
	return 0;
}

static void runqueue_destroy(struct module *m)
{
	struct runqueue *r = m->priv;

	if (!r)
		return;
	wait_behind_free(r->wb);
	r->wb = NULL;
	r->wb_rows = NULL;
}

const struct module_ops runqueue_module = {
	.name = "runqueue",
	.description = "run-queue latency (wakeup to running), system-wide, per CPU and per cgroup",
	.witness_opt_in = true,
	.options = options,
	.priv_size = sizeof(struct runqueue),
	MODULE_OBJECT(runqueue),
	.cost_events = (const char *const[]){ "latency", NULL },
	/* Over its CpuBudget: waits sampled where they begin, then the wakeup programs detached
	 * (sched_switch still times the preempted threads' waits). */
	.cost_steps = &(const struct cost_steps){ 0, true, 1u << 0 | 1u << 1, "run-queue waits",
						  "sched_wakeup and sched_wakeup_new" },
	MODULE_CGROUP_TABLES(cgroup_tables, cgroup_aux_maps),
	.by_command = true,
	.cgroup_whose = " of the waiting thread",
	.cgroup_pressure = true,
	.check_config = runqueue_check_config,
	.prepare = runqueue_prepare,
	.configure = runqueue_configure,
	.read = runqueue_read,
	.destroy = runqueue_destroy,
};
