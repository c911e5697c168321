#include "libcore/engine/cost_control.h"

#include "base/log.h"
#include "libcore/engine/cost_governor.h"
#include "libcore/engine/cost_window.h"
#include "libcore/engine/cpu_budget.h"
#include "libcore/engine/module.h"
#include "include/sampling.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cost_control {
	struct governor gov;
	struct governor_rule rule;
	bool changed;              /* a step was taken: costs count once a window measured it */
	bool repricing;            /* the first read over awaits its window (cost_control_read) */
	uint64_t windows_at_change;
	int sampling_fd;           /* the module's `sampling` map, -1: none */
	struct probe_point *point; /* where it samples and sheds */
};

static double default_budget;

void cost_control_default_budget(double ns_per_s)
{
	default_budget = ns_per_s;
}

double cost_control_budget(const struct module *m)
{
	return m->cpu_budget ? m->cpu_budget : default_budget;
}

/* The steps m's descriptor offers and its configuration enables. */
static struct probe_point *steps_point(const struct module *m)
{
	const struct cost_steps *s = m->ops->cost_steps;

	if (!s || s->point < 0 || s->point >= m->probes.npoints || !m->probes.points[s->point].enabled)
		return NULL;
	return &m->probes.points[s->point];
}

static int sampling_map_fd(const struct module *m)
{
	struct bpf_map *map = m->probes.obj ? bpf_object__find_map_by_name(m->probes.obj, "sampling") : NULL;

	return map ? bpf_map__fd(map) : -1;
}

void cost_control_start(struct module *m)
{
	double budget = cost_control_budget(m);
	struct cost_control *c;

	if (budget <= 0 || !m->probes.obj || !(c = calloc(1, sizeof(*c))))
		return;
	governor_init(&c->gov);
	c->rule.budget = budget;
	c->sampling_fd = -1;
	c->point = steps_point(m);
	if (c->point) {
		const struct cost_steps *s = m->ops->cost_steps;

		if (s->sampling && (c->sampling_fd = sampling_map_fd(m)) >= 0)
			c->rule.max_shift = SAMPLE_SHIFT_MAX;
		c->rule.can_shed = s->shed != 0;
	}
	m->cost = c;
}

void cost_control_stop(struct module *m)
{
	free(m->cost);
	m->cost = NULL;
}

/* The shift into every CPU's copy of the one element (its tick restarts at 0). */
static int write_shift(int fd, unsigned int shift)
{
	int ncpus = libbpf_num_possible_cpus();
	struct sample_state *v;
	uint32_t zero = 0;
	int r;

	if (ncpus <= 0)
		return -EINVAL;
	v = calloc((size_t)ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < ncpus; i++)
		v[i].shift = shift;
	r = bpf_map_update_elem(fd, &zero, v, BPF_ANY) ? -errno : 0;
	free(v);
	return r;
}

/* Detaches (on) or attaches again (off) the programs the descriptor sheds. */
static int shed(struct module *m, struct cost_control *c, bool on)
{
	uint32_t mask = m->ops->cost_steps->shed;
	int r = 0;

	for (int k = 0; k < PROBE_MAX_PROGS; k++) {
		if (!(mask & (1u << k)))
			continue;
		if (on)
			probe_point_detach_prog(c->point, k);
		else if (!r)
			r = probe_point_reattach_prog(&m->probes, c->point, k);
	}
	return r;
}

int cost_control_sample(struct module *m, unsigned int shift)
{
	int fd = sampling_map_fd(m);

	if (fd < 0)
		return -ENOENT;
	return shift > SAMPLE_SHIFT_MAX ? -EINVAL : write_shift(fd, shift);
}

static unsigned int shift_of(const struct cost_control *c, int level)
{
	return (unsigned int)(level < c->rule.max_shift ? level : c->rule.max_shift);
}

/* Runs m at level `to` coming from `from`. 0 or -errno. */
static int apply(struct module *m, struct cost_control *c, int from, int to)
{
	int top = c->rule.max_shift;

	if (c->rule.can_shed && from > top && to <= top) {
		int r = shed(m, c, false);

		if (r)
			return r;
	}
	if (c->rule.can_shed && to > top)
		return shed(m, c, true);
	return c->sampling_fd >= 0 ? write_shift(c->sampling_fd, shift_of(c, to)) : 0;
}

static void say(struct module *m, const struct cost_control *c, enum governor_action a, double cost, int failed)
{
	const struct cost_steps *s = m->ops->cost_steps;
	enum ebpf_event_severity sev = EBPF_EVENT_WARNING;
	char budget[64], now[160], msg[512];
	unsigned int n = 1u << shift_of(c, c->gov.level);
	int top = c->rule.max_shift;

	cpu_budget_text(c->rule.budget, budget, sizeof(budget));
	if (c->gov.level > top)
		snprintf(now, sizeof(now), "%s detached (%s sampled 1 in %u before), the rest runs", s->shed_what,
			 s->what, n);
	else if (c->gov.level > 0)
		snprintf(now, sizeof(now), "%s sampled 1 in %u, counts exact, its histograms scaled by %u", s->what, n, n);
	else if (c->point && top)
		snprintf(now, sizeof(now), "%s measured 1 in 1 again", s->what);
	else
		snprintf(now, sizeof(now), "nothing of it to sample or detach");
	switch (a) {
	case GOVERNOR_DOWN:
		snprintf(msg, sizeof(msg), "module \"%s\" costs %.3g%% of one CPU, over its CpuBudget %s: %s", m->label,
			 cost / 1e7, budget, now);
		break;
	case GOVERNOR_UP:
		snprintf(msg, sizeof(msg), "module \"%s\" costs %.3g%% of one CPU, under half its CpuBudget %s: %s",
			 m->label, cost / 1e7, budget, now);
		sev = c->gov.level ? EBPF_EVENT_WARNING : EBPF_EVENT_OKAY;
		break;
	case GOVERNOR_OVER:
		snprintf(msg, sizeof(msg), "module \"%s\" still costs %.3g%% of one CPU, over its CpuBudget %s: %s",
			 m->label, cost / 1e7, budget, now);
		break;
	default:
		snprintf(msg, sizeof(msg), "module \"%s\" costs %.3g%% of one CPU, back under its CpuBudget %s",
			 m->label, cost / 1e7, budget);
		sev = EBPF_EVENT_OKAY;
		break;
	}
	if (failed) {
		size_t l = strlen(msg);

		snprintf(msg + l, sizeof(msg) - l, "; but the step failed: %s", strerror(-failed));
		sev = EBPF_EVENT_FAILURE;
	}
	ebpf_log(sev == EBPF_EVENT_OKAY ? EBPF_LOG_NOTICE : EBPF_LOG_WARNING, "%s", msg);

	struct ebpf_event e;
	char text[32];

	ebpf_event_init(&e, EBPF_EVENT_MODULE_STATE, sev, "cost", "%s", msg);
	ebpf_event_add_text(&e, "state", module_state_name(m->state));
	ebpf_event_add_number(&e, "sample_rate", n);
	snprintf(text, sizeof(text), "%g", cost / 1e7);
	ebpf_event_add_text(&e, "cpu_cost", text);
	snprintf(text, sizeof(text), "%g", c->rule.budget / 1e7);
	ebpf_event_add_text(&e, "cpu_budget", text);
	ebpf_event_add_text(&e, "shed", c->gov.level > top ? "yes" : "no");
	module_event(m, &e);
}

void cost_control_read(struct module *m, const struct metric_sink *sink)
{
	struct cost_control *c = m->cost;
	struct cost_measure cm;
	enum governor_action a;
	double cost, judged;
	bool fresh;
	int from;

	if (!c)
		return;
	if (cost_window_last(m, &cost)) {
		fresh = !c->changed || (cost_window_measure(m, &cm) && cm.windows > c->windows_at_change);
		from = c->gov.level;
		judged = cost;
		if (fresh && c->repricing) {
			double first;

			/* this read's own cost is the window's, slowed by the statistics' tax: the
			 * first read over, priced by it, counts if higher */
			if (cost_window_repriced(m, &first) && first > judged)
				judged = first;
			c->repricing = false;
		}
		a = governor_read(&c->gov, &c->rule, judged, fresh);
		if (a == GOVERNOR_DOWN || a == GOVERNOR_UP) {
			int r = apply(m, c, from, c->gov.level);

			if (r) /* the step did not happen: stay, say so */
				c->gov.level = from;
			c->changed = true;
			c->repricing = false;
			c->windows_at_change = cost_window_renew(m);
			say(m, c, a, judged, r);
		} else if (a != GOVERNOR_HOLD) {
			say(m, c, a, judged, 0);
		} else if (fresh && c->gov.over == 1 && !c->gov.stepping && c->gov.level < governor_max_level(&c->rule)) {
			/* The first read over is priced by the last window, which may have measured
			 * another load (runqueue's price on an idle host put a storm at 3 to 4x its
			 * cost): a window of its own, which prices it again at the next read. */
			c->changed = true;
			c->repricing = true;
			c->windows_at_change = cost_window_renew(m);
		}
	}
	if (c->sampling_fd >= 0 && sink->gauge)
		sink->gauge(sink->ctx, METRIC("sample_rate"), "", (double)(1u << shift_of(c, c->gov.level)));
}

const char *cost_control_describe(const struct module *m, char *buf, size_t len)
{
	const struct cost_steps *s = m->ops->cost_steps;
	double budget = cost_control_budget(m);
	const struct probe_point *p = steps_point(m);
	char b[64];

	cpu_budget_text(budget, b, sizeof(b));
	if (budget <= 0)
		snprintf(buf, len, "CpuBudget off: its cost is only sent");
	else if (p && s->sampling && s->shed)
		snprintf(buf, len, "CpuBudget %s: samples %s 1 in 2 to 1 in %u, then detaches %s", b, s->what,
			 1u << SAMPLE_SHIFT_MAX, s->shed_what);
	else if (p && s->sampling)
		snprintf(buf, len, "CpuBudget %s: samples %s 1 in 2 to 1 in %u", b, s->what, 1u << SAMPLE_SHIFT_MAX);
	else if (p && s->shed)
		snprintf(buf, len, "CpuBudget %s: detaches %s", b, s->shed_what);
	else
		snprintf(buf, len, "CpuBudget %s: nothing to sample or detach, said when over", b);
	return buf;
}
