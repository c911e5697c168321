/* strcasestr */
#define _GNU_SOURCE
#include "prometheus/prom_render.h"

#include "base/text_rule.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- a growing text --------------------------------------------------------------------- */

void prom_text_free(struct prom_text *t)
{
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

static void put_n(struct prom_text *t, const char *s, size_t n)
{
	if (t->oom)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 16384;
		char *p;

		while (t->len + n + 1 > cap)
			cap *= 2;
		if (!(p = realloc(t->buf, cap))) {
			t->oom = 1;
			return;
		}
		t->buf = p;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static void put(struct prom_text *t, const char *s)
{
	put_n(t, s, strlen(s));
}

static void putf(struct prom_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct prom_text *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put_n(t, buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* A number as the exposition formats read it: integers as such, NaN and infinities by their
 * names, else the shortest %g that reads back within 15 digits. */
static void put_number(struct prom_text *t, double v)
{
	if (isnan(v))
		put(t, "NaN");
	else if (isinf(v))
		put(t, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		putf(t, "%.0f", v);
	else
		putf(t, "%.15g", v);
}

/* A label value or a HELP text, escaped as the formats require (\\, \n, and \" in label
 * values and OpenMetrics' HELP); what base/text_rule.h refuses (controls, bidi controls,
 * bytes that are not UTF-8) as the text \xHH, so that nothing but valid UTF-8 reaches the
 * page and no value breaks a line. */
static void put_escaped(struct prom_text *t, const char *s, bool quote)
{
	while (*s) {
		bool keep;
		size_t n = text_unit(s, &keep);

		if (*s == '\\')
			put(t, "\\\\");
		else if (*s == '\n')
			put(t, "\\n");
		else if (*s == '"' && quote)
			put(t, "\\\"");
		else if (keep)
			put_n(t, s, n);
		else
			for (size_t i = 0; i < n; i++)
				putf(t, "\\\\x%02x", (unsigned char)s[i]);
		s += n;
	}
}

/* ---- names ------------------------------------------------------------------------------ */

/* text with what is not [A-Za-z0-9_] as '_' appended to out. */
static void append_name(char *out, size_t cap, const char *text)
{
	size_t o = strlen(out);

	for (; *text && o + 1 < cap; text++)
		out[o++] = (*text >= 'a' && *text <= 'z') || (*text >= 'A' && *text <= 'Z') ||
				   (*text >= '0' && *text <= '9') ? *text : '_';
	out[o] = '\0';
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* A metric name ([a-zA-Z_:][a-zA-Z0-9_:]*): what a "@family" note must be. */
static bool metric_name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' || *s == ':'))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:") == strlen(s);
}

enum kind { K_COUNTER, K_GAUGE, K_HISTOGRAM };

/* What a value's metric name says that the snapshot does not: its base unit and the factor
 * to it, a name of its own, a help text. */
struct known_metric {
	const char *metric;
	enum kind kind;
	const char *name; /* NULL: the metric's */
	const char *unit; /* appended to the name */
	double scale;
	const char *help;
};

static const struct known_metric known[] = {
	{ "calls", K_COUNTER, NULL, NULL, 1, "Events (calls, operations) counted by the module's BPF programs" },
	{ "errors", K_COUNTER, NULL, NULL, 1, "Events that returned an error" },
	{ "dropped", K_COUNTER, NULL, NULL, 1, "Events the module's BPF programs could not count, by kind" },
	{ "untraced", K_COUNTER, NULL, NULL, 1, "Events the kernel counted that no BPF program saw (a witness' count less the module's)" },
	{ "runs", K_COUNTER, NULL, NULL, 1, "Runs of the module's BPF programs (kernel BPF run-time stats)" },
	{ "run_time", K_COUNTER, NULL, "seconds", 1e-9, "CPU time spent in the module's BPF programs (kernel BPF run-time stats)" },
	{ "cpu_time_ms", K_COUNTER, "cpu_time", "seconds", 1e-3, "CPU time spent in all the module's BPF programs" },
	{ "kernel_memory", K_GAUGE, NULL, "bytes", 1, "Kernel memory of the module's BPF maps" },
	{ "map_fill", K_GAUGE, NULL, "ratio", 0.01, "Fill of a BPF hash map, 0 to 1, by map" },
	{ "hit_ratio", K_GAUGE, NULL, NULL, 0.01, "Hits among accesses in the last interval, 0 to 1" },
	{ "attach", K_GAUGE, NULL, NULL, 1, "Attach points of the module that failed to attach, by point" },
	{ "folded", K_GAUGE, NULL, NULL, 1, "Label sets beyond the cap, counted in the series labelled \"other\"" },
	{ "latency", K_HISTOGRAM, NULL, NULL, 1, "Latency, from the kernel's histogram slots" },
};

static const struct known_metric *known_of(const char *metric, enum kind kind)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].kind == kind && !strcmp(known[i].metric, metric))
			return &known[i];
	return NULL;
}

/* ---- samples ---------------------------------------------------------------------------- */

/* One series of the page before it is written: its family, its labels (rendered), and what
 * it shows. */
struct sample {
	char family[192];
	enum kind kind;
	const char *unit;
	char help[256];
	char *labels; /* name="value",... (escaped) */
	double value, scale;
	const struct snapshot_module *m;
	const struct snapshot_histogram *h;
	size_t order;
	bool skip;
	bool exact; /* family from the source ("@family"): a counter's name as given, _total or not */
};

struct samples {
	struct sample *v;
	size_t n, cap;
	int oom;
};

static struct sample *new_sample(struct samples *ss, enum kind kind)
{
	struct sample *s;

	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? ss->cap * 2 : 256;
		struct sample *p = realloc(ss->v, cap * sizeof(*p));

		if (!p) {
			ss->oom = 1;
			return NULL;
		}
		ss->v = p;
		ss->cap = cap;
	}
	s = &ss->v[ss->n];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->scale = 1;
	s->order = ss->n++;
	return s;
}

/* The labels as name="value" pairs; `module` first unless the record has its own. */
static char *render_labels(const char *module, const char *const *names, const char *const *values, int n)
{
	struct prom_text t = { 0 };
	bool own_module = false;

	for (int i = 0; i < n; i++)
		own_module |= !strcmp(names[i], "module");
	if (module && !own_module) {
		put(&t, "module=\"");
		put_escaped(&t, module, true);
		put(&t, "\"");
	}
	for (int i = 0; i < n; i++) {
		/* "le" is the bucket's, "__" names are Prometheus' own: a program's label of that
		 * name is served as exported_<name>, as Prometheus renames a target's clashing ones. */
		bool clash = !strcmp(names[i], "le") || !strncmp(names[i], "__", 2);

		if (names[i][0] == '@')
			continue;
		putf(&t, "%s%s%s=\"", t.len ? "," : "", clash ? "exported_" : "", names[i]);
		put_escaped(&t, values[i], true);
		put(&t, "\"");
	}
	put(&t, ""); /* an empty set is "", not NULL */
	if (t.oom) {
		free(t.buf);
		return NULL;
	}
	return t.buf;
}

/* A record of module m as a sample: its family from the module and metric (or its
 * "@family" note), its unit, help and labels. */
static struct sample *record_sample(struct samples *ss, const struct snapshot_module *m, enum kind kind,
				    const char *metric, const struct snapshot_labels *l, enum snapshot_unit hist_unit)
{
	const char *names[SNAPSHOT_MAX_LABELS], *values[SNAPSHOT_MAX_LABELS];
	int n = snapshot_labels(m, l, names, values, SNAPSHOT_MAX_LABELS);
	const char *family = snapshot_label(m, l, "@family"), *help = snapshot_label(m, l, "@help");
	const struct known_metric *k = known_of(metric, kind);
	struct sample *s = new_sample(ss, kind);
	char what[96] = "";

	if (!s)
		return NULL;
	s->m = m;
	if (kind == K_HISTOGRAM) {
		s->unit = hist_unit == SNAPSHOT_UNIT_NANOSECONDS ? "seconds" : "bytes";
		s->scale = hist_unit == SNAPSHOT_UNIT_NANOSECONDS ? 1e-9 : 1;
	} else if (k) {
		s->unit = k->unit;
		s->scale = k->scale;
	}
	if (family && metric_name_ok(family)) {
		snprintf(s->family, sizeof(s->family), "%s", family); /* whole: a program's own name */
		s->unit = NULL;
		s->exact = true;
	} else {
		snprintf(s->family, sizeof(s->family), "collectd_ebpf_");
		append_name(s->family, sizeof(s->family), m->label);
		append_name(s->family, sizeof(s->family), "_");
		append_name(what, sizeof(what), k && k->name ? k->name : metric);
		if (kind == K_COUNTER && ends_with(what, "_total"))
			what[strlen(what) - 6] = '\0';
		append_name(s->family, sizeof(s->family), what);
		if (s->unit && !ends_with(s->family, s->unit)) {
			append_name(s->family, sizeof(s->family), "_");
			append_name(s->family, sizeof(s->family), s->unit);
		}
	}
	if (help)
		snprintf(s->help, sizeof(s->help), "%s", help);
	else if (k)
		snprintf(s->help, sizeof(s->help), "%s (collectd-ebpf module %s)", k->help, m->label);
	else
		snprintf(s->help, sizeof(s->help), "collectd-ebpf module %s: %s", m->label, metric);
	s->labels = render_labels(family ? NULL : m->label, names, values, n);
	if (!s->labels)
		ss->oom = 1;
	return s;
}

/* A sample of the endpoint's own (or a module's state): family, help, value, labels. */
static void own_sample(struct samples *ss, enum kind kind, const char *family, const char *unit, const char *help,
		       double value, const char *const *names, const char *const *values, int n)
{
	struct sample *s = new_sample(ss, kind);

	if (!s)
		return;
	snprintf(s->family, sizeof(s->family), "%s", family);
	snprintf(s->help, sizeof(s->help), "%s", help);
	s->unit = unit;
	s->value = value;
	if (!(s->labels = render_labels(NULL, names, values, n)))
		ss->oom = 1;
}

static void module_samples(struct samples *ss, const struct snapshot_module *m)
{
	static const enum snapshot_state states[] = { SNAPSHOT_STATE_RUNNING, SNAPSHOT_STATE_DEGRADED,
						      SNAPSHOT_STATE_FAILED, SNAPSHOT_STATE_UNSUPPORTED,
						      SNAPSHOT_STATE_DISABLED, SNAPSHOT_STATE_CONFIGURED };
	const char *names[] = { "module", "state" };

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		const char *values[] = { m->label, snapshot_state_name(states[i]) };

		own_sample(ss, K_GAUGE, "collectd_ebpf_module_state", NULL,
			   "State of a module: 1 for the state it is in (running, degraded, failed, unsupported, "
			   "disabled, configured)", m->state == states[i], names, values, 2);
	}
	own_sample(ss, K_GAUGE, "collectd_ebpf_module_start_time_seconds", "seconds",
		   "When the module's counters last started from zero (unix time)", (double)m->discontinuity_us / 1e6,
		   names, (const char *const[]){ m->label }, 1);
	for (int i = 0; i < m->ncounters; i++) {
		const struct snapshot_counter *c = &m->counters[i];
		struct sample *s = record_sample(ss, m, K_COUNTER, c->metric, &c->labels, 0);

		if (s)
			s->value = (double)c->value * s->scale;
	}
	for (int i = 0; i < m->ngauges; i++) {
		const struct snapshot_gauge *g = &m->gauges[i];
		struct sample *s = record_sample(ss, m, K_GAUGE, g->metric, &g->labels, 0);

		if (s)
			s->value = g->value * s->scale;
	}
	for (int i = 0; i < m->nhistograms; i++) {
		const struct snapshot_histogram *h = &m->histograms[i];
		struct sample *s = record_sample(ss, m, K_HISTOGRAM, h->metric, &h->labels, h->unit);

		if (s)
			s->h = h;
	}
}

/* The plugin's event count of its run (an event's seq counts its run's events from 1), and
 * each kind's last event time. */
static void event_samples(struct samples *ss, const struct snapshot *snap)
{
	const struct snapshot_event *last = snap->nevents ? &snap->events[snap->nevents - 1] : NULL;
	const char *names[] = { "kind" };

	own_sample(ss, K_COUNTER, "collectd_ebpf_events", NULL,
		   "Events the plugin raised since collectd started (OOM kills, module states, drops, untraced "
		   "events; their notifications)", last ? (double)last->seq : 0, NULL, NULL, 0);
	for (int i = 0; i < snap->nevents; i++) {
		const struct snapshot_event *e = &snap->events[i];
		bool later = false;

		for (int j = i + 1; j < snap->nevents; j++)
			later |= !strcmp(snap->events[j].kind, e->kind);
		if (!later) {
			const char *values[] = { e->kind };

			own_sample(ss, K_GAUGE, "collectd_ebpf_event_last_timestamp_seconds", "seconds",
				   "When the plugin last raised an event of this kind (unix time)",
				   (double)e->time_us / 1e6, names, values, 1);
		}
	}
}

static int by_family_then_labels(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	if (c)
		return c;
	c = strcmp(x->labels, y->labels);
	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

/* ---- writing ---------------------------------------------------------------------------- */

static const char *type_name(enum kind k)
{
	return k == K_COUNTER ? "counter" : k == K_GAUGE ? "gauge" : "histogram";
}

/* HELP, TYPE (and UNIT in OpenMetrics) of the family of s. */
static void put_header(struct prom_text *t, const struct sample *s, enum prom_format format)
{
	const char *total = s->kind == K_COUNTER && format == PROM_TEXT && !s->exact ? "_total" : "";
	const char *type = type_name(s->kind);
	int len = (int)strlen(s->family);

	/* A counter named by its source (ebpf_exporter's, as its client writes it): the name
	 * as given in text; in OpenMetrics the family is that less _total, and a name without
	 * _total, which a counter's sample cannot have there, stays the name as an unknown. */
	if (s->exact && s->kind == K_COUNTER && format == PROM_OPENMETRICS) {
		if (ends_with(s->family, "_total"))
			len -= 6;
		else
			type = "unknown";
	}
	putf(t, "# HELP %.*s%s ", len, s->family, total);
	put_escaped(t, s->help, format == PROM_OPENMETRICS);
	putf(t, "\n# TYPE %.*s%s %s\n", len, s->family, total, type);
	if (format == PROM_OPENMETRICS && s->unit && ends_with(s->family, s->unit))
		putf(t, "# UNIT %s %s\n", s->family, s->unit);
}

/* name{labels[,extra]} value */
static void put_series(struct prom_text *t, const char *family, const char *suffix, const char *labels,
		       const char *extra, double value)
{
	put(t, family);
	put(t, suffix);
	if (labels[0] || extra) {
		put(t, "{");
		put(t, labels);
		if (extra) {
			put(t, labels[0] ? "," : "");
			put(t, extra);
		}
		put(t, "}");
	}
	put(t, " ");
	put_number(t, value);
	put(t, "\n");
}

/* Whether slot `slot` of precision p is an `le` of the bucket set. */
static bool bound_kept(enum prom_buckets b, unsigned int p, unsigned int slot)
{
	unsigned long long ub = hist_slot_upper_bound(p, slot);
	int log2 = __builtin_ctzll(ub);

	if (b == PROM_BUCKETS_ALL)
		return true;
	if (ub & (ub - 1))
		return false; /* not a power of two */
	return b == PROM_BUCKETS_POW2 || log2 % 2 == 0;
}

/* The snapshot's buckets are cumulative in time (since the module started), each slot's own
 * count: a bucket's `le` count is their running sum over the slots at or below its bound,
 * at most the count, which +Inf and _count carry. Every bounded slot of the set is written,
 * with events or not: each scrape has the same buckets. */
static void put_histogram(struct prom_text *t, const struct sample *s, const struct snapshot_module *m,
			       enum prom_buckets buckets)
{
	const struct snapshot_histogram *h = s->h;
	const struct snapshot_bucket *b = snapshot_buckets(m, h);
	const struct snapshot_bound *own = snapshot_bounds(m, h);
	uint64_t below = 0;
	int next = 0;
	char le[64];

	/* The histogram's own buckets (ebpf_exporter's `le`, as its client writes them) */
	for (int i = 0; i < h->nbounds; i++) {
		snprintf(le, sizeof(le), "le=\"%s\"", own[i].le); /* a number: snapshot_module_add_bound() */
		put_series(t, s->family, "_bucket", s->labels, le, (double)own[i].count);
	}
	for (unsigned int slot = 0; slot < HIST_LAST_SLOT(h->precision) && !h->nbounds; slot++) {
		while (next < h->nbuckets && b[next].slot <= slot)
			below += b[next++].count;
		if (!bound_kept(buckets, h->precision, slot))
			continue;
		snprintf(le, sizeof(le), "le=\"%.15g\"", (double)hist_slot_upper_bound(h->precision, slot) * s->scale);
		put_series(t, s->family, "_bucket", s->labels, le, (double)(below < h->count ? below : h->count));
	}
	put_series(t, s->family, "_bucket", s->labels, "le=\"+Inf\"", (double)h->count);
	put_series(t, s->family, "_sum", s->labels, NULL, (double)h->sum * s->scale);
	put_series(t, s->family, "_count", s->labels, NULL, (double)h->count);
}

static void put_sample(struct prom_text *t, const struct sample *s, enum prom_format format,
		       enum prom_buckets buckets)
{
	if (s->kind == K_HISTOGRAM)
		put_histogram(t, s, s->m, buckets);
	else
		put_series(t, s->family, s->kind == K_COUNTER && !s->exact ? "_total" : "", s->labels, NULL, s->value);
	(void)format;
}

int prom_render(const struct snapshot *snap, const struct prom_status *st, enum prom_format format,
		enum prom_buckets buckets, struct prom_text *out)
{
	struct samples ss = { 0 };
	const char *names[] = { "error" };
	int skipped = 0;

	if (snap) {
		for (int i = 0; i < snap->nmodules; i++)
			module_samples(&ss, &snap->modules[i]);
		event_samples(&ss, snap);
		own_sample(&ss, K_GAUGE, "collectd_ebpf_snapshot_written_timestamp_seconds", "seconds",
			   "When the plugin wrote the snapshot served (unix time)", (double)snap->written_us / 1e6,
			   NULL, NULL, 0);
	}
	own_sample(&ss, K_GAUGE, "collectd_ebpf_snapshot_up", NULL,
		   "1 when the plugin's snapshot file was read whole at this scrape, 0 when not (the error label and "
		   "the endpoint's log say why)",
		   st->up, st->up ? NULL : names, st->up ? NULL : (const char *const[]){ st->error }, st->up ? 0 : 1);
	own_sample(&ss, K_COUNTER, "collectd_ebpf_prometheus_scrapes", NULL, "Scrapes this endpoint served",
		   (double)st->scrapes, NULL, NULL, 0);
	own_sample(&ss, K_COUNTER, "collectd_ebpf_prometheus_snapshot_read_errors", NULL,
		   "Scrapes at which the snapshot file could not be read whole", (double)st->read_errors, NULL, NULL, 0);
	if (ss.oom)
		goto oom;
	qsort(ss.v, ss.n, sizeof(*ss.v), by_family_then_labels);
	/* A family is one type (the first one's), a label set once in it. */
	for (size_t i = 1, first = 0; i < ss.n; i++) {
		struct sample *s = &ss.v[i];

		if (strcmp(ss.v[first].family, s->family)) {
			first = i;
			continue;
		}
		s->skip = ss.v[first].kind != s->kind || !strcmp(s[-1].labels, s->labels);
	}
	for (size_t i = 0; i < ss.n; i++) {
		const struct sample *s = &ss.v[i];

		if (s->skip) {
			skipped++;
			continue;
		}
		if (i == 0 || strcmp(ss.v[i - 1].family, s->family))
			put_header(out, s, format);
		put_sample(out, s, format, buckets);
	}
	put(out, "# HELP collectd_ebpf_prometheus_series_skipped Series of the snapshot left out of this page: a label "
		 "set given twice in a family, or a family name of two types\n"
		 "# TYPE collectd_ebpf_prometheus_series_skipped gauge\n");
	putf(out, "collectd_ebpf_prometheus_series_skipped %d\n", skipped);
	if (format == PROM_OPENMETRICS)
		put(out, "# EOF\n");
	for (size_t i = 0; i < ss.n; i++)
		free(ss.v[i].labels);
	free(ss.v);
	return out->oom ? -1 : skipped;
oom:
	for (size_t i = 0; i < ss.n; i++)
		free(ss.v[i].labels);
	free(ss.v);
	return -1;
}

const char *prom_content_type(enum prom_format format)
{
	return format == PROM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
					  : "text/plain; version=0.0.4; charset=utf-8";
}

enum prom_format prom_format_for(const char *accept)
{
	return accept && strcasestr(accept, "application/openmetrics-text") ? PROM_OPENMETRICS : PROM_TEXT;
}

int prom_buckets_parse(const char *s, enum prom_buckets *out)
{
	static const char *const names[] = { [PROM_BUCKETS_POW4] = "pow4", [PROM_BUCKETS_POW2] = "pow2",
					     [PROM_BUCKETS_ALL] = "all" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum prom_buckets)i;
			return 0;
		}
	return -1;
}
