/* The `syscalls` module: call and error counts per syscall (one sys_exit program), and
 * latency histograms for the syscalls the user lists (a sys_enter program too, so it is
 * opt-in: it costs about three times the counters). */
#include "libcore/engine/module.h"

#include "libcore/decode/syscall_names.h"
#include "libcore/engine/cgroup_slots.h"
#include "libcore/engine/module_cgroup.h"
#include "base/log.h"
#include "syscalls.h"
#include "syscalls.skel.h"

MODULE_SKELETON(syscalls);

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>

_Static_assert(SYSCALL_TABLE_SIZE == MAX_SYSCALLS, "name table and maps must agree");

/* Witnessed (witness.h) with `Witness true`: every syscall would run one more program. */
static const struct probe_candidate counter_candidates[] = WITNESSED_TRACEPOINT_CANDIDATES(count_exit);

/* Task storage first: no size limit, freed with the task. The tid hash is for kernels
 * where these program types cannot use task storage. The witnesses of both tracepoints
 * come last (bpf/syscalls.bpf.c). */
#define LATENCY_WITNESSES(flavour) PROG_NAME(witness_lat_enter_##flavour), PROG_NAME(witness_lat_exit_##flavour)
static const struct probe_candidate latency_candidates[] = {
	{ ATTACH_TP_BTF, "task_storage", { PROG_NAME(lat_enter_btf_task), PROG_NAME(lat_exit_btf_task), LATENCY_WITNESSES(btf) },
	  { MAP_NAME(start_task) }, MODULE_WITNESSES(2) },
	{ ATTACH_TP_BTF, "tid_hash", { PROG_NAME(lat_enter_btf_hash), PROG_NAME(lat_exit_btf_hash), LATENCY_WITNESSES(btf) },
	  { MAP_NAME(start_tid) }, MODULE_WITNESSES(2) },
	{ ATTACH_RAW_TP, "task_storage", { PROG_NAME(lat_enter_raw_task), PROG_NAME(lat_exit_raw_task), LATENCY_WITNESSES(raw) },
	  { MAP_NAME(start_task) }, MODULE_WITNESSES(2) },
	{ ATTACH_RAW_TP, "tid_hash", { PROG_NAME(lat_enter_raw_hash), PROG_NAME(lat_exit_raw_hash), LATENCY_WITNESSES(raw) },
	  { MAP_NAME(start_tid) }, MODULE_WITNESSES(2) },
	{ ATTACH_TRACEPOINT, "tid_hash", { PROG_NAME(lat_enter_tp_hash), PROG_NAME(lat_exit_tp_hash) }, { MAP_NAME(start_tid) } },
};

/* By "cgroup" or "command": the programs that keep each CPU's cached slot true
 * (bpf/include/cgroup_slot.bpf.h), all four of one method. */
#define SLOT_PROGS(flavour) { PROG_NAME(slot_switch_##flavour), PROG_NAME(slot_exec_##flavour), \
	PROG_NAME(slot_rename_##flavour), PROG_NAME(slot_attach_##flavour) }
static const struct probe_candidate slot_candidates[] = {
	{ ATTACH_TP_BTF, NULL, SLOT_PROGS(btf), { NULL } },
	{ ATTACH_RAW_TP, NULL, SLOT_PROGS(raw), { NULL } },
	{ ATTACH_TRACEPOINT, NULL, SLOT_PROGS(tp), { NULL } },
};

/* In the order of bpf/syscalls.h's enum syscalls_point: the points' rows of `witness`. */
static const struct module_point points[] = {
	[SYSCALLS_POINT_COUNTERS] = MODULE_POINT_OFF("sys_exit", counter_candidates),
	[SYSCALLS_POINT_LATENCY] = MODULE_POINT_OFF("sys_enter+sys_exit", latency_candidates),
	[SYSCALLS_POINT_SLOTS] = MODULE_POINT_OFF("sched_switch+exec+rename+cgroup_attach", slot_candidates),
};

struct syscalls {
	/* configuration */
	bool latency_all;
	bool latency_on[MAX_SYSCALLS];
	/* CgroupCalls: the syscalls whose per-cgroup counts are sent (default all; "latency":
	 * those of Latency) */
	bool cg_calls_set, cg_calls_latency;
	bool cg_calls_on[MAX_SYSCALLS];
	/* derived at start: row r of map `latency` holds syscall row_nr[r] */
	uint16_t nrows;
	uint16_t row_nr[MAX_SYSCALLS];
	/* By "cgroup": its tables (latency sized at prepare) and the rest */
	struct cgroup_table cg_tables[2];
};

static const struct module_option options[] = { { "Latency" }, CGROUP_HIST_OPTION_KEYS, { "CgroupCalls" }, { NULL } };

enum { FEATURE_LATENCY = 1 };

static const struct view_field count_fields[] = {
	{ "calls", VALUE_COUNTER, offsetof(struct syscall_counts, calls) },
	{ "errors", VALUE_COUNTER, offsetof(struct syscall_counts, errors) },
};

static const struct view_field latency_fields[] = {
	{ "latency", VALUE_HISTOGRAM, 0, HIST_UNIT_NANOSECONDS },
};

/* Self-metrics, always sent so that "nothing lost" is visible as a zero. */
static const struct view_row stat_rows[] = {
	{ SYSCALL_STAT_OUT_OF_RANGE, "dropped", "out_of_range", VIEW_ALWAYS },
	{ SYSCALL_STAT_START_LOST, "dropped", "start_lost", VIEW_ALWAYS, FEATURE_LATENCY },
};

/* Counts by syscall number; latency rows as assigned at start, named then. */
static const struct view_label count_labels[] = { ROW_LABEL("syscall", .decode = { "syscall" }) };
static const struct view_label latency_labels[] = { ROW_LABEL("syscall") };

enum { VIEW_COUNTS, VIEW_LATENCY, VIEW_STATS, VIEW_CGROUP_FULL };
static const struct map_view views[] = {
	/* Only series with data: a syscall nobody called has no file, no graph. Hot: every
	 * syscall of every CPU adds to it (map_layout.h). */
	[VIEW_COUNTS] = { .map = MAP_NAME(counts), .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(struct syscall_counts),
			  .nrows = MAX_SYSCALLS, VIEW_LABELLED_FIELDS(count_labels, count_fields), .hot = true },
	/* Rows as assigned at start (nrows = the map's size). */
	[VIEW_LATENCY] = { .map = MAP_NAME(latency), .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(struct hist_row),
			   .needs = FEATURE_LATENCY, VIEW_LABELLED_FIELDS(latency_labels, latency_fields) },
	[VIEW_STATS] = { VIEW_PERCPU_COUNTERS(MAP_NAME(stats), SYSCALL_STAT_COUNT, stat_rows) },
	[VIEW_CGROUP_FULL] = MODULE_CGROUP_FULL_VIEW,
};

/* A process calls a few dozen distinct syscalls: the count table is sized for this many per
 * cgroup (a cgroup calling more fills it sooner: cgroup_full counts what found no room). */
#define CGROUP_SYSCALL_ROWS 64

/* These never return to user space, so they have no sys_exit and no latency (and on the
 * thread-id hash fallback each would leave its start entry behind). By number: a name is
 * only one of the ways to say it ("exit_group", "sys_231"). */
static bool never_returns(unsigned int nr)
{
	return nr == SYS_exit || nr == SYS_exit_group;
}

/* A syscall named in option `key`: its number, or -1 with err (the names, or `or_words`). */
static int named_syscall(const char *key, const char *name, const char *or_words, char *err, size_t errlen)
{
	int nr = syscall_number(name);

	if (nr < 0)
		snprintf(err, errlen,
			 "%s: \"%s\" is not a syscall on this architecture; use names as in "
			 "<asm/unistd.h> without the __NR_ prefix (e.g. \"fsync\", \"read\"), or %s",
			 key, name, or_words);
	return nr;
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
		if ((nr = named_syscall("Latency", name, "\"all\"", err, errlen)) < 0)
			return -1;
		if (never_returns((unsigned int)nr)) {
			snprintf(err, errlen, "Latency: \"%s\" never returns, so it has no latency; remove it", name);
			return -1;
		}
		s->latency_on[nr] = true;
	}
	return 0;
}

/* CgroupCalls "all" | "latency" | name...: which syscalls' per-cgroup counts are sent. */
static int set_cgroup_calls(struct syscalls *s, const struct option *o, char *err, size_t errlen)
{
	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	s->cg_calls_set = true;
	for (int i = 0; i < o->nvalues; i++) {
		const char *name = o->values[i].string;
		int nr;

		if (!strcasecmp(name, "all")) {
			memset(s->cg_calls_on, 1, sizeof(s->cg_calls_on));
			continue;
		}
		if (!strcasecmp(name, "latency")) {
			s->cg_calls_latency = true;
			continue;
		}
		if ((nr = named_syscall("CgroupCalls", name, "\"latency\" (those of Latency) or \"all\"", err,
					errlen)) < 0)
			return -1;
		s->cg_calls_on[nr] = true;
	}
	return 0;
}

/* A per-cgroup count row's syscall; NULL (no series) for one CgroupCalls leaves out. */
static const char *count_row_name(const struct module *m, uint32_t row, char *buf, size_t len)
{
	const struct syscalls *s = m->priv;

	if (s->cg_calls_set && row < MAX_SYSCALLS && !s->cg_calls_on[row])
		return NULL;
	return syscall_name(row, buf, len);
}

/* A latency row's syscall: rows are assigned at start (row_nr). */
static const char *cgroup_latency_row_name(const struct module *m, uint32_t row, char *buf, size_t len)
{
	const struct syscalls *s = m->priv;

	return syscall_name(s->row_nr[row], buf, len);
}

static int syscalls_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "CgroupCalls"))
		return set_cgroup_calls(m->priv, o, err, errlen);
	return set_latency(m->priv, o, err, errlen); /* Latency: the other key not the engine's */
}

/* Assigns a `latency` map row to every syscall with latency enabled; counting alone needs
 * only sys_exit, latency both points. */
static int syscalls_prepare(struct module *m, char *err, size_t errlen)
{
	struct syscalls *s = m->priv;

	s->nrows = 0;
	for (unsigned int nr = 0; nr < MAX_SYSCALLS; nr++) {
		bool on = s->latency_on[nr];

		if (s->latency_all)
			on = syscall_table[nr] && !never_returns(nr);
		if (on)
			s->row_nr[s->nrows++] = nr;
		if (on && s->cg_calls_latency)
			s->cg_calls_on[nr] = true;
	}
	if (s->cg_calls_set && !m->cgroup->opts.on) {
		snprintf(err, errlen, "CgroupCalls chooses the per-cgroup counts, which By \"cgroup\" turns on: add "
				      "By \"cgroup\", or remove it");
		return -1;
	}
	m->probes.points[SYSCALLS_POINT_COUNTERS].enabled = s->nrows == 0;
	m->probes.points[SYSCALLS_POINT_LATENCY].enabled = s->nrows > 0;
	m->probes.points[SYSCALLS_POINT_SLOTS].enabled = m->cgroup->opts.on;
	m->features = s->nrows ? FEATURE_LATENCY : 0;
	s->cg_tables[0] = (struct cgroup_table){ .map = MAP_NAME(cgroup_counts), .fields = count_fields,
						 .nfields = COUNT_OF(count_fields), .nrows = MAX_SYSCALLS,
						 .rows_per_cgroup = CGROUP_SYSCALL_ROWS, .row_instance = count_row_name,
						 .row_label = "syscall", .slot_rows = MAP_NAME(slot_counts) };
	s->cg_tables[1] = (struct cgroup_table){ .map = MAP_NAME(cgroup_latency), .hist_metric = "latency",
						 .unit = HIST_UNIT_NANOSECONDS, .nrows = s->nrows,
						 .rows_per_cgroup = s->nrows, .row_instance = cgroup_latency_row_name,
						 .row_label = "syscall" };
	/* Without latency the latency table holds nothing: it is left out like the others. */
	module_cgroup_tables(m->cgroup, s->cg_tables, s->nrows ? 2 : 1, NULL);
	/* the latency maps are sized to them in configure */
	m->hist_rows = s->nrows;
	return 0;
}

static int syscalls_configure(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	struct syscalls *s = m->priv;
	uint16_t *latency_row = MODULE_RODATA_ARRAY(obj, latency_row);
	int e = 0;

	if (!latency_row)
		return module_hook_fail(err, errlen, "its BPF object lacks the syscalls module's rodata (a stale build?)");
	for (uint16_t r = 0; r < s->nrows; r++)
		latency_row[s->row_nr[r]] = r + 1;
	/* A latency table left out of the module's tables is not created (the engine sizes the
	 * others after this hook). */
	if (!s->nrows)
		e = bpf_map__set_autocreate(MODULE_MAP(obj, cgroup_latency), false);

	if (!e)
		e = bpf_map__set_max_entries(MODULE_MAP(obj, latency), s->nrows ? s->nrows : 1);
	return e ? module_hook_fail(err, errlen, "cannot size its maps: %s", strerror(-e)) : 0;
}

/* By "cgroup" or "command": every slot free before the programs attach. */
static int syscalls_loaded(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	return m->cgroup->opts.on ? cgroup_slots_fill(obj, err, errlen) : 0;
}

/* Each latency row's syscall name. */
static int name_latency_rows(struct module *m, char *err, size_t errlen)
{
	const struct syscalls *s = m->priv;
	char texts[MAX_SYSCALLS][32];
	const char *names[MAX_SYSCALLS];

	for (uint16_t r = 0; r < s->nrows; r++)
		names[r] = syscall_name(s->row_nr[r], texts[r], sizeof(texts[r]));
	return view_label_names(m, VIEW_LATENCY, 0, names, s->nrows, err, errlen);
}

static int syscalls_start(struct module *m, char *err, size_t errlen)
{
	struct syscalls *s = m->priv;

	if (name_latency_rows(m, err, errlen))
		return -1;
	ebpf_log(EBPF_LOG_INFO, "%s: counting every syscall%s, latency for %u syscall%s", m->label,
		 m->filter_tgid ? " of one process" : "", s->nrows, s->nrows == 1 ? "" : "s");
	return 0;
}

const struct module_ops syscalls_module = {
	.name = "syscalls",
	.description = "per-syscall call and error counts; latency histograms for the listed syscalls",
	.in_default_set = true,
	.witness_opt_in = true,
	.options = options,
	.priv_size = sizeof(struct syscalls),
	MODULE_OBJECT(syscalls),
	.cost_events = (const char *const[]){ "calls", NULL },
	/* Over its CpuBudget: Latency sampled at sys_enter, then sys_enter detached (the exit
	 * program counts on, and finds no start). */
	.cost_steps = &(const struct cost_steps){ SYSCALLS_POINT_LATENCY, true, 1u << 0, "Latency", "sys_enter" },
	MODULE_BY_CGROUP, /* its tables at prepare, sized from Latency */
	.by_command = true,
	.set_option = syscalls_set_option,
	.prepare = syscalls_prepare,
	.configure = syscalls_configure,
	.loaded = syscalls_loaded,
	.start = syscalls_start,
};
