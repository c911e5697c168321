#include "mib_tree.h"

#include "base/text_append.h"
#include "instance_index.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The host-wide tables, then the per-cgroup ones (ebpfCgroupObjects), each kind at the same
 * distance: T_CG_COUNTERS - T_COUNTERS == T_CG_GAUGES - T_GAUGES == T_CG. */
enum {
	T_MODULES,
	T_COUNTERS,
	T_HISTS,
	T_BUCKETS,
	T_GAUGES,
	T_CG_COUNTERS,
	T_CG_HISTS,
	T_CG_BUCKETS,
	T_CG_GAUGES,
	T_SCALAR = -1,
	T_CG = T_CG_COUNTERS - T_COUNTERS,
};

/* Name limits: the SIZEs of COLLECTD-EBPF-MIB's index objects (keeps OIDs within 128 arcs).
 * An instance of any length has an index of at most INSTANCE_INDEX_MAX (instance_index.h). */
#define MODULE_NAME_MAX 32
#define METRIC_NAME_MAX 32

#define ROW_INDEX_MAX (MIB_MAX_SUFFIX - 4) /* a column prefix takes 4 arcs, 5 under ebpfCgroupObjects */

struct mib_row {
	uint32_t index[ROW_INDEX_MAX];
	size_t len;
	const struct snapshot_module *m;
	const struct snapshot_counter *c;
	const struct snapshot_histogram *h;
	int bucket; /* index into h->buckets */
	const struct snapshot_gauge *g;
	size_t seq; /* its place among the rows of its table as built: the last tie-break */
};

/* Every served table, in OID order: its entry's OID (a scalar group's for T_SCALAR, whose
 * only row is index 0) and its readable columns. A per-cgroup table has the columns and the
 * index of its host-wide twin, one arc deeper. */
struct table {
	uint32_t entry[4];
	size_t elen;
	int table;
	uint32_t first_col, last_col;
};

static const struct table tables[] = {
	{ { 1, 1 }, 2, T_SCALAR, 1, 3 },
	{ { 1, 2, 1 }, 3, T_MODULES, 2, 5 },
	{ { 1, 3, 1 }, 3, T_COUNTERS, 3, 5 },
	{ { 1, 4, 1 }, 3, T_HISTS, 3, 14 },
	{ { 1, 5, 1 }, 3, T_BUCKETS, 2, 5 },
	{ { 1, 6, 1 }, 3, T_GAUGES, 3, 5 },
	{ { 1, 8, 1, 1 }, 4, T_CG_COUNTERS, 3, 5 },
	{ { 1, 8, 2, 1 }, 4, T_CG_HISTS, 3, 14 },
	{ { 1, 8, 3, 1 }, 4, T_CG_BUCKETS, 2, 5 },
	{ { 1, 8, 4, 1 }, 4, T_CG_GAUGES, 3, 5 },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/* One column: its OID (the entry's, then the column number), which table, which column. */
struct column {
	uint32_t prefix[5];
	size_t plen;
	int table;
	uint32_t col;
};

/* Column col of tables[t]. */
static struct column column_of(size_t t, uint32_t col)
{
	struct column c = { .plen = tables[t].elen + 1, .table = tables[t].table, .col = col };

	memcpy(c.prefix, tables[t].entry, tables[t].elen * sizeof(*c.prefix));
	c.prefix[tables[t].elen] = col;
	return c;
}

/* The kind of rows a table holds: a per-cgroup table's are its host-wide twin's. */
static int kind(int table)
{
	return table >= T_CG_COUNTERS ? table - T_CG : table;
}

/* The arcs of a column's prefix in table `table` (built rows only: not T_SCALAR). */
static size_t prefix_len(int table)
{
	return table >= T_CG_COUNTERS ? 5 : 4;
}

/* The table of a row of host-wide table t's kind: the per-cgroup one when its instance has
 * the cgroup before a '/', which no collectd name holds (doc/modules.md, Names). */
static int table_for(int t, const char *instance)
{
	return strchr(instance, '/') ? t + T_CG : t;
}

static const struct mib_row scalar_row = { .index = { 0 }, .len = 1 };

/* ---- building ------------------------------------------------------------------------------- */

/* A string index component: length-prefixed, or IMPLIED (no length: the last component). */
static int put_string(struct mib_row *r, const char *s, size_t min, size_t max, bool implied)
{
	size_t n = strlen(s);

	if (n < min || n > max || r->len + n + 1 > ROW_INDEX_MAX)
		return -1;
	if (!implied)
		r->index[r->len++] = (uint32_t)n;
	for (size_t i = 0; i < n; i++)
		r->index[r->len++] = (unsigned char)s[i];
	return 0;
}

/* Module and metric as they are; the instance by the rule of instance_index.h. */
static int put_names(struct mib_row *r, const struct snapshot_module *m, const char *metric, const char *instance,
		     bool instance_implied)
{
	char index[INSTANCE_INDEX_MAX + 1];

	instance_index(instance, index);
	r->len = 0;
	return put_string(r, m->label, 1, MODULE_NAME_MAX, false) || put_string(r, metric, 1, METRIC_NAME_MAX, false) ||
	       put_string(r, index, 0, INSTANCE_INDEX_MAX, instance_implied);
}

/* The row's whole instance ("" for a module row). */
static const char *row_instance(const struct mib_row *r)
{
	return r->c ? r->c->instance : r->g ? r->g->instance : r->h ? r->h->instance : "";
}

static int cmp_oid(const uint32_t *a, size_t alen, const uint32_t *b, size_t blen)
{
	for (size_t i = 0; i < alen && i < blen; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return alen < blen ? -1 : alen > blen;
}

static int same_index(const struct mib_row *x, const struct mib_row *y)
{
	return !cmp_oid(x->index, x->len, y->index, y->len);
}

/* By index; rows that share one (two long instances whose head and hash agree) by their
 * whole instance, then as built: the row served of them, the first, is the same on every
 * read, whatever order the snapshot lists them in. */
static int cmp_rows(const void *a, const void *b)
{
	const struct mib_row *x = a, *y = b;
	int c = cmp_oid(x->index, x->len, y->index, y->len);

	if (!c)
		c = strcmp(row_instance(x), row_instance(y));
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Adds a row to table t unless its names are too long for the index. */
static struct mib_row *new_row(struct mib_tree *v, int t, size_t *cap)
{
	struct mib_row *r;

	if (v->nrows[t] == cap[t]) {
		size_t ncap = cap[t] ? cap[t] * 2 : 16;

		r = realloc(v->rows[t], ncap * sizeof(*r));
		if (!r)
			return NULL;
		v->rows[t] = r;
		cap[t] = ncap;
	}
	r = &v->rows[t][v->nrows[t]];
	memset(r, 0, sizeof(*r));
	r->seq = v->nrows[t];
	return r;
}

/* s cut at 64 bytes, marked "..." when cut: names too long for the index are what is named. */
static void put_cut(char *buf, size_t len, size_t *used, const char *sep, const char *s)
{
	text_appendf(buf, len, used, "%s%.64s%s", sep, s, strlen(s) > 64 ? "..." : "");
}

/* Counts a row left out and names its series (the first MIB_SKIPPED_NAMED of them). */
static void note_skipped(struct mib_tree *v, const struct mib_row *r)
{
	const char *metric = r->c ? r->c->metric : r->g ? r->g->metric : r->h ? r->h->metric : NULL;
	const char *instance = row_instance(r);
	char name[sizeof(v->skipped_last)] = "";
	size_t used = 0, names_used = strlen(v->skipped_names);

	v->skipped++;
	put_cut(name, sizeof(name), &used, "", r->m->label);
	if (metric) {
		put_cut(name, sizeof(name), &used, "/", metric);
		put_cut(name, sizeof(name), &used, "/", instance);
	}
	if (!strcmp(name, v->skipped_last)) /* a histogram's bucket rows after its own row */
		return;
	memcpy(v->skipped_last, name, sizeof(name));
	if (++v->skipped_series <= MIB_SKIPPED_NAMED)
		text_appendf(v->skipped_names, sizeof(v->skipped_names), &names_used, "%s%s", names_used ? ", " : "",
			     name);
}

/* The row new_row() prepared joins table t, unless its names did not fit the index or its
 * OIDs (a column prefix of prefix_len(t) arcs, then the index) the room below the base. */
static void keep_row(struct mib_tree *v, int t, int bad)
{
	if (bad || prefix_len(t) + v->rows[t][v->nrows[t]].len > v->room)
		note_skipped(v, &v->rows[t][v->nrows[t]]);
	else
		v->nrows[t]++;
}

static int add_module(struct mib_tree *v, const struct snapshot_module *m, size_t *cap)
{
	struct mib_row *r = new_row(v, T_MODULES, cap);

	if (!r)
		return -ENOMEM;
	r->m = m;
	keep_row(v, T_MODULES, put_string(r, m->label, 1, MODULE_NAME_MAX, true));
	for (int i = 0; i < m->ncounters; i++) {
		int t = table_for(T_COUNTERS, m->counters[i].instance);

		if (!(r = new_row(v, t, cap)))
			return -ENOMEM;
		r->m = m;
		r->c = &m->counters[i];
		keep_row(v, t, put_names(r, m, r->c->metric, r->c->instance, true));
	}
	for (int i = 0; i < m->ngauges; i++) {
		int t = table_for(T_GAUGES, m->gauges[i].instance);

		if (!(r = new_row(v, t, cap)))
			return -ENOMEM;
		r->m = m;
		r->g = &m->gauges[i];
		keep_row(v, t, put_names(r, m, r->g->metric, r->g->instance, true));
	}
	for (int i = 0; i < m->nhistograms; i++) {
		const struct snapshot_histogram *h = &m->histograms[i];
		int t = table_for(T_HISTS, h->instance), tb = table_for(T_BUCKETS, h->instance);

		if (!(r = new_row(v, t, cap)))
			return -ENOMEM;
		r->m = m;
		r->h = h;
		keep_row(v, t, put_names(r, m, h->metric, h->instance, true));
		for (int b = 0; b < h->nbuckets; b++) {
			int bad;

			if (!(r = new_row(v, tb, cap)))
				return -ENOMEM;
			r->m = m;
			r->h = h;
			r->bucket = b;
			bad = put_names(r, m, h->metric, h->instance, false) || r->len == ROW_INDEX_MAX;
			if (!bad)
				r->index[r->len++] = snapshot_buckets(m, h)[b].slot + 1;
			keep_row(v, tb, bad);
		}
	}
	return 0;
}

/* The histograms whose row another took the index of: their bucket rows go too, or a slot
 * only the loser has would be served under the winner's index. Sorted by address. */
struct lost_hists {
	const struct snapshot_histogram **h;
	size_t n, cap;
};

static int cmp_address(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const struct snapshot_histogram *const *)a;
	uintptr_t y = (uintptr_t)*(const struct snapshot_histogram *const *)b;

	return (x > y) - (x < y);
}

static int note_lost(struct lost_hists *lost, const struct snapshot_histogram *h)
{
	if (lost->n == lost->cap) {
		size_t ncap = lost->cap ? lost->cap * 2 : 4;
		const struct snapshot_histogram **p = realloc(lost->h, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		lost->h = p;
		lost->cap = ncap;
	}
	lost->h[lost->n++] = h;
	return 0;
}

static bool is_lost(const struct lost_hists *lost, const struct snapshot_histogram *h)
{
	return lost->n && bsearch(&h, lost->h, lost->n, sizeof(*lost->h), cmp_address);
}

/* Drops the rows of sorted table t whose index repeats an earlier one (a GET could not tell
 * them apart; cmp_rows put the one to serve first), and the bucket rows of histograms that
 * lost theirs (lost, filled while t is a histograms' table). 0 or -ENOMEM. */
static int drop_duplicates(struct mib_tree *v, int t, struct lost_hists *lost)
{
	size_t w = 0;

	for (size_t i = 0; i < v->nrows[t]; i++) {
		const struct mib_row *r = &v->rows[t][i];

		if ((w && same_index(&v->rows[t][w - 1], r)) || (kind(t) == T_BUCKETS && is_lost(lost, r->h))) {
			if (kind(t) == T_HISTS && note_lost(lost, r->h))
				return -ENOMEM;
			note_skipped(v, r);
			continue;
		}
		if (w != i)
			v->rows[t][w] = *r;
		w++;
	}
	v->nrows[t] = w;
	if (kind(t) == T_HISTS && lost->n)
		qsort(lost->h, lost->n, sizeof(*lost->h), cmp_address);
	return 0;
}

int mib_tree_build(struct mib_tree *v, const struct snapshot *snap, enum mib_snapshot_status status,
		   const char *error, size_t room)
{
	size_t cap[MIB_TABLES] = { 0 };
	struct lost_hists lost = { 0 };
	int err = 0;

	memset(v, 0, sizeof(*v));
	v->room = room < MIB_MAX_SUFFIX ? room : MIB_MAX_SUFFIX;
	v->status = status;
	v->error = error ? error : "";
	if (!snap || (status != MIB_SNAPSHOT_OK && status != MIB_SNAPSHOT_STALE))
		return 0;
	v->snap = snap;
	if (status == MIB_SNAPSHOT_STALE) /* old numbers must not look current: no rows */
		return 0;
	for (int i = 0; i < snap->nmodules; i++) {
		if (add_module(v, &snap->modules[i], cap)) {
			mib_tree_free(v);
			return -ENOMEM;
		}
	}
	/* A histograms' table comes before its buckets': the bucket rows know which histograms
	 * lost. */
	for (int t = 0; t < MIB_TABLES && !err; t++) {
		if (v->nrows[t])
			qsort(v->rows[t], v->nrows[t], sizeof(struct mib_row), cmp_rows);
		err = drop_duplicates(v, t, &lost);
	}
	free(lost.h);
	if (err)
		mib_tree_free(v);
	return err;
}

void mib_tree_free(struct mib_tree *v)
{
	for (int t = 0; t < MIB_TABLES; t++)
		free(v->rows[t]);
	memset(v, 0, sizeof(*v));
}

/* ---- values ---------------------------------------------------------------------------------- */

/* ebpfModuleState: the snapshot's states are its numbers; configured (not started) is
 * unknown(6). */
static int state_number(enum snapshot_state s)
{
	return s >= SNAPSHOT_STATE_RUNNING && s <= SNAPSHOT_STATE_DISABLED ? (int)s : 6;
}

/* Gauge32 from a double: 0 for "no value" (NaN), saturated at 2^32-1. */
static uint64_t gauge(double v)
{
	if (isnan(v) || v < 0)
		return 0;
	if (v >= 4294967295.0)
		return 4294967295u;
	return (uint64_t)llround(v);
}

/* A gauge table's value: rounded down, so that a map 99.9 % full does not read 100. */
static uint64_t gauge_down(double v)
{
	return gauge(isnan(v) || v < 0 || v >= 4294967295.0 ? v : floor(v));
}

/* now - then in microseconds, 0 if then is in the future, INT64_MAX if the difference does
 * not fit: the times come from a file, and a corrupt one may say anything. */
static int64_t elapsed_us(const struct mib_env *env, int64_t then_us)
{
	int64_t d;

	if (__builtin_sub_overflow(env->now_us, then_us, &d))
		return then_us < 0 ? INT64_MAX : 0;
	return d < 0 ? 0 : d;
}

/* TimeStamp: sysUpTime when it happened, 0 if before the agent (re)started. */
static uint64_t timestamp(const struct mib_env *env, int64_t when_us)
{
	int64_t ago_cs;

	if (when_us <= 0)
		return 0;
	ago_cs = elapsed_us(env, when_us) / 10000;
	return ago_cs >= (int64_t)env->uptime_cs ? 0 : env->uptime_cs - (uint64_t)ago_cs;
}

/* Every string column is a DisplayString (SIZE 0..255). */
static void string_value(struct mib_value *out, const char *s)
{
	out->type = MIB_STRING;
	out->num = 0;
	display_string(out->text, s);
	out->str = out->text;
}

static void scalar_value(const struct mib_tree *v, const struct mib_env *env, uint32_t col, struct mib_value *out)
{
	if (col == 1) {
		*out = (struct mib_value){ .type = MIB_INTEGER, .num = v->status };
	} else if (col == 2) {
		string_value(out, v->error);
	} else {
		int64_t age = v->snap ? elapsed_us(env, v->snap->written_us) / 1000000 : 0;

		*out = (struct mib_value){ .type = MIB_GAUGE32, .num = gauge((double)age) };
	}
}

static void hist_value(const struct snapshot_histogram *h, uint32_t col, struct mib_value *out)
{
	bool ns = h->unit == SNAPSHOT_UNIT_NANOSECONDS;
	double scale = ns ? 1000.0 : 1.0; /* summaries in microseconds: Gauge32 holds 71 minutes */
	const char *unit = snapshot_unit_name(h->unit);

	switch (col) {
	case 3: string_value(out, unit); break;
	case 4: *out = (struct mib_value){ .type = MIB_COUNTER64, .num = h->count }; break;
	case 5: *out = (struct mib_value){ .type = MIB_COUNTER32, .num = h->count & 0xffffffffu }; break;
	case 6: *out = (struct mib_value){ .type = MIB_COUNTER64, .num = h->sum }; break;
	case 7: *out = (struct mib_value){ .type = MIB_COUNTER32, .num = h->sum & 0xffffffffu }; break;
	case 8: string_value(out, ns ? "microseconds" : unit); break;
	case 9: *out = (struct mib_value){ .type = MIB_GAUGE32, .num = gauge((double)h->interval_count) }; break;
	case 10: *out = (struct mib_value){ .type = MIB_GAUGE32, .num = gauge(h->mean / scale) }; break;
	case 11: *out = (struct mib_value){ .type = MIB_GAUGE32, .num = gauge(h->p50 / scale) }; break;
	case 12: *out = (struct mib_value){ .type = MIB_GAUGE32, .num = gauge(h->p95 / scale) }; break;
	case 13: *out = (struct mib_value){ .type = MIB_GAUGE32, .num = gauge(h->p99 / scale) }; break;
	default: string_value(out, h->instance); break;
	}
}

static void row_value(const struct mib_env *env, int table, uint32_t col, const struct mib_row *r,
		      struct mib_value *out)
{
	const struct snapshot_bucket *b;

	switch (kind(table)) {
	case T_MODULES:
		if (col == 2)
			*out = (struct mib_value){ .type = MIB_INTEGER, .num = (uint64_t)state_number(r->m->state) };
		else if (col == 3)
			string_value(out, r->m->methods);
		else if (col == 4)
			string_value(out, r->m->error);
		else
			*out = (struct mib_value){ .type = MIB_TIMETICKS,
						   .num = timestamp(env, r->m->discontinuity_us) };
		break;
	case T_COUNTERS:
		if (col == 5)
			string_value(out, r->c->instance); /* the whole instance, whatever its index */
		else
			*out = (struct mib_value){ .type = col == 3 ? MIB_COUNTER64 : MIB_COUNTER32,
						   .num = col == 3 ? r->c->value : r->c->value & 0xffffffffu };
		break;
	case T_HISTS:
		hist_value(r->h, col, out);
		break;
	case T_GAUGES:
		if (col == 3) {
			*out = (struct mib_value){ .type = MIB_GAUGE32, .num = gauge_down(r->g->value) };
		} else if (col == 5) {
			string_value(out, r->g->instance);
		} else {
			char text[32];

			snprintf(text, sizeof(text), "%.6g", r->g->value);
			string_value(out, text);
		}
		break;
	default:
		b = &snapshot_buckets(r->m, r->h)[r->bucket];
		/* Exact integer bounds of the slot; the open last slot's upper bound is 2^64-1. */
		if (col == 2)
			*out = (struct mib_value){ .type = MIB_COUNTER64,
						   .num = hist_slot_lower_bound(r->h->precision, b->slot) };
		else if (col == 3)
			*out = (struct mib_value){ .type = MIB_COUNTER64,
						   .num = hist_slot_upper_bound(r->h->precision, b->slot) };
		else if (col == 4)
			*out = (struct mib_value){ .type = MIB_COUNTER64, .num = b->count };
		else
			*out = (struct mib_value){ .type = MIB_COUNTER32, .num = b->count & 0xffffffffu };
		break;
	}
}

/* ---- lookups --------------------------------------------------------------------------------- */

static const struct mib_row *table_rows(const struct mib_tree *v, int table, size_t *n)
{
	if (table == T_SCALAR) {
		*n = 1;
		return &scalar_row;
	}
	*n = v->nrows[table];
	return v->rows[table];
}

/* First row whose index is > key (>= when inclusive). */
static const struct mib_row *first_after(const struct mib_row *rows, size_t n, const uint32_t *key, size_t klen,
					 bool inclusive)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_oid(rows[mid].index, rows[mid].len, key, klen);

		if (c < 0 || (c == 0 && !inclusive))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? &rows[lo] : NULL;
}

static void value_of(const struct mib_tree *v, const struct mib_env *env, const struct column *c,
		     const struct mib_row *r, struct mib_value *out)
{
	if (c->table == T_SCALAR)
		scalar_value(v, env, c->col, out);
	else
		row_value(env, c->table, c->col, r, out);
}

static bool has_prefix(const uint32_t *oid, size_t len, const struct column *c)
{
	return len >= c->plen && !cmp_oid(oid, c->plen, c->prefix, c->plen);
}

enum mib_lookup mib_tree_get(const struct mib_tree *v, const struct mib_env *env, const uint32_t *oid,
			     size_t len, struct mib_value *out)
{
	for (size_t t = 0; t < NTABLES; t++) {
		for (uint32_t col = tables[t].first_col; col <= tables[t].last_col; col++) {
			const struct column c = column_of(t, col);
			const struct mib_row *rows, *r;
			size_t n;

			if (!has_prefix(oid, len, &c) || len == c.plen)
				continue;
			rows = table_rows(v, c.table, &n);
			r = first_after(rows, n, oid + c.plen, len - c.plen, true);
			if (!r || cmp_oid(r->index, r->len, oid + c.plen, len - c.plen))
				return MIB_NO_SUCH_INSTANCE;
			value_of(v, env, &c, r, out);
			return MIB_FOUND;
		}
	}
	return MIB_NO_SUCH_OBJECT;
}

enum mib_lookup mib_tree_next(const struct mib_tree *v, const struct mib_env *env, const uint32_t *oid,
			      size_t len, bool inclusive, uint32_t *next, size_t *next_len, struct mib_value *out)
{
	for (size_t t = 0; t < NTABLES; t++) {
		for (uint32_t col = tables[t].first_col; col <= tables[t].last_col; col++) {
			const struct column c = column_of(t, col);
			const struct mib_row *rows, *r;
			size_t n;

			rows = table_rows(v, c.table, &n);
			if (has_prefix(oid, len, &c))
				r = first_after(rows, n, oid + c.plen, len - c.plen, inclusive);
			else if (cmp_oid(oid, len, c.prefix, c.plen) < 0)
				r = n ? &rows[0] : NULL; /* the request lies before this column */
			else
				continue;                /* after it */
			if (!r)
				continue;
			memcpy(next, c.prefix, c.plen * sizeof(*next));
			memcpy(next + c.plen, r->index, r->len * sizeof(*next));
			*next_len = c.plen + r->len;
			value_of(v, env, &c, r, out);
			return MIB_FOUND;
		}
	}
	return MIB_END;
}
