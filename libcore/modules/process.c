/* The `process` module: fork/clone, exec and exit counts, and OOM kills. Each OOM victim
 * (pid and name) is logged at the next read: the BPF program reports it through a ring
 * buffer, which the read callback drains. Victims are log lines, not metric labels, so
 * a burst of kills cannot multiply the series. */
#include "libcore/engine/module.h"

#include "libcore/engine/log.h"
#include "libcore/kernel/tracepoint_btf.h"
#include "process.h"
#include "process.skel.h"

#include <errno.h>
#include <string.h>

static const struct probe_candidate fork_candidates[] = TRACEPOINT_CANDIDATES("fork");

static const struct probe_candidate exec_candidates[] = TRACEPOINT_CANDIDATES("exec");

static const struct probe_candidate exit_candidates[] = TRACEPOINT_CANDIDATES("exit");

static const struct probe_candidate victim_candidates[] = TRACEPOINT_CANDIDATES("victim");

static const struct module_point points[] = {
	MODULE_POINT("sched_process_fork", fork_candidates),
	MODULE_POINT("sched_process_exec", exec_candidates),
	MODULE_POINT("sched_process_exit", exit_candidates),
	MODULE_POINT("mark_victim", victim_candidates),
};

struct process {
	bool victim_arg_is_task;
};

static int log_victim(void *ctx, void *data, size_t size)
{
	const struct module *m = ctx;
	const struct oom_victim_event *e = data;
	char comm[PROC_COMM_LEN + 1];

	if (size < sizeof(*e))
		return 0;
	memcpy(comm, e->comm, PROC_COMM_LEN);
	comm[PROC_COMM_LEN] = '\0';
	if (e->has_comm)
		ebpf_log(EBPF_LOG_WARNING, "%s: OOM kill: victim pid %u (%s)", m->label, e->pid, comm);
	else
		ebpf_log(EBPF_LOG_WARNING, "%s: OOM kill: victim pid %u (this kernel's mark_victim gives no name)",
			 m->label, e->pid);
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
	{ .map = "oom_events", .shape = VIEW_RINGBUF, .record = log_victim, .ring_name = "OOM event" },
	{ .map = "counts", .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(uint64_t), .nrows = PROC_COUNT,
	  .rows = count_rows, .nrows_view = COUNT_OF(count_rows) },
};

/* Recent mark_victim passes the task, older ones only its pid: BTF says which. */
static int process_prepare(struct module *m, char *err, size_t errlen)
{
	struct process *p = m->priv;
	struct tracepoint_args args;

	p->victim_arg_is_task = tracepoint_btf_args("mark_victim", &args) != 0 || args.nargs < 0 || args.is_pointer[0];
	return 0;
}

static int process_configure(struct module *m, struct bpf_object *obj)
{
	const struct process *p = m->priv;
	bool *victim_arg_is_task = module_rodata(obj, "victim_arg_is_task", sizeof(bool));

	if (!victim_arg_is_task)
		return -ENOENT;
	*victim_arg_is_task = p->victim_arg_is_task;
	return 0;
}

static int process_start(struct module *m, char *err, size_t errlen)
{
	ebpf_log(EBPF_LOG_INFO, "%s: counting forks, execs, exits and OOM kills%s", m->label,
		 m->filter_tgid ? " of one process and its children" : "");
	return 0;
}

const struct module_ops process_module = {
	.name = "process",
	.description = "fork, exec and exit counts; OOM kills with the victim in the log",
	.priv_size = sizeof(struct process),
	MODULE_OBJECT(process),
	.prepare = process_prepare,
	.configure = process_configure,
	.start = process_start,
};
