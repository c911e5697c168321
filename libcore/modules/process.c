/* The `process` module: fork/clone, exec and exit counts, and OOM kills. Each OOM victim
 * (pid and name) is logged at the next read: the BPF program reports it through a ring
 * buffer, which the read callback drains. Victims are log lines, not metric labels, so
 * a burst of kills cannot multiply the series. */
#include "libcore/engine/module.h"

#include "libcore/engine/log.h"
#include "libcore/engine/percpu_read.h"
#include "process.h"
#include "process.skel.h"
#include "libcore/kernel/tracepoint_btf.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct probe_candidate fork_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "fork_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "fork_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "fork_tp" }, { NULL } },
};

static const struct probe_candidate exec_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "exec_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "exec_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "exec_tp" }, { NULL } },
};

static const struct probe_candidate exit_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "exit_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "exit_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "exit_tp" }, { NULL } },
};

static const struct probe_candidate victim_candidates[] = {
	{ ATTACH_TP_BTF, NULL, { "victim_btf" }, { NULL } },
	{ ATTACH_RAW_TP, NULL, { "victim_raw" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "victim_tp" }, { NULL } },
};

enum { POINT_FORK, POINT_EXEC, POINT_EXIT, POINT_VICTIM, NPOINTS };

struct process {
	struct process_bpf *skel;
	uint32_t filter_tgid;
	bool victim_arg_is_task;
	const char *label;
	struct probe_point points[NPOINTS];
	struct percpu_reader counts_reader;
	uint64_t counts[PROC_COUNT];
	struct ring_buffer *oom_rb;
};

static const char *const option_names[] = { NULL };

static int process_create(struct module *m)
{
	struct process *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->points[POINT_FORK] = (struct probe_point){
		.name = "sched_process_fork", .candidates = fork_candidates, .ncandidates = 3, .chosen = -1 };
	p->points[POINT_EXEC] = (struct probe_point){
		.name = "sched_process_exec", .candidates = exec_candidates, .ncandidates = 3, .chosen = -1 };
	p->points[POINT_EXIT] = (struct probe_point){
		.name = "sched_process_exit", .candidates = exit_candidates, .ncandidates = 3, .chosen = -1 };
	p->points[POINT_VICTIM] = (struct probe_point){
		.name = "mark_victim", .candidates = victim_candidates, .ncandidates = 3, .chosen = -1 };
	for (int i = 0; i < NPOINTS; i++)
		p->points[i].enabled = true;
	p->label = m->label;
	m->priv = p;
	m->probes.points = p->points;
	m->probes.npoints = NPOINTS;
	return 0;
}

static int process_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	return 0; /* no options of its own */
}

static struct bpf_object *open_object(void *ctx)
{
	struct process *p = ctx;

	p->skel = process_bpf__open();
	if (!p->skel)
		return NULL;
	p->skel->rodata->filter_tgid = p->filter_tgid;
	p->skel->rodata->victim_arg_is_task = p->victim_arg_is_task;
	return p->skel->obj;
}

static int load_object(void *ctx)
{
	struct process *p = ctx;

	return process_bpf__load(p->skel);
}

static void close_object(void *ctx)
{
	struct process *p = ctx;

	process_bpf__destroy(p->skel);
	p->skel = NULL;
}

static int log_victim(void *ctx, void *data, size_t size)
{
	const struct process *p = ctx;
	const struct oom_victim_event *e = data;
	char comm[PROC_COMM_LEN + 1];

	if (size < sizeof(*e))
		return 0;
	memcpy(comm, e->comm, PROC_COMM_LEN);
	comm[PROC_COMM_LEN] = '\0';
	if (e->has_comm)
		ebpf_log(EBPF_LOG_WARNING, "%s: OOM kill: victim pid %u (%s)", p->label, e->pid, comm);
	else
		ebpf_log(EBPF_LOG_WARNING, "%s: OOM kill: victim pid %u (this kernel's mark_victim gives no name)",
			 p->label, e->pid);
	return 0;
}

static int process_start(struct module *m, char *err, size_t errlen)
{
	struct process *p = m->priv;
	struct probe_object po = { .ctx = p, .open = open_object, .load = load_object, .close = close_object };
	struct tracepoint_args args;
	int e;

	p->filter_tgid = m->filter_tgid;
	/* Recent mark_victim passes the task, older ones only its pid: BTF says which. */
	p->victim_arg_is_task = tracepoint_btf_args("mark_victim", &args) != 0 || args.nargs < 0 || args.is_pointer[0];
	if (probe_set_start(&m->probes, &po, err, errlen))
		return -1;
	e = percpu_reader_init(&p->counts_reader, bpf_map__fd(p->skel->maps.counts), PROC_COUNT, sizeof(uint64_t));
	if (e) {
		snprintf(err, errlen, "cannot set up the map reader: %s", strerror(-e));
		return -1;
	}
	p->oom_rb = ring_buffer__new(bpf_map__fd(p->skel->maps.oom_events), log_victim, p, NULL);
	if (!p->oom_rb) {
		snprintf(err, errlen, "cannot map the OOM event ring buffer: %s", strerror(errno));
		return -1;
	}
	ebpf_log(EBPF_LOG_INFO, "%s: counting forks, execs, exits and OOM kills%s", m->label,
		 p->filter_tgid ? " of one process and its children" : "");
	return 0;
}

static int process_read(struct module *m, const struct metric_sink *sink)
{
	static const char *const names[PROC_COUNT] = {
		[PROC_FORKS] = "forks", [PROC_EXECS] = "execs", [PROC_EXITS] = "exits",
		[PROC_THREAD_EXITS] = "thread_exits", [PROC_OOM_KILLS] = "oom_kills",
	};
	struct process *p = m->priv;
	int err, n;

	/* Victims first, so that the log line precedes the count that includes it. */
	n = ring_buffer__consume(p->oom_rb);
	if (n < 0)
		ebpf_log(EBPF_LOG_ERROR, "%s: reading the OOM event ring buffer failed: %s", m->label, strerror(-n));
	err = percpu_reader_read(&p->counts_reader, p->counts);
	if (err)
		return err;
	for (int i = 0; i < PROC_COUNT; i++)
		if (names[i] && p->counts[i]) /* only series with data */
			sink->counter(sink->ctx, names[i], "", p->counts[i]);
	/* Always sent, so that "nothing lost" is visible as a zero. */
	sink->counter(sink->ctx, "dropped", "oom_events", p->counts[PROC_OOM_EVENTS_LOST]);
	return 0;
}

static void process_destroy(struct module *m)
{
	struct process *p = m->priv;

	if (!p)
		return;
	probe_set_stop(&m->probes);
	ring_buffer__free(p->oom_rb); /* NULL-safe; before the map it maps goes away */
	if (p->skel)
		close_object(p);
	percpu_reader_free(&p->counts_reader);
	free(p);
	m->priv = NULL;
}

const struct module_ops process_module = {
	.name = "process",
	.description = "fork, exec and exit counts; OOM kills with the victim in the log",
	.in_default_set = false,
	.option_names = option_names,
	.create = process_create,
	.set_option = process_set_option,
	.start = process_start,
	.read = process_read,
	.destroy = process_destroy,
};
