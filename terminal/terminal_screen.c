#include "terminal/terminal_screen.h"

#include "base/text_append.h"
#include "base/label_value.h"
#include "terminal/hist_draw.h"
#include "terminal/log2_buckets.h"
#include "terminal/terminal_behind.h"
#include "terminal/terminal_cgroup.h"
#include "terminal/terminal_commands.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* As collectd names the series (base/value_naming.c, the plugin's own naming): a counter
 * "operations-fsync", "total_bytes-vda-write"; a histogram by the name its percentiles and
 * mean extend ("latency-fsync" for latency-fsync-50, "bytes-vda-write" for bytes-vda-write-50). */
void screen_series_name(enum screen_series kind, const char *metric, const char *instance, struct value_name *n)
{
	if (kind == SCREEN_HISTOGRAM)
		name_histogram(metric, NULL, instance, n);
	else
		name_counter(metric, NULL, instance, n);
}

static void series_text(char *buf, size_t len, enum screen_series kind, const char *metric, const char *instance)
{
	struct value_name n;

	screen_series_name(kind, metric, instance, &n);
	if (n.type_instance[0])
		snprintf(buf, len, "%s-%s", n.type, n.type_instance);
	else
		snprintf(buf, len, "%s", n.type);
}

bool screen_metric_selected(const struct screen_options *o, enum screen_series kind, const char *metric, const char *instance)
{
	struct value_name n;
	char name[2 * VALUE_NAME_LEN + 2];

	if (!o->metric_glob)
		return true;
	screen_series_name(kind, metric, instance, &n);
	series_text(name, sizeof(name), kind, metric, instance);
	return !fnmatch(o->metric_glob, n.type, 0) || !fnmatch(o->metric_glob, name, 0);
}

static bool module_selected(const struct screen_options *o, const char *label)
{
	return !o->module_glob || !fnmatch(o->module_glob, label, 0);
}

static const struct snapshot_module *find_module(const struct snapshot *s, const char *label)
{
	for (int i = 0; s && i < s->nmodules; i++)
		if (!strcmp(s->modules[i].label, label))
			return &s->modules[i];
	return NULL;
}

static const struct snapshot_histogram *find_histogram(const struct snapshot_module *m, const char *metric,
						       const char *instance)
{
	for (int i = 0; m && i < m->nhistograms; i++)
		if (!strcmp(m->histograms[i].metric, metric) && !strcmp(m->histograms[i].instance, instance))
			return &m->histograms[i];
	return NULL;
}

static const struct snapshot_counter *find_counter(const struct snapshot_module *m, const char *metric,
						   const char *instance)
{
	for (int i = 0; m && i < m->ncounters; i++)
		if (!strcmp(m->counters[i].metric, metric) && !strcmp(m->counters[i].instance, instance))
			return &m->counters[i];
	return NULL;
}

/* A module's own gauge (cpu_cost, sample_rate: an empty instance); NULL when it has none. */
static const struct snapshot_gauge *find_gauge(const struct snapshot_module *m, const char *metric)
{
	for (int i = 0; i < m->ngauges; i++)
		if (!strcmp(m->gauges[i].metric, metric) && !m->gauges[i].instance[0])
			return &m->gauges[i];
	return NULL;
}

static void clock_text(char *buf, size_t len, int64_t us)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "?");
}

/* The instance a series is shown with: in a cgroup's section the row without its cgroup,
 * as collectd's type instance has it (the cgroup is in the plugin_instance). */
static const char *shown_instance(const char *instance, const struct terminal_cgroup *cg)
{
	const char *row;

	if (cg)
		terminal_cgroup_split(instance, &row);
	return cg ? row : instance;
}

/* ---- histograms ------------------------------------------------------------------------------ */

/* prev_module NULL: since start. Returns false when the rows went backwards (restart). */
static bool draw_histogram(FILE *out, const struct snapshot_module *m, const struct snapshot_histogram *h,
			   const char *shown_instance, const struct snapshot_module *prev_module)
{
	const char *base_unit = snapshot_unit_name(h->unit);
	struct log2_buckets cur, prev, shown;
	struct display_unit unit;
	bool continuous = true;
	char name[2 * VALUE_NAME_LEN + 2];

	log2_buckets_fold(m, h, &cur);
	shown = cur;
	if (prev_module) {
		const struct snapshot_histogram *ph = find_histogram(prev_module, h->metric, h->instance);

		/* Only series with data are published: one missing before had no events yet. */
		memset(&prev, 0, sizeof(prev));
		if (ph)
			log2_buckets_fold(prev_module, ph, &prev);
		continuous = log2_buckets_delta(&cur, &prev, &shown);
	}
	unit = hist_draw_unit(base_unit, &shown);
	series_text(name, sizeof(name), SCREEN_HISTOGRAM, h->metric, shown_instance);
	fprintf(out, "\n  %s: %" PRIu64 " events", name, shown.total);
	if (shown.total)
		fprintf(out, ", mean %.4g %s", (double)shown.sum / (double)shown.total / unit.per, unit.name);
	fprintf(out, "%s\n", continuous ? "" : " (counts restarted: since the restart)");
	hist_draw(out, base_unit, &shown);
	return continuous;
}

/* ---- counters -------------------------------------------------------------------------------- */

struct counter_row {
	const struct snapshot_counter *c;
	uint64_t count;
};

static int busiest_first(const void *a, const void *b)
{
	const struct counter_row *x = a, *y = b;
	int d;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	d = strcmp(x->c->metric, y->c->metric);
	return d ? d : strcmp(x->c->instance, y->c->instance);
}

/* prev_module NULL: since start; seconds: the time the counts cover; cg NULL: every
 * counter, else that cgroup's. Returns the number of counters that passed the filters. */
static int draw_counters(FILE *out, const struct snapshot_module *m, const struct snapshot_module *prev_module,
			 double seconds, const struct screen_options *o, const struct terminal_cgroup *cg)
{
	int n = 0, shown, total = cg ? cg->ncounters : m->ncounters;
	struct counter_row *rows = calloc((size_t)total + 1, sizeof(*rows));

	if (!rows) {
		fprintf(out, "  (out of memory: counters not shown)\n");
		return 0;
	}
	for (int k = 0; k < total; k++) {
		const struct snapshot_counter *c = &m->counters[cg ? cg->counters[k] : k], *pc;

		if (!screen_metric_selected(o, SCREEN_COUNTER, c->metric, shown_instance(c->instance, cg)))
			continue;
		pc = prev_module ? find_counter(prev_module, c->metric, c->instance) : NULL;
		/* Backwards: the maps were recreated; the count is what the new ones hold. */
		rows[n].c = c;
		rows[n].count = pc && pc->value <= c->value ? c->value - pc->value : c->value;
		n++;
	}
	qsort(rows, (size_t)n, sizeof(*rows), busiest_first);
	shown = o->top > 0 && n > o->top ? o->top : n;
	if (n)
		fprintf(out, "\n  %12s %14s  counter\n", "per second", prev_module ? "count" : "since start");
	for (int i = 0; i < shown; i++) {
		char name[2 * VALUE_NAME_LEN + 2];

		series_text(name, sizeof(name), SCREEN_COUNTER, rows[i].c->metric,
			    shown_instance(rows[i].c->instance, cg));
		if (seconds > 0)
			fprintf(out, "  %12.1f %14" PRIu64 "  %s\n", (double)rows[i].count / seconds, rows[i].count, name);
		else
			fprintf(out, "  %12s %14" PRIu64 "  %s\n", "-", rows[i].count, name);
	}
	if (shown < n)
		fprintf(out, "  %12s %14s  ... %d more (--top 0 shows all)\n", "", "", n - shown);
	free(rows);
	return n;
}

/* A module's histograms, then its counters; cg NULL: all of them, else that cgroup's.
 * Returns how many passed the filters. */
static int draw_series(FILE *out, const struct snapshot_module *m, const struct snapshot_module *prev_module,
		       double seconds, const struct screen_options *o, const struct terminal_cgroup *cg)
{
	int matched = 0, total = cg ? cg->nhistograms : m->nhistograms;

	for (int k = 0; k < total; k++) {
		const struct snapshot_histogram *hist = &m->histograms[cg ? cg->histograms[k] : k];

		if (!screen_metric_selected(o, SCREEN_HISTOGRAM, hist->metric, shown_instance(hist->instance, cg)))
			continue;
		matched++;
		draw_histogram(out, m, hist, shown_instance(hist->instance, cg), prev_module);
	}
	return matched + draw_counters(out, m, prev_module, seconds, o, cg);
}

/* Does any of a cgroup's series pass the metric filter? Its section is drawn only then. */
static bool cgroup_has_series(const struct snapshot_module *m, const struct screen_options *o,
			      const struct terminal_cgroup *cg)
{
	for (int k = 0; k < cg->nhistograms; k++) {
		const struct snapshot_histogram *h = &m->histograms[cg->histograms[k]];

		if (screen_metric_selected(o, SCREEN_HISTOGRAM, h->metric, shown_instance(h->instance, cg)))
			return true;
	}
	for (int k = 0; k < cg->ncounters; k++) {
		const struct snapshot_counter *c = &m->counters[cg->counters[k]];

		if (screen_metric_selected(o, SCREEN_COUNTER, c->metric, shown_instance(c->instance, cg)))
			return true;
	}
	return false;
}

/* ---- the screen ------------------------------------------------------------------------------ */

/* What a module's values are subtracted from: nothing since start (NULL); in interval mode
 * its previous record, or an empty one when it had none or restarted (count from zero). */
static const struct snapshot_module *base_of(const struct snapshot *prev, const struct snapshot_module *pm)
{
	static const struct snapshot_module empty;

	return !prev ? NULL : pm ? pm : &empty;
}

static bool has_values(const struct snapshot_module *m)
{
	return m->ncounters || m->nhistograms;
}

#define TERMINAL_CGROUP_CHOICES 20

/* The cgroups a module has rows of (By "cgroup"), the first TERMINAL_CGROUP_CHOICES by name. */
static void draw_cgroup_choices(FILE *out, const struct snapshot_module *m)
{
	struct terminal_cgroup *cgroups;
	int n;

	if (terminal_cgroup_list(m, "*", &cgroups, &n) || !n)
		return;
	fprintf(out, "    cgroups (--cgroup):");
	for (int i = 0; i < n && i < TERMINAL_CGROUP_CHOICES; i++)
		fprintf(out, " %s", cgroups[i].name);
	if (n > TERMINAL_CGROUP_CHOICES)
		fprintf(out, " ... %d more", n - TERMINAL_CGROUP_CHOICES);
	fprintf(out, "\n");
	terminal_cgroup_free(cgroups, n);
}

/* What the snapshot holds, for a filter that matched nothing. */
static void draw_choices(FILE *out, const struct snapshot *cur)
{
	fprintf(out, "\nnothing matches the filters. In this snapshot:\n");
	for (int i = 0; i < cur->nmodules; i++) {
		const struct snapshot_module *m = &cur->modules[i];

		if (!has_values(m))
			continue;
		struct value_name n = { .type = "operations" };

		fprintf(out, "  --module %s: histograms", m->label);
		for (int h = 0; h < m->nhistograms; h++) {
			char name[2 * VALUE_NAME_LEN + 2];

			series_text(name, sizeof(name), SCREEN_HISTOGRAM, m->histograms[h].metric, m->histograms[h].instance);
			fprintf(out, " %s", name);
		}
		if (m->ncounters)
			screen_series_name(SCREEN_COUNTER, m->counters[0].metric, m->counters[0].instance, &n);
		fprintf(out, "; %d counters (e.g. --metric '%s-*')\n", m->ncounters, n.type);
		draw_cgroup_choices(out, m);
	}
}

static void draw_title(FILE *out, const char *path, const struct snapshot *cur, const struct snapshot *prev)
{
	char written[16], from[16];

	clock_text(written, sizeof(written), cur->written_us);
	if (prev) {
		clock_text(from, sizeof(from), prev->written_us);
		fprintf(out, "collectd-ebpf-hist: %s, last %.1f s (snapshots of %s to %s)\n", path,
			(double)(cur->written_us - prev->written_us) / 1e6, from, written);
	} else {
		fprintf(out, "collectd-ebpf-hist: %s, written %s, since each module started\n", path, written);
	}
}

/* Off modules: one line each for the ones that failed, a list of the rest (off). */
static void note_off_module(FILE *out, const struct snapshot_module *m, char *off, size_t offlen, size_t *off_used)
{
	if (m->state == SNAPSHOT_STATE_DISABLED)
		text_appendf(off, offlen, off_used, "%s%s", *off_used ? ", " : "", m->label);
	else
		fprintf(out, "\n== %s: %s: %s\n", m->label, snapshot_state_name(m->state), m->error);
}

/* The seconds m's values were counted over, and through *pm its record in prev to
 * subtract (NULL: none, everything since it started). */
static double module_interval(const struct snapshot *cur, const struct snapshot *prev,
			      const struct snapshot_module *m, const struct snapshot_module **pm, bool *restarted)
{
	*pm = NULL;
	*restarted = false;
	if (!prev)
		return (double)(cur->written_us - m->discontinuity_us) / 1e6;
	*pm = find_module(prev, m->label);
	/* Restarted in between: everything counted since the restart. A record without values
	 * (the one published before the module's first read) is no restart: counting simply
	 * starts. */
	if (*pm && (*pm)->discontinuity_us != m->discontinuity_us) {
		*restarted = has_values(*pm);
		*pm = NULL;
	}
	return *pm ? (double)(cur->written_us - prev->written_us) / 1e6
		   : (double)(cur->written_us - m->discontinuity_us) / 1e6;
}

/* The module's line: its state, since when it counts, what it costs the host (its cpu_cost,
 * percent of one CPU, as of the last read) and, while the cost governor samples it, 1 in N
 * (its sample_rate: its histograms are then estimates scaled by N). */
static void draw_module_header(FILE *out, const struct snapshot_module *m, bool restarted)
{
	const struct snapshot_gauge *cost = find_gauge(m, "cpu_cost"), *rate = find_gauge(m, "sample_rate");
	char since[16];

	clock_text(since, sizeof(since), m->discontinuity_us);
	fprintf(out, "\n== %s: %s, counting since %s%s", m->label, snapshot_state_name(m->state), since,
		restarted ? " (restarted in this interval)" : "");
	if (cost)
		fprintf(out, ", costs %.3g%% of one CPU", cost->value);
	if (rate && rate->value > 1)
		fprintf(out, ", sampled 1 in %.0f (histograms scaled by %.0f)", rate->value, rate->value);
	fprintf(out, "\n");
	if (m->error[0])
		fprintf(out, "   %s\n", m->error);
}

/* --cgroup: a section per matching cgroup that has a series passing the metric filter. */
static int draw_cgroups(FILE *out, const struct snapshot_module *m, const struct snapshot_module *base,
			double seconds, const struct screen_options *o, const struct terminal_cgroup *cgroups, int ncgroups)
{
	int matched = 0;

	for (int c = 0; c < ncgroups; c++) {
		char plugin_instance[2 * LABEL_VALUE_MAX + 2], safe[LABEL_VALUE_MAX];

		if (!cgroup_has_series(m, o, &cgroups[c]))
			continue;
		/* As the plugin names it (scope_plugin_instance() in plugin/ebpf.c). */
		snprintf(plugin_instance, sizeof(plugin_instance), "%s.%s", m->label, cgroups[c].name);
		fprintf(out, "\n-- cgroup %s: collectd's ebpf-%s/...\n", cgroups[c].name,
			label_value_safe(plugin_instance, safe));
		matched += draw_series(out, m, base, seconds, o, &cgroups[c]);
		terminal_behind_draw(out, m, base, &cgroups[c]);
	}
	return matched;
}

/* A module with values: its header and series; the number of series that matched. */
static int draw_module(FILE *out, const struct snapshot_module *m, const struct snapshot *cur,
		       const struct snapshot *prev, const struct screen_options *o)
{
	const struct snapshot_module *pm;
	bool restarted;
	double seconds;
	struct terminal_cgroup *cgroups = NULL;
	int ncgroups = 0, matched;

	/* With --cgroup, a module without a row of a matching cgroup is not drawn. */
	if (o->cgroup_glob) {
		if (terminal_cgroup_list(m, o->cgroup_glob, &cgroups, &ncgroups)) {
			fprintf(out, "\n== %s: (out of memory: its cgroups not shown)\n", m->label);
			return 0;
		}
		if (!ncgroups)
			return 0;
	}
	seconds = module_interval(cur, prev, m, &pm, &restarted);
	draw_module_header(out, m, restarted);
	if (!o->cgroup_glob) {
		terminal_commands_draw(out, m, base_of(prev, pm), seconds, o->top);
		return draw_series(out, m, base_of(prev, pm), seconds, o, NULL);
	}
	matched = draw_cgroups(out, m, base_of(prev, pm), seconds, o, cgroups, ncgroups);
	terminal_cgroup_free(cgroups, ncgroups);
	return matched;
}

int screen_draw(FILE *out, const char *path, const struct snapshot *cur, const struct snapshot *prev,
	      const struct screen_options *o)
{
	char off[1024] = "";
	size_t off_used = 0;
	int matched = 0;

	draw_title(out, path, cur, prev);
	for (int i = 0; i < cur->nmodules; i++) {
		const struct snapshot_module *m = &cur->modules[i];

		if (!module_selected(o, m->label))
			continue;
		if (has_values(m))
			matched += draw_module(out, m, cur, prev, o);
		else if (m->error[0])
			note_off_module(out, m, off, sizeof(off), &off_used);
	}
	if (off_used)
		fprintf(out, "\nnot enabled: %s\n", off);
	if (!matched)
		draw_choices(out, cur);
	return matched;
}
