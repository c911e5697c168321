#include "libcore/engine/self_metrics.h"

#include "base/log.h"
#include "libcore/engine/cost_control.h"
#include "libcore/engine/cost_window.h"
#include "libcore/engine/map_layout.h"
#include "libcore/kernel/kretprobe_events.h"
#include "libcore/kernel/map_entries.h"
#include "libcore/kernel/prog_stats.h"
#include "libcore/engine/witness.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Set once at init, before any read callback runs, and cleared at shutdown after the last:
 * the reads only test it. */
static int stats_fd = -1;
static bool cost_on;

int self_metrics_cost_start(char *err, size_t errlen)
{
	int fd;

	if (cost_on)
		return 0;
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0) {
		int e = errno;

		if (bpf_stats_sysctl_on()) {
			ebpf_log(EBPF_LOG_NOTICE, "CollectCost: cannot hold the BPF run-time statistics on (%s), "
				 "but sysctl kernel.bpf_stats_enabled is 1: reporting the cost while it stays on",
				 strerror(e));
			cost_on = true;
			return 0;
		}
		snprintf(err, errlen, "CollectCost: cannot turn on the kernel's BPF run-time statistics: %s; "
			 "run collectd with CAP_SYS_ADMIN, or turn them on for the whole host with "
			 "sysctl kernel.bpf_stats_enabled=1 (or set CollectCost false)", strerror(e));
		return -1;
	}
	stats_fd = fd;
	cost_on = true;
	return 0;
}

void self_metrics_cost_stop(void)
{
	if (stats_fd >= 0)
		close(stats_fd);
	stats_fd = -1;
	cost_on = false;
}

bool self_metrics_cost_on(void)
{
	return cost_on;
}

/* The attach method of each probe point as a value, instance "<point>-<method>", value the
 * number of candidates that failed before it (0: the first choice). A kernel upgrade that
 * moves a module onto a fallback shows as a new series and a value above 0. ':' (as in
 * "kprobe:vfs_read") is written '_': rrdtool reads ':' as a separator. */
static void emit_attach_methods(const struct module *m, const struct metric_sink *sink)
{
	for (int i = 0; i < m->probes.npoints && sink->gauge; i++) {
		const struct probe_point *p = &m->probes.points[i];
		char method[96], instance[256];

		if (!p->enabled)
			continue;
		probe_point_method(p, method, sizeof(method));
		snprintf(instance, sizeof(instance), "%s-%s", p->name, method);
		for (char *c = instance; *c; c++)
			if (*c == ':' || *c == '/' || *c == ' ')
				*c = '_';
		sink->gauge(sink->ctx, METRIC("attach"), instance, __builtin_popcount(p->failed));
	}
}

/* Fill of every map of the object that can fill, and was created (a map only another
 * candidate uses is not). A map that cannot be counted now is left out of this read. */
static void emit_map_fill(const struct module *m, const struct metric_sink *sink)
{
	struct bpf_map *map;

	if (!sink->gauge)
		return;
	bpf_object__for_each_map(map, m->probes.obj) {
		uint32_t entries, max = bpf_map__max_entries(map);
		int fd = bpf_map__fd(map);

		if (!map_created(map) || !max || !map_type_can_fill(bpf_map__type(map)))
			continue;
		if (map_entries_count(fd, &entries))
			continue;
		sink->gauge(sink->ctx, METRIC("map_fill"), bpf_map__name(map), 100.0 * entries / max);
	}
}

/* Whether the kernel's charge for the map changes after creation: hashes that allocate
 * their elements as they are made (users' programs may have them). Every other map is
 * charged once, when it is created. */
static bool charge_varies(const struct bpf_map *map)
{
	enum bpf_map_type t = bpf_map__type(map);

	return (t == BPF_MAP_TYPE_HASH || t == BPF_MAP_TYPE_PERCPU_HASH) && (bpf_map__map_flags(map) & BPF_F_NO_PREALLOC);
}

/* Sums the charge of the object's created maps: the fixed ones (varying false) or the
 * varying ones. 0, or -errno if a map could not be asked. */
static int sum_charges(const struct module *m, bool varying, uint64_t *total)
{
	struct bpf_map *map;

	*total = 0;
	bpf_object__for_each_map(map, m->probes.obj) {
		uint64_t bytes;
		int e;

		/* Not created: a map only another candidate uses (map_created: libbpf 1.3+ keeps
		 * a placeholder fd for it). */
		if (!map_created(map) || charge_varies(map) != varying)
			continue;
		e = map_charged_bytes(bpf_map__fd(map), &bytes);
		if (e)
			return e;
		*total += bytes;
	}
	return 0;
}

void self_metrics_start(struct module *m)
{
	m->kernel_memory_fixed_ok = m->probes.obj && !sum_charges(m, false, &m->kernel_memory_fixed);
}

/* What the kernel charges for all the maps of the object (fdinfo memlock, as bpftool
 * shows it): the module's kernel memory, which no process's RSS shows. The fixed charges
 * were read once at start (reading /proc at every read would be file IO of the module's
 * own, which the vfs module would count); only charges that vary are read again. */
static void emit_kernel_memory(const struct module *m, const struct metric_sink *sink)
{
	uint64_t varying;

	if (!sink->gauge || !m->kernel_memory_fixed_ok || sum_charges(m, true, &varying))
		return;
	sink->gauge(sink->ctx, METRIC("kernel_memory"), "", (double)(m->kernel_memory_fixed + varying));
}

struct prog_totals {
	const struct metric_sink *sink;
	bool cost;
	uint64_t misses, run_time_ns;
};

static void on_prog(void *ctx, const struct prog_stats *s)
{
	struct prog_totals *t = ctx;

	t->misses += s->recursion_misses;
	t->run_time_ns += s->run_time_ns;
	if (t->cost) {
		t->sink->counter(t->sink->ctx, METRIC("runs"), s->name, s->runs);
		t->sink->counter(t->sink->ctx, METRIC("run_time"), s->name, s->run_time_ns);
	}
}

/* One pass over the programs: recursion misses always (sent even when 0, so that "none
 * lost" shows), run counts and times with CollectCost. */
static void emit_program_stats(const struct module *m, const struct metric_sink *sink)
{
	struct prog_totals t = { .sink = sink, .cost = cost_on };

	bpf_object_prog_stats(m->probes.obj, on_prog, &t);
	sink->counter(sink->ctx, METRIC("dropped"), "recursion", t.misses);
	if (t.cost) /* whole milliseconds of the cumulative total: no rounding error adds up */
		sink->counter(sink->ctx, METRIC("cpu_time_ms"), "", t.run_time_ns / 1000000);
}

/* Returns the kernel could not hand to the module's kretprobes (kretprobe_events.h),
 * summed; sent while the module has kretprobes the engine made, even when 0. */
static void emit_kretprobe_missed(const struct module *m, const struct metric_sink *sink)
{
	const char *names[m->probes.npoints * PROBE_MAX_PROGS + 1];
	uint64_t missed;
	int n = 0;

	for (int i = 0; i < m->probes.npoints; i++)
		for (int k = 0; k < PROBE_MAX_PROGS; k++)
			if (m->probes.points[i].kretprobe_events[k][0])
				names[n++] = m->probes.points[i].kretprobe_events[k];
	if (n && !kretprobe_events_missed(names, n, &missed))
		sink->counter(sink->ctx, METRIC("dropped"), "kretprobe_missed", missed);
}

/* The module's CPU cost per second in percent of one CPU, once a cost window priced it. */
static void emit_cpu_cost(struct module *m, const struct metric_sink *sink)
{
	double ns_per_s;

	if (cost_window_read(m, m->ops->cost_events != NULL, m->sinks.events, &ns_per_s) && sink->gauge)
		sink->gauge(sink->ctx, METRIC("cpu_cost"), "", ns_per_s / 1e7);
}

void self_metrics_read(struct module *m, const struct metric_sink *sink)
{
	if (m->probes.obj) {
		emit_cpu_cost(m, sink);
		cost_control_read(m, sink);
		emit_program_stats(m, sink);
		emit_kretprobe_missed(m, sink);
		witness_read(m->witness, m, sink);
	}
	emit_attach_methods(m, sink);
	if (m->probes.obj) {
		emit_map_fill(m, sink);
		emit_kernel_memory(m, sink);
	}
}
