/* `By "cgroup"`: the per-cgroup tables sized before load, and read as series after
 * (cgroup_rows.h). */
#include "libcore/engine/cgroup_rows.h"

#include "bpf/include/cgroup_key.h"
#include "bpf/include/hist_row.h"
#include "libcore/engine/cgroup_group.h"
#include "libcore/engine/cgroup_pressure.h"
#include "libcore/engine/cgroup_select.h"
#include "libcore/engine/cgroup_slots.h"
#include "libcore/engine/command_group.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/tracing_helpers.h"
#include "libcore/read/series_read.h"
#include "libcore/read/view_labels.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	bool *by = ENGINE_RODATA(obj, by_cgroup);
	bool *command = ENGINE_RODATA(obj, by_command);
	uint32_t *depth = ENGINE_RODATA(obj, cgroup_depth);
	/* Only in objects with per-cgroup histograms (process has counters only). */
	uint32_t *precision = ENGINE_RODATA(obj, cgroup_hist_precision);
	/* Not in an object whose programs never ask for the current task's cgroup (tcp's: the
	 * socket's). */
	bool *helper = ENGINE_RODATA(obj, ancestor_helper);
	struct bpf_map *ignored;
	uint32_t value_size[ntables > 0 ? ntables : 1];
	int made;

	if (!by || !depth || !command)
		return -ENOENT;
	*by = o->on;
	*command = o->command;
	*depth = o->depth;
	if (precision)
		*precision = m->cgroup_precision;
	if (helper)
		*helper = o->on && !o->command && !o->ancestors_by_core &&
			  tracing_helper_available(BPF_FUNC_get_current_ancestor_cgroup_id);
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
		value_size[t] = bpf_map__value_size(map);
	}
	if (cgroup_slots_used(tables, ntables)) {
		int e = cgroup_slots_configure(obj, o->on, cgroups_sized(o), tables, ntables, value_size);

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
	ignored = bpf_object__find_map_by_name(obj, ENGINE_MAP_NAME(cgroup_ignored));
	if (!ignored)
		return -ENOENT;
	made = bpf_map__set_autocreate(ignored, o->on && !o->command);
	return made ? made : cgroup_select_configure(obj, o);
}

/* ---- the reader ----------------------------------------------------------------------------- */

/* One table read as series: its rows' names (a label, or the rows as fields), and its
 * entries' fates from the group of the key's cgroup. */
struct table_reader {
	struct cgroup_rows *owner;
	const struct cgroup_table *t;
	char **names;                /* [nrows], fields and histogram tables: the row label's */
	int *row_fields;             /* [nrows], rows tables: the field a row is, or -1 */
	struct decoder_chain row_chain;
	struct metric_id count_id;
	struct series_group group;
	struct series_view view;
	struct series_reader *reader;
};

struct cgroup_rows {
	struct cgroup_group *group;      /* By "cgroup" */
	struct command_group *commands;  /* or By "command" */
	struct table_reader *tables;
	int ntables;
	struct cgroup_pressure *pressure; /* Pressure (on by default), or NULL */
	struct cgroup_slots *slots;       /* tables the programs count into by slot, or NULL */
	void (*after_places)(void *ctx, struct cgroup_group *g, const struct metric_sink *sink);
	void *after_places_ctx;
};

static bool row_named(const struct table_reader *tr, uint32_t row)
{
	return row < tr->t->nrows && (tr->names ? tr->names[row] != NULL : tr->row_fields[row] >= 0);
}

/* An entry's fate is its cgroup's; an entry of a row nothing names has no series (and is
 * deleted with its cgroup's others). */
static enum series_fate table_fate(void *ctx, const uint8_t *key, const char **text, uint64_t *token)
{
	struct table_reader *tr = ctx;
	struct cgroup_row_key k;
	enum series_fate fate;

	memcpy(&k, key, sizeof(k));
	if (tr->owner->commands)
		fate = command_group_fate(tr->owner->commands, k.command, text, token);
	else
		fate = cgroup_group_fate(tr->owner->group, k.cgroup, text, token);
	if (tr->owner->slots)
		cgroup_slots_note(tr->owner->slots, key, fate == SERIES_SEND || fate == SERIES_SKIP);
	if (row_named(tr, k.row))
		return fate;
	return fate == SERIES_SEND ? SERIES_SKIP : SERIES_DELETE;
}

static bool table_holds(void *ctx, uint64_t token)
{
	const struct table_reader *tr = ctx;

	/* a command keeps its place for the module's life */
	return tr->owner->commands || cgroup_group_holds(tr->owner->group, token);
}

/* A rows table: each named row its own counter field (process' forks, execs). */
static int rows_as_fields(struct table_reader *tr)
{
	const struct cgroup_table *t = tr->t;
	struct series_view *v = &tr->view;

	if (!(tr->row_fields = malloc(t->nrows * sizeof(*tr->row_fields))))
		return -ENOMEM;
	for (uint32_t row = 0; row < t->nrows; row++)
		tr->row_fields[row] = -1;
	for (int i = 0; i < t->nrows_view && v->nfields < SERIES_MAX_FIELDS; i++) {
		const struct view_row *vr = &t->rows[i];

		if (vr->row >= t->nrows)
			continue;
		tr->row_fields[vr->row] = v->nfields;
		v->fields[v->nfields++] = (struct series_field){
			.kind = VALUE_COUNTER, .id = { .name = vr->metric }, .width = sizeof(uint64_t),
			.instance_prefix = vr->instance[0] ? vr->instance : NULL };
	}
	v->row_fields = tr->row_fields;
	v->nrow_fields = t->nrows;
	v->row_offset = offsetof(struct cgroup_row_key, row);
	return 0;
}

/* A fields or histogram table: the row a label, a static_map of the module's row names. */
static int row_label(struct table_reader *tr, struct module *m, char *err, size_t errlen)
{
	const struct cgroup_table *t = tr->t;
	struct series_view *v = &tr->view;
	char buf[128];
	bool texts = false;

	decoder_chain_init(&tr->row_chain, "row");
	if (!(tr->names = calloc(t->nrows ? t->nrows : 1, sizeof(*tr->names))))
		return -ENOMEM;
	for (uint32_t row = 0; row < t->nrows; row++) {
		const char *name = t->row_instance(m, row, buf, sizeof(buf));

		if (name && !(tr->names[row] = strdup(name)))
			return -ENOMEM;
		texts |= name && name[0];
	}
	/* Rows all named "" (tcp without a port breakdown: "<cgroup>/") are no label. */
	if (texts && view_labels_chain_names(&tr->row_chain, (const char *const *)tr->names, t->nrows, err, errlen))
		return -EINVAL;
	if (texts)
		v->labels[v->nlabels++] = (struct series_label){ .name = t->row_label ? t->row_label : "row",
								 .offset = offsetof(struct cgroup_row_key, row),
								 .size = sizeof(uint32_t), .chain = &tr->row_chain };
	if (t->hist_metric) {
		v->fields[0] = (struct series_field){ .kind = VALUE_HISTOGRAM, .id = { .name = t->hist_metric },
						      .unit = t->unit };
		if (t->hist_count_metric) {
			tr->count_id = (struct metric_id){ .name = t->hist_count_metric };
			v->fields[0].count_id = &tr->count_id;
		}
		v->nfields = 1;
		return 0;
	}
	for (int f = 0; f < t->nfields && f < SERIES_MAX_FIELDS; f++)
		view_field_as_series(&t->fields[f], &v->fields[v->nfields++], &tr->count_id);
	return 0;
}

/* The table as a series view: room for a series per entry the map can hold and for
 * `other`'s rows, so that nothing folds but by the group's cap. */
static int table_reader_init(struct table_reader *tr, struct module *m, char *err, size_t errlen)
{
	const struct cgroup_table *t = tr->t;
	struct bpf_map *map = bpf_object__find_map_by_name(m->obj, t->map);
	int fd = map ? bpf_map__fd(map) : -1, e;

	if (fd < 0) {
		snprintf(err, errlen, "cannot set up the per-cgroup reader: the object has no map \"%s\"", t->map);
		return -1;
	}
	tr->group = (struct series_group){ .ctx = tr, .fate = table_fate, .holds = table_holds };
	tr->view = (struct series_view){
		.map = t->map, .fd = fd, .hash = true, .key_size = sizeof(struct cgroup_row_key),
		.value_size = bpf_map__value_size(map), .max_entries = bpf_map__max_entries(map),
		.copies = COPIES_SUMMED, .full_size = bpf_map__value_size(map), .precision = m->cgroup_precision,
		.lone_name = "", .group = &tr->group, .max_series = bpf_map__max_entries(map) + t->nrows,
	};
	e = t->rows ? rows_as_fields(tr) : row_label(tr, m, err, errlen);
	if (e == -EINVAL)
		return -1;
	if (e) {
		snprintf(err, errlen, "cannot set up the per-cgroup reader: %s", strerror(-e));
		return -1;
	}
	tr->reader = series_reader_new(&tr->view, err, errlen);
	return tr->reader ? 0 : -1;
}

struct cgroup_rows *cgroup_rows_new(struct module *m, const struct cgroup_options *o, const struct cgroup_table *tables,
				    int ntables, char *err, size_t errlen)
{
	struct cgroup_rows *r = calloc(1, sizeof(*r));
	struct bpf_map *ignored = bpf_object__find_map_by_name(m->obj, ENGINE_MAP_NAME(cgroup_ignored));
	struct bpf_map *select = bpf_object__find_map_by_name(m->obj, ENGINE_MAP_NAME(cgroup_select));
	uint64_t entries = 0;

	if (!r || !(r->tables = calloc(ntables, sizeof(*r->tables)))) {
		snprintf(err, errlen, "out of memory");
		free(r);
		return NULL;
	}
	r->ntables = ntables;
	for (int ti = 0; ti < ntables; ti++) {
		struct bpf_map *map = bpf_object__find_map_by_name(m->obj, tables[ti].map);

		entries += map ? bpf_map__max_entries(map) : 0;
	}
	if (o->command)
		r->commands = command_group_new(o->max_series, m->label, entries, err, errlen);
	else
		r->group = cgroup_group_new(o, m->label, ignored ? bpf_map__fd(ignored) : -1,
					    select ? bpf_map__fd(select) : -1, entries, err, errlen);
	for (int ti = 0; (r->group || r->commands) && ti < ntables; ti++) {
		r->tables[ti] = (struct table_reader){ .owner = r, .t = &tables[ti] };
		if (table_reader_init(&r->tables[ti], m, err, errlen)) {
			cgroup_rows_free(r);
			return NULL;
		}
	}
	if (r->ntables && r->tables[ntables - 1].reader && cgroup_slots_used(tables, ntables)) {
		int fds[ntables];

		for (int ti = 0; ti < ntables; ti++)
			fds[ti] = r->tables[ti].view.fd;
		if (!(r->slots = cgroup_slots_new(m->obj, tables, ntables, fds, err, errlen))) {
			cgroup_rows_free(r);
			return NULL;
		}
	}
	/* PSI is per cgroup: beside By "cgroup"'s rows only, never By "command"'s. */
	if (r->group && o->pressure && !(r->pressure = cgroup_pressure_new(m->label, o->max_series, NULL)))
		snprintf(err, errlen, "out of memory");
	if ((!r->group && !r->commands) || (r->group && o->pressure && !r->pressure)) {
		cgroup_rows_free(r);
		return NULL;
	}
	return r;
}

int cgroup_rows_read(struct cgroup_rows *r)
{
	int e = r->slots ? cgroup_slots_apply(r->slots) : 0;

	if (e)
		return e;
	for (int ti = 0; ti < r->ntables; ti++) {
		int e = series_reader_read(r->tables[ti].reader);

		if (e)
			return e;
	}
	return 0;
}

void cgroup_rows_send(struct cgroup_rows *r, const struct metric_sink *sink)
{
	if (r->commands)
		command_group_begin_read(r->commands);
	else
		cgroup_group_begin_read(r->group);
	for (int ti = 0; ti < r->ntables; ti++)
		series_reader_send(r->tables[ti].reader, sink);
	if (r->slots)
		cgroup_slots_release(r->slots);
	if (r->commands) {
		command_group_end_read(r->commands, sink);
		return;
	}
	cgroup_group_end_read(r->group, sink);
	if (r->pressure) /* files, not maps: nothing to read before the send */
		cgroup_pressure_read(r->pressure, r->group, sink);
	if (r->after_places)
		r->after_places(r->after_places_ctx, r->group, sink);
}

void cgroup_rows_after_places(struct cgroup_rows *r,
			      void (*fn)(void *ctx, struct cgroup_group *g, const struct metric_sink *sink), void *ctx)
{
	r->after_places = fn;
	r->after_places_ctx = ctx;
}

void cgroup_rows_free(struct cgroup_rows *r)
{
	if (!r)
		return;
	for (int ti = 0; r->tables && ti < r->ntables; ti++) {
		struct table_reader *tr = &r->tables[ti];

		series_reader_free(tr->reader);
		decoder_chain_free(&tr->row_chain);
		for (uint32_t row = 0; tr->names && row < tr->t->nrows; row++)
			free(tr->names[row]);
		free(tr->names);
		free(tr->row_fields);
	}
	free(r->tables);
	cgroup_slots_free(r->slots);
	cgroup_pressure_free(r->pressure);
	cgroup_group_free(r->group);
	command_group_free(r->commands);
	free(r);
}
