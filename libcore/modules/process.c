/* The `process` module: fork/clone, exec and exit counts, and OOM kills. Each OOM victim
 * (pid, name, cgroups) is logged and sent as an oom_kill event (events.h) at the next
 * read: the BPF program reports it through a ring buffer, which the read callback drains.
 * Victims are log lines and events, not metric labels, so a burst of kills cannot multiply
 * the series; the events' rate limit keeps a storm to a bounded number of events with an
 * exact count. */
#include "libcore/engine/module.h"

#include "libcore/decode/cgroup_paths.h"
#include "libcore/engine/module_cgroup.h"
#include "base/log.h"
#include "libcore/kernel/tracepoint_btf.h"
#include "process.h"
#include "process.skel.h"
#include "base/err_max.h"

MODULE_SKELETON(process);

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct module_point points[] = {
	[PROC_POINT_FORK] = MODULE_WITNESSED_TRACEPOINT("sched_process_fork", fork),
	[PROC_POINT_EXEC] = MODULE_WITNESSED_TRACEPOINT("sched_process_exec", exec),
	[PROC_POINT_EXIT] = MODULE_WITNESSED_TRACEPOINT("sched_process_exit", exit),
	[PROC_POINT_VICTIM] = MODULE_WITNESSED_TRACEPOINT("mark_victim", victim),
};

struct process {
	bool victim_arg_is_task;
	struct cgroup_paths *cgroups; /* NULL without a cgroup2 mount: the events carry ids only */
};

static const struct module_option options[] = { CGROUP_OPTION_KEYS, { NULL } };


/* The cgroup2 path of id, NULL where it is gone, unknown or there is no cgroup2 mount. */
static const char *known_path(struct module *m, uint64_t id)
{
	struct process *p = m->priv;

	return p->cgroups && id ? cgroup_path(p->cgroups, id) : NULL;
}

/* A cgroup id and, where it still exists, its path. */
static void add_cgroup(struct module *m, struct ebpf_event *ev, const char *name, const char *id_name, uint64_t id)
{
	const char *path = known_path(m, id);

	if (!id)
		return;
	ebpf_event_add_number(ev, id_name, id);
	if (path)
		ebpf_event_add_text(ev, name, path);
}

/* The log line's cgroup: whoever greps the log sees which service lost a process. The path
 * is the cgroup2 one (ebpf_log escapes it as it does the name); its id where the path is
 * gone or there is no cgroup2 mount; nothing where the attach method gives no task. */
static void victim_cgroup(struct module *m, uint64_t id, char *out, size_t len)
{
	const char *path = known_path(m, id);

	if (path)
		snprintf(out, len, " in cgroup %s", path);
	else if (id)
		snprintf(out, len, " in cgroup id %llu (its path is gone, or there is no cgroup2 mount)",
			 (unsigned long long)id);
	else
		out[0] = '\0';
}

static int report_victim(void *ctx, void *data, size_t size)
{
	struct module *m = ctx;
	const struct oom_victim_event *e = data;
	char comm[PROC_COMM_LEN + 1];
	char where[PATH_MAX + 96];
	struct ebpf_event ev;

	if (size < sizeof(*e))
		return 0;
	memcpy(comm, e->comm, PROC_COMM_LEN);
	comm[PROC_COMM_LEN] = '\0';
	victim_cgroup(m, e->victim_cgroup, where, sizeof(where));
	if (e->has_comm)
		ebpf_log(EBPF_LOG_WARNING, "%s: OOM kill: victim pid %u (%s)%s", m->label, e->pid, comm, where);
	else
		ebpf_log(EBPF_LOG_WARNING, "%s: OOM kill: victim pid %u (this kernel's mark_victim gives no name)%s",
			 m->label, e->pid, where);
	ebpf_event_init(&ev, EBPF_EVENT_OOM_KILL, EBPF_EVENT_FAILURE, "",
			"OOM kill: victim pid %u (%s)", e->pid, e->has_comm ? comm : "name unknown");
	ebpf_event_add_number(&ev, "pid", e->pid);
	if (e->has_comm)
		ebpf_event_add_text(&ev, "name", comm);
	add_cgroup(m, &ev, "cgroup", "cgroup_id", e->victim_cgroup);
	add_cgroup(m, &ev, "trigger_cgroup", "trigger_cgroup_id", e->trigger_cgroup);
	module_event(m, &ev);
	return 0;
}

/* Only series with data; the lost events always, so that "nothing lost" is a zero. */
static const struct view_row count_rows[] = {
	{ PROC_FORKS, "forks", "" },
	{ PROC_EXECS, "execs", "" },
	{ PROC_EXITS, "exits", "" },
	{ PROC_THREAD_EXITS, "thread_exits", "" },
	{ PROC_OOM_KILLS, "oom_kills", "" },
	{ PROC_OOM_EVENTS_LOST, "dropped", "oom_events", VIEW_ALWAYS },
};

/* Victims first, so that the log line precedes the count that includes it. */
static const struct map_view views[] = {
	{ .map = MAP_NAME(oom_events), .shape = VIEW_RINGBUF, .record = report_victim, .ring_name = "OOM event" },
	{ VIEW_PERCPU_COUNTERS(MAP_NAME(counts), PROC_COUNT, count_rows) },
	MODULE_CGROUP_FULL_VIEW,
};

/* The per-cgroup counts: the rows of `counts` that a task's cgroup has (not the lost events). */
static const struct cgroup_table cgroup_tables[] = {
	{ .map = MAP_NAME(cgroup_counts), .rows = count_rows, .nrows_view = COUNT_OF(count_rows) - 1, .nrows = PROC_COUNT,
	  .rows_per_cgroup = PROC_OOM_KILLS + 1 },
};

/* Recent mark_victim passes the task, older ones only its pid: BTF says which. */
static int process_prepare(struct module *m, char *err, size_t errlen)
{
	struct process *p = m->priv;
	struct tracepoint_args args;

	p->victim_arg_is_task = tracepoint_btf_args("mark_victim", &args) != 0 || args.nargs < 0 || args.is_pointer[0];
	return 0;
}

static int process_configure(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	const struct process *p = m->priv;
	bool *victim_arg_is_task = MODULE_RODATA(obj, victim_arg_is_task);

	if (!victim_arg_is_task)
		return module_hook_fail(err, errlen, "its BPF object lacks the process module's rodata (a stale build?)");
	*victim_arg_is_task = p->victim_arg_is_task;
	return 0;
}

static int process_start(struct module *m, char *err, size_t errlen)
{
	struct process *p = m->priv;
	char why[ERR_MAX];

	p->cgroups = calloc(1, sizeof(*p->cgroups));
	if (p->cgroups && cgroup_paths_init(p->cgroups, NULL, why, sizeof(why))) {
		ebpf_log(EBPF_LOG_INFO, "%s: OOM kill events carry cgroup ids, not paths: %s", m->label, why);
		free(p->cgroups);
		p->cgroups = NULL;
	}
	ebpf_log(EBPF_LOG_INFO, "%s: counting forks, execs, exits and OOM kills%s", m->label,
		 m->filter_tgid ? " of one process and its children" : "");
	return 0;
}

static void process_destroy(struct module *m)
{
	struct process *p = m->priv;

	if (p && p->cgroups) {
		cgroup_paths_free(p->cgroups);
		free(p->cgroups);
		p->cgroups = NULL;
	}
}

const struct module_ops process_module = {
	.name = "process",
	.description = "fork, exec and exit counts; OOM kills with the victim in the log and as an event",
	.options = options,
	.priv_size = sizeof(struct process),
	MODULE_OBJECT(process),
	MODULE_CGROUP_TABLES(cgroup_tables, NULL),
	.by_command = true,
	.prepare = process_prepare,
	.configure = process_configure,
	.start = process_start,
	.destroy = process_destroy,
};
