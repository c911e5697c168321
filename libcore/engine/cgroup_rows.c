#include "libcore/engine/cgroup_rows.h"

#include "base/options.h"
#include "bpf/include/cgroup_key.h"
#include "bpf/include/hist_row.h"
#include "libcore/decode/cgroup_paths.h"
#include "base/label_value.h"
#include "libcore/engine/module.h"
#include "libcore/hist/hist.h"
#include "libcore/kernel/map_dump.h"
#include "libcore/kernel/tracing_helpers.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- options ------------------------------------------------------------------------------ */

void cgroup_options_init(struct cgroup_options *o)
{
	memset(o, 0, sizeof(*o));
	o->depth = CGROUP_DEPTH_DEFAULT;
	o->max_series = CGROUP_MAX_SERIES_DEFAULT;
	hist_config_init(&o->hist);
}

/* A whole number from lo to hi, or -1 with err naming the option. */
static int whole_number(const struct option *opt, uint32_t lo, uint32_t hi, const char *example, uint32_t *out,
			char *err, size_t errlen)
{
	double v;

	if (opt_expect_numbers(opt, 1, 1, err, errlen))
		return -1;
	v = opt->values[0].number;
	if (!(v >= lo && v <= hi) || v != (double)(uint32_t)v) {
		snprintf(err, errlen, "%s takes one whole number from %u to %u, e.g. %s", opt->key, lo, hi, example);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int cgroup_options_set(struct cgroup_options *o, const struct option *opt, char *err, size_t errlen)
{
	if (!strcasecmp(opt->key, "By")) {
		if (opt_expect_strings(opt, 1, err, errlen))
			return -1;
		if (opt->nvalues != 1 || strcasecmp(opt->values[0].string, "cgroup")) {
			snprintf(err, errlen, "By takes one value, \"cgroup\" (the module's values per cgroup v2 cgroup "
				 "as well): By \"cgroup\"");
			return -1;
		}
		o->on = true;
		return 1;
	}
	if (!strcasecmp(opt->key, "CgroupDepth")) {
		o->tuned = true;
		return whole_number(opt, 1, CGROUP_DEPTH_MAX, "CgroupDepth 2 (system.slice/ssh.service)", &o->depth, err,
				    errlen) ? -1 : 1;
	}
	if (!strcasecmp(opt->key, "MaxSeries")) {
		o->tuned = true;
		return whole_number(opt, 1, CGROUP_MAX_SERIES_MAX, "MaxSeries 100", &o->max_series, err, errlen) ? -1 : 1;
	}
	if (!strcasecmp(opt->key, "CgroupPrecision")) {
		o->tuned = true;
		return hist_config_set_precision(&o->hist, opt, err, errlen);
	}
	if (!strcasecmp(opt->key, "CgroupIgnoreSelected")) {
		o->tuned = true;
		return opt_get_boolean(opt, &o->ignore_selected, err, errlen) ? -1 : 1;
	}
	if (!strcasecmp(opt->key, "Cgroup")) {
		o->tuned = true;
		if (opt_expect_strings(opt, 1, err, errlen))
			return -1;
		for (int i = 0; i < opt->nvalues; i++) {
			const char *g = opt->values[i].string;

			if (g[0] != '/') {
				snprintf(err, errlen, "Cgroup: \"%s\" is not a path below the cgroup2 root; start it with '/', "
					 "e.g. Cgroup \"/system.slice/*.service\"", g);
				return -1;
			}
			if (o->nglobs == CGROUP_GLOBS_MAX) {
				snprintf(err, errlen, "Cgroup: more than %d globs; join them into fewer ones", CGROUP_GLOBS_MAX);
				return -1;
			}
			if (!(o->globs[o->nglobs] = strdup(g))) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			o->nglobs++;
		}
		return 1;
	}
	return 0;
}

int cgroup_options_check(const struct cgroup_options *o, char *err, size_t errlen)
{
	if (o->tuned && !o->on) {
		snprintf(err, errlen, "CgroupDepth, Cgroup, CgroupIgnoreSelected, CgroupPrecision and MaxSeries shape "
			 "the values per cgroup, which By \"cgroup\" turns on: add By \"cgroup\", or remove them");
		return -1;
	}
	return 0;
}

bool cgroup_options_selects(const struct cgroup_options *o, const char *path)
{
	bool match = false;

	if (!o->nglobs)
		return true;
	for (int i = 0; i < o->nglobs && !match; i++)
		match = !fnmatch(o->globs[i], path, 0);
	return o->ignore_selected ? !match : match;
}

void cgroup_options_free(struct cgroup_options *o)
{
	for (int i = 0; i < o->nglobs; i++)
		free(o->globs[i]);
	o->nglobs = 0;
}

/* ---- kernel side ---------------------------------------------------------------------------- */

static uint32_t cgroups_sized(const struct cgroup_options *o)
{
	return CGROUP_ROWS_PER_SERIES * o->max_series;
}

uint32_t cgroup_rows_hist_rows(const struct cgroup_options *o, const struct cgroup_table *tables, int ntables)
{
	uint32_t rows = 0;

	for (int t = 0; o->on && t < ntables; t++)
		if (tables[t].hist_metric)
			rows += cgroups_sized(o) * tables[t].rows_per_cgroup;
	return rows;
}

int cgroup_rows_configure(struct module *m, struct bpf_object *obj, const struct cgroup_options *o,
			  const struct cgroup_table *tables, int ntables, const char *const *aux)
{
	bool *by = module_rodata(obj, "by_cgroup", sizeof(bool));
	uint32_t *depth = module_rodata(obj, "cgroup_depth", sizeof(uint32_t));
	/* Only in objects with per-cgroup histograms (process has counters only). */
	uint32_t *precision = module_rodata(obj, "cgroup_hist_precision", sizeof(uint32_t));
	/* Not in an object whose programs never ask for the current task's cgroup (tcp's: the
	 * socket's). */
	bool *helper = module_rodata(obj, "ancestor_helper", sizeof(bool));
	struct bpf_map *ignored;

	if (!by || !depth)
		return -ENOENT;
	*by = o->on;
	*depth = o->depth;
	if (precision)
		*precision = m->cgroup_precision;
	if (helper)
		*helper = o->on && tracing_helper_available(BPF_FUNC_get_current_ancestor_cgroup_id);
	for (int t = 0; t < ntables; t++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, tables[t].map);
		uint32_t entries = cgroups_sized(o) * (tables[t].rows_per_cgroup ? tables[t].rows_per_cgroup : 1);
		int e;

		if (!map)
			return -ENOENT;
		e = bpf_map__set_autocreate(map, o->on);
		if (!e && o->on)
			e = bpf_map__set_max_entries(map, entries);
		if (!e && o->on && tables[t].hist_metric)
			e = bpf_map__set_value_size(map, HIST_ROW_SIZE(m->cgroup_precision));
		if (e)
			return e;
	}
	for (int i = 0; aux && aux[i]; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, aux[i]);
		int e;

		if (!map)
			return -ENOENT;
		e = bpf_map__set_autocreate(map, o->on);
		if (e)
			return e;
	}
	/* every object with per-cgroup rows has it (cgroup_key.bpf.h) */
	ignored = bpf_object__find_map_by_name(obj, "cgroup_ignored");
	return ignored ? bpf_map__set_autocreate(ignored, o->on) : -ENOENT;
}

/* ---- the reader ----------------------------------------------------------------------------- */

enum cg_state { CG_FREE, CG_SERIES, CG_OTHER, CG_IGNORED };

/* A cgroup met in this read's rows: where its values go, and whether it is gone. */
struct cg_entry {
	uint64_t id;
	uint8_t state;
	bool gone;
	uint32_t series;
};

/* A cgroup with series: its name and a tracker per histogram row, made on first data. */
struct cg_series {
	bool used;
	char name[LABEL_VALUE_MAX];
	struct hist_tracker **trackers; /* [table's nrows] per histogram table, concatenated */
};

/* `other`'s sums of one table: this read's, what removed cgroups left (carried), and what
 * the cgroups found gone in this read add to the carry once `other` is sent. */
struct table_state {
	int fd;
	struct map_dump dump;
	uint32_t tracker_base;     /* histogram tables: first tracker of a series' array */
	uint64_t *acc, *carry, *gone;     /* counters: [nrows x nfields] */
	struct hist_row *hacc, *hcarry, *hgone; /* histograms: [nrows] */
	struct hist_tracker *other_trackers;
	bool *other_seen;          /* [nrows]: a row of `other` had an entry */
};

struct cgroup_rows {
	struct module *m;
	const struct cgroup_options *o;
	const struct cgroup_table *tables;
	int ntables;
	struct table_state *ts;
	struct cgroup_paths paths;
	struct cg_entry *ids, *ids_prev;
	uint32_t cap;                     /* of ids: a power of two, at least twice the entries */
	struct cg_series *series;         /* max_series of them */
	uint32_t nseries, ntrackers;
	uint32_t folded;
	bool ever_folded;
	uint64_t reclaimed;
	int ignored_fd;                   /* cgroup_ignored (cgroup_key.bpf.h), or -1 */
};

static uint32_t id_slot(uint64_t id, uint32_t cap)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The entry of id in table t (cap slots); a free one (id set) when it is not there. */
static struct cg_entry *id_find(struct cg_entry *t, uint32_t cap, uint64_t id)
{
	for (uint32_t i = id_slot(id, cap);; i = (i + 1) & (cap - 1))
		if (t[i].id == id || t[i].state == CG_FREE)
			return &t[i];
}

static void free_series(struct cgroup_rows *r, struct cg_series *s)
{
	for (uint32_t k = 0; s->trackers && k < r->ntrackers; k++) {
		free(s->trackers[k]);
		s->trackers[k] = NULL;
	}
	if (s->used)
		r->nseries--;
	s->used = false;
}

/* Where a cgroup met for the first time goes. */
static void classify(struct cgroup_rows *r, struct cg_entry *e)
{
	const char *path = cgroup_path(&r->paths, e->id);

	e->gone = !path || !cgroup_alive(&r->paths, e->id, path);
	if (e->gone) {
		e->state = CG_OTHER; /* no series of one point */
		return;
	}
	if (!cgroup_options_selects(r->o, path)) {
		e->state = CG_IGNORED;
		return;
	}
	for (uint32_t i = 0; i < r->o->max_series; i++) {
		struct cg_series *s = &r->series[i];

		if (s->used)
			continue;
		s->used = true;
		label_value_safe(path, s->name);
		r->nseries++;
		e->state = CG_SERIES;
		e->series = i;
		return;
	}
	e->state = CG_OTHER;
}

/* The entry of a key's cgroup in this read: carried over from the last read (checked for
 * removal) or classified. */
static struct cg_entry *entry_of(struct cgroup_rows *r, uint64_t id)
{
	struct cg_entry *e = id_find(r->ids, r->cap, id), *prev;
	const char *path;

	if (e->state != CG_FREE)
		return e;
	e->id = id;
	prev = id_find(r->ids_prev, r->cap, id);
	if (prev->state != CG_FREE && !prev->gone) {
		*e = *prev;
		path = cgroup_path(&r->paths, id);
		e->gone = !path || !cgroup_alive(&r->paths, id, path);
	} else {
		classify(r, e);
	}
	if (e->state == CG_OTHER)
		r->folded++;
	return e;
}

static void add_hist(struct hist_row *to, const struct hist_row *from, unsigned int nslots)
{
	to->sum += from->sum;
	for (unsigned int k = 0; k < nslots; k++)
		to->slots[k] += from->slots[k];
}

/* A rows table's row, NULL when it names none. */
static const struct view_row *view_row_of(const struct cgroup_table *t, uint32_t row)
{
	for (int i = 0; i < t->nrows_view; i++)
		if (t->rows[i].row == row)
			return &t->rows[i];
	return NULL;
}

/* Counter fields per key: a rows table's value is one. */
static int nfields_of(const struct cgroup_table *t)
{
	return t->rows ? 1 : t->nfields;
}

/* The metric and value offset of field f of a counter row; NULL metric: not sent. */
static const char *counter_of_row(const struct cgroup_table *t, uint32_t row, int f, size_t *offset)
{
	const struct view_row *vr;

	if (!t->rows) {
		*offset = t->fields[f].offset;
		return t->fields[f].metric;
	}
	vr = view_row_of(t, row);
	*offset = 0;
	return vr ? vr->metric : NULL;
}

/* "<cgroup>/<row instance>"; false when the row has no name. */
static bool instance_of(struct cgroup_rows *r, const struct cgroup_table *t, const char *cgroup, uint32_t row,
			char *out, size_t len)
{
	char buf[128];
	const struct view_row *vr = t->rows ? view_row_of(t, row) : NULL;
	const char *inst = t->rows ? (vr ? vr->instance : NULL) : t->row_instance(r->m, row, buf, sizeof(buf));

	size_t room;
	uint32_t h = 2166136261u; /* FNV-1a, as label_value.h cuts */

	if (!inst)
		return false;
	/* Within collectd's 127 characters as a whole, so that the snapshot (SNMP, the terminal
	 * view) keeps it whole too: a long cgroup is cut as label_value.h cuts, '~' and a hash. */
	room = LABEL_VALUE_MAX - 2 - strlen(inst);
	if (strlen(cgroup) <= room) {
		snprintf(out, len, "%s/%s", cgroup, inst);
		return true;
	}
	for (const char *p = cgroup; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(out, len, "%.*s~%08x/%s", (int)(room - 9), cgroup, h, inst);
	return true;
}

static void send_series_row(struct cgroup_rows *r, int ti, struct cg_series *s, uint32_t row, const uint8_t *val,
			    const struct metric_sink *sink)
{
	const struct cgroup_table *t = &r->tables[ti];
	struct hist_tracker **tr;
	char inst[2 * LABEL_VALUE_MAX + 2];

	if (!instance_of(r, t, s->name, row, inst, sizeof(inst)))
		return;
	if (!t->hist_metric) {
		for (int f = 0; f < nfields_of(t); f++) {
			size_t offset;
			const char *metric = counter_of_row(t, row, f, &offset);
			uint64_t v;

			memcpy(&v, val + offset, sizeof(v));
			if (metric && v)
				sink->counter(sink->ctx, METRIC(metric), inst, v);
		}
		return;
	}
	tr = &s->trackers[r->ts[ti].tracker_base + row];
	if (!*tr) {
		if (!(*tr = malloc(sizeof(**tr))))
			return; /* out of memory: this row waits for the next read */
		hist_tracker_init(*tr, 1, r->m->cgroup_precision);
	}
	emit_hist_row(sink, t->hist_metric, t->hist_count_metric, inst, t->unit, *tr, val);
}

static void add_other_row(struct cgroup_rows *r, int ti, uint32_t row, const uint8_t *val, bool gone)
{
	const struct cgroup_table *t = &r->tables[ti];
	struct table_state *s = &r->ts[ti];
	unsigned int nslots = HIST_NSLOTS(r->m->cgroup_precision);

	s->other_seen[row] = true;
	if (t->hist_metric) {
		add_hist(&s->hacc[row], (const struct hist_row *)val, nslots);
		if (gone)
			add_hist(&s->hgone[row], (const struct hist_row *)val, nslots);
		return;
	}
	for (int f = 0; f < nfields_of(t); f++) {
		size_t offset;
		uint64_t v;

		counter_of_row(t, row, f, &offset);
		memcpy(&v, val + offset, sizeof(v));
		s->acc[(size_t)row * nfields_of(t) + f] += v;
		if (gone)
			s->gone[(size_t)row * nfields_of(t) + f] += v;
	}
}

/* `other` = this read's folded rows + what removed ones left; then the removed ones of this
 * read join the carry. A row is sent from its first entry on, every read. */
static void send_other(struct cgroup_rows *r, int ti, const struct metric_sink *sink)
{
	const struct cgroup_table *t = &r->tables[ti];
	struct table_state *s = &r->ts[ti];
	unsigned int nslots = HIST_NSLOTS(r->m->cgroup_precision);
	char inst[2 * LABEL_VALUE_MAX + 2];

	for (uint32_t row = 0; row < t->nrows; row++) {
		if (!s->other_seen[row] || !instance_of(r, t, "other", row, inst, sizeof(inst)))
			continue;
		if (t->hist_metric) {
			add_hist(&s->hacc[row], &s->hcarry[row], nslots);
			emit_hist_row(sink, t->hist_metric, t->hist_count_metric, inst, t->unit, &s->other_trackers[row],
				      &s->hacc[row]);
			add_hist(&s->hcarry[row], &s->hgone[row], nslots);
			continue;
		}
		for (int f = 0; f < nfields_of(t); f++) {
			size_t i = (size_t)row * nfields_of(t) + f, offset;
			const char *metric = counter_of_row(t, row, f, &offset);
			uint64_t v = s->acc[i] + s->carry[i];

			if (metric && v)
				sink->counter(sink->ctx, METRIC(metric), inst, v);
			s->carry[i] += s->gone[i];
		}
	}
}

static void clear_other(struct cgroup_rows *r, int ti)
{
	const struct cgroup_table *t = &r->tables[ti];
	struct table_state *s = &r->ts[ti];

	if (t->hist_metric) {
		memset(s->hacc, 0, t->nrows * sizeof(*s->hacc));
		memset(s->hgone, 0, t->nrows * sizeof(*s->hgone));
	} else {
		memset(s->acc, 0, (size_t)t->nrows * nfields_of(t) * sizeof(*s->acc));
		memset(s->gone, 0, (size_t)t->nrows * nfields_of(t) * sizeof(*s->gone));
	}
}

/* The rows of cgroups found gone: deleted (they can never count again: no task can join a
 * removed cgroup), their series places freed. The rows of cgroups the selection leaves out
 * are deleted too, and those cgroups told to the kernel (cgroup_ignored), which then gives
 * them no row: the tables' room stays for the selected ones. */
static void reclaim_gone(struct cgroup_rows *r)
{
	const uint8_t ignored = 1;

	for (int ti = 0; ti < r->ntables; ti++) {
		struct table_state *s = &r->ts[ti];

		for (uint32_t i = 0; i < s->dump.count; i++) {
			const uint8_t *key = s->dump.keys + (size_t)i * s->dump.key_size;
			struct cgroup_row_key k;
			const struct cg_entry *e;

			memcpy(&k, key, sizeof(k));
			e = id_find(r->ids, r->cap, k.cgroup);
			if (e->gone || e->state == CG_IGNORED)
				bpf_map_delete_elem(s->fd, key);
		}
	}
	for (uint32_t i = 0; i < r->cap; i++) {
		struct cg_entry *e = &r->ids[i];

		if (e->state == CG_IGNORED && !e->gone && r->ignored_fd >= 0) /* once per cgroup, not per row */
			bpf_map_update_elem(r->ignored_fd, &e->id, &ignored, BPF_ANY);
		if (e->state == CG_FREE || !e->gone)
			continue;
		if (e->state == CG_SERIES)
			free_series(r, &r->series[e->series]);
		r->reclaimed++; /* the entry stays, gone: a slot of the probe chains of the next read */
	}
}

int cgroup_rows_read(struct cgroup_rows *r, const struct metric_sink *sink)
{
	struct cg_entry *swap;

	for (int ti = 0; ti < r->ntables; ti++) {
		int e = map_dump_read(&r->ts[ti].dump);

		if (e)
			return e;
	}
	swap = r->ids_prev;
	r->ids_prev = r->ids;
	r->ids = swap;
	memset(r->ids, 0, r->cap * sizeof(*r->ids));
	r->folded = 0;
	for (int ti = 0; ti < r->ntables; ti++) {
		struct table_state *s = &r->ts[ti];

		clear_other(r, ti);
		for (uint32_t i = 0; i < s->dump.count; i++) {
			struct cgroup_row_key k;
			const uint8_t *val = s->dump.values + (size_t)i * s->dump.value_size;
			struct cg_entry *e;

			memcpy(&k, s->dump.keys + (size_t)i * s->dump.key_size, sizeof(k));
			if (k.row >= r->tables[ti].nrows)
				continue;
			e = entry_of(r, k.cgroup);
			if (e->state == CG_SERIES)
				send_series_row(r, ti, &r->series[e->series], k.row, val, sink);
			else if (e->state == CG_OTHER)
				add_other_row(r, ti, k.row, val, e->gone);
		}
		send_other(r, ti, sink);
	}
	/* The cgroups the previous read had and this one did not meet are forgotten with it. */
	reclaim_gone(r);
	r->ever_folded |= r->folded > 0;
	if (sink->gauge && r->ever_folded)
		sink->gauge(sink->ctx, METRIC("folded"), "cgroups", r->folded);
	return 0;
}

static int table_state_init(struct cgroup_rows *r, int ti, uint32_t *ntrackers)
{
	const struct cgroup_table *t = &r->tables[ti];
	struct table_state *s = &r->ts[ti];
	struct bpf_map *map = bpf_object__find_map_by_name(r->m->obj, t->map);
	size_t n = t->nrows ? t->nrows : 1;

	if (!map || (s->fd = bpf_map__fd(map)) < 0)
		return -ENOENT;
	if (map_dump_init(&s->dump, s->fd, true, sizeof(struct cgroup_row_key), bpf_map__value_size(map),
			  bpf_map__max_entries(map)))
		return -ENOMEM;
	s->other_seen = calloc(n, sizeof(*s->other_seen));
	if (t->hist_metric) {
		s->tracker_base = *ntrackers;
		*ntrackers += t->nrows;
		s->hacc = calloc(n, sizeof(*s->hacc));
		s->hcarry = calloc(n, sizeof(*s->hcarry));
		s->hgone = calloc(n, sizeof(*s->hgone));
		s->other_trackers = calloc(n, sizeof(*s->other_trackers));
		if (!s->hacc || !s->hcarry || !s->hgone || !s->other_trackers)
			return -ENOMEM;
		hist_tracker_init(s->other_trackers, n, r->m->cgroup_precision);
	} else {
		s->acc = calloc(n * nfields_of(t), sizeof(*s->acc));
		s->carry = calloc(n * nfields_of(t), sizeof(*s->carry));
		s->gone = calloc(n * nfields_of(t), sizeof(*s->gone));
		if (!s->acc || !s->carry || !s->gone)
			return -ENOMEM;
	}
	return s->other_seen ? 0 : -ENOMEM;
}

struct cgroup_rows *cgroup_rows_new(struct module *m, const struct cgroup_options *o, const struct cgroup_table *tables,
				    int ntables, char *err, size_t errlen)
{
	struct cgroup_rows *r = calloc(1, sizeof(*r));
	struct bpf_map *map;
	uint64_t entries = 0;
	int e = 0;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->m = m;
	r->o = o;
	r->tables = tables;
	r->ntables = ntables;
	r->paths.root_fd = -1;
	map = bpf_object__find_map_by_name(m->obj, "cgroup_ignored");
	r->ignored_fd = map ? bpf_map__fd(map) : -1;
	if (cgroup_paths_init(&r->paths, NULL, err, errlen)) {
		free(r);
		return NULL;
	}
	r->ts = calloc(ntables, sizeof(*r->ts));
	r->series = calloc(o->max_series, sizeof(*r->series));
	if (!r->ts || !r->series)
		e = -ENOMEM;
	for (int ti = 0; !e && ti < ntables; ti++) {
		e = table_state_init(r, ti, &r->ntrackers);
		entries += r->ts[ti].dump.max_entries;
	}
	for (uint32_t i = 0; !e && i < o->max_series; i++)
		if (r->ntrackers && !(r->series[i].trackers = calloc(r->ntrackers, sizeof(*r->series[i].trackers))))
			e = -ENOMEM;
	r->cap = 16;
	while (!e && r->cap < 2 * entries)
		r->cap *= 2;
	if (!e) {
		r->ids = calloc(r->cap, sizeof(*r->ids));
		r->ids_prev = calloc(r->cap, sizeof(*r->ids_prev));
		if (!r->ids || !r->ids_prev)
			e = -ENOMEM;
	}
	if (e) {
		snprintf(err, errlen, "cannot set up the per-cgroup reader: %s", strerror(-e));
		cgroup_rows_free(r);
		return NULL;
	}
	return r;
}

void cgroup_rows_free(struct cgroup_rows *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; r->series && i < r->o->max_series; i++) {
		free_series(r, &r->series[i]);
		free(r->series[i].trackers);
	}
	for (int ti = 0; r->ts && ti < r->ntables; ti++) {
		struct table_state *s = &r->ts[ti];

		map_dump_free(&s->dump);
		free(s->acc);
		free(s->carry);
		free(s->gone);
		free(s->hacc);
		free(s->hcarry);
		free(s->hgone);
		free(s->other_trackers);
		free(s->other_seen);
	}
	free(r->ts);
	free(r->series);
	free(r->ids);
	free(r->ids_prev);
	cgroup_paths_free(&r->paths);
	free(r);
}

uint32_t cgroup_rows_nseries(const struct cgroup_rows *r)
{
	return r->nseries;
}

uint64_t cgroup_rows_reclaimed(const struct cgroup_rows *r)
{
	return r->reclaimed;
}
