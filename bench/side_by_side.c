#include "side_by_side.h"

#include "base/log.h"
#include "libcore/engine/cost_window.h"
#include "libcore/engine/libbpf_log.h"
#include "libcore/engine/map_layout.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/privileges.h"
#include "base/text_append.h"
#include "measure.h"
#include "base/err_max.h"

#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The fastest of many short batches. A probe costs the same on every call, while other
 * load (preemption, interrupts, a busy sibling CPU) only ever adds time: the fastest batch
 * is the one it touched least. Short batches make untouched ones likely. */
static double fastest(const struct side_by_side *s)
{
	double batch[SBS_MAX_BATCHES];

	s->batch(s->ctx); /* warm-up: caches, the task's storage slot, the device */
	for (int i = 0; i < s->batches; i++)
		batch[i] = s->batch(s->ctx);
	return min_of(batch, s->batches);
}

/* One configuration for one round. Its added cost is taken against no-probe batches run
 * right before it, not against the no-probe row of the round: on a busy or throttling
 * machine the baseline drifts within a round, and an added cost can be small. */
static int measure(struct side_by_side *s, int c, int round)
{
	int others = foreign_tracepoint_links(s->tracepoints); /* before we attach: not ours */
	double before = c == 0 ? 0 : fastest(s);
	int r = c == 0 ? SBS_ATTACHED : s->attach(s->ctx, c, round);

	if (r == SBS_ATTACHED) {
		s->ns[c][round] = fastest(s);
		s->added[c][round] = c == 0 ? 0 : s->ns[c][round] - before;
	} else if (r == SBS_LEFT_OUT) {
		s->left_out[c] = true;
	}
	s->detach(s->ctx);
	s->measurements++;
	if (others || foreign_tracepoint_links(s->tracepoints))
		s->foreign++;
	return r == SBS_FAILED ? -1 : 0;
}

/* Every round runs every configuration, starting one further along each time, so that
 * drift (thermal, other load) spreads over all of them instead of hitting one. */
int sbs_run(struct side_by_side *s)
{
	for (int r = 0; r < s->rounds; r++)
		for (int k = 0; k < s->ncfg; k++) {
			int c = (k + r) % s->ncfg;

			if (!s->left_out[c] && measure(s, c, r))
				return -1;
		}
	return 0;
}

void sbs_print_table(const struct side_by_side *s, const char *const *labels, const int *ref, const char *unit)
{
	int n = s->rounds;
	double base = median(s->ns[0], n);

	printf("   %-40s %9s  %17s  %9s  %9s  %s\n", "config", unit, "min .. max", "added ns", "x no-probe",
	       "added vs");
	for (int c = 0; c < s->ncfg; c++) {
		double v, added;

		if (s->left_out[c])
			continue;
		v = median(s->ns[c], n);
		added = median(s->added[c], n);
		printf("   %-40s %9.1f  %7.1f .. %7.1f", labels[c], v, min_of(s->ns[c], n), max_of(s->ns[c], n));
		if (c == 0) {
			printf("  %9s  %9s\n", "-", "-");
			continue;
		}
		printf("  %9.1f  %8.2fx", added, v / base);
		if (ref[c] >= 0 && !s->left_out[ref[c]]) {
			double ref_added = median(s->added[ref[c]], n);

			/* Noise can put a small added cost at or below zero: no ratio then. */
			if (ref_added > 0)
				printf("  %5.2fx %s", added / ref_added, labels[ref[c]]);
			else
				printf("  %6s %s", "n/a", labels[ref[c]]);
		}
		printf("\n");
	}
}

void sbs_warn_foreign(const struct side_by_side *s, const char *where)
{
	if (s->foreign)
		printf("\nWARNING: in %d of %d measurements, other BPF programs were attached to\n"
		       "%s; those include their cost. Rerun on a quiet machine.\n",
		       s->foreign, s->measurements, where);
}

void bench_quiet_log(enum ebpf_log_level level, const char *msg)
{
	if (level <= EBPF_LOG_WARNING)
		fprintf(stderr, "ebpf: %s\n", msg);
}

void module_methods(const struct module *m, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < m->probes.npoints; i++) {
		char one[64];

		if (m->probes.points[i].enabled)
			text_appendf(buf, len, &used, "%s%s", used ? ", " : "",
				     probe_point_method(&m->probes.points[i], one, sizeof(one)));
	}
}

int bench_stats_setup(const char *bench)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!privileges_sufficient() || geteuid() != 0) {
		fprintf(stderr, "%s: needs root (the run-time statistics need CAP_SYS_ADMIN): sudo make bench\n", bench);
		return 1;
	}
	ebpf_log_set_handler(bench_quiet_log);
	ebpf_log_capture_libbpf();
	return 0;
}

int bench_start_cost_windows(struct module *m, const char *name, double period)
{
	char err[ERR_MAX];

	if (!m || bench_start_in_layout(m, LAYOUT_HERE)) {
		fprintf(stderr, "%s did not start%s%s\n", name, m ? ": " : "", m ? m->last_error : "");
		module_free(m);
		return -1;
	}
	if (cost_window_configure(period, err, sizeof(err))) {
		fprintf(stderr, "cost window: %s\n", err);
		module_free(m);
		return -1;
	}
	return 0;
}

int bench_set_option(struct module *m, const char *key, struct opt_value v)
{
	struct option o = { .key = key, .values = &v, .nvalues = 1 };
	char err[ERR_MAX];

	if (module_set_option(m, &o, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", key, err);
		return -1;
	}
	return 0;
}

int bench_start_in_layout(struct module *m, enum bench_layout layout)
{
	/* The planner's inputs, read when the object is opened, before load. */
	m->layout = (struct map_layout_input){ .as_declared = layout == LAYOUT_BEFORE,
					       .possible_cpus = layout == LAYOUT_MANY_CPUS ? BENCH_MANY_CPUS : 0 };
	return module_start(m);
}

void module_layout(const struct module *m, char *buf, size_t len)
{
	struct bpf_map *map;
	size_t used = 0;

	buf[0] = '\0';
	if (!m->obj)
		return;
	bpf_object__for_each_map(map, m->obj) {
		enum bpf_map_type t = bpf_map__type(map);

		/* Only what map_layout.h chooses between: not .rodata and the like, nor a map left
		 * out (autocreate off), which is not made. */
		if ((t != BPF_MAP_TYPE_PERCPU_ARRAY && t != BPF_MAP_TYPE_ARRAY) || !bpf_map__autocreate(map) ||
		    strchr(bpf_map__name(map), '.'))
			continue;
		text_appendf(buf, len, &used, "%s%s %s", used ? ", " : "", bpf_map__name(map),
			     t == BPF_MAP_TYPE_PERCPU_ARRAY ? "per-CPU" : "shared");
	}
}
