/* The cgroups of a module's per-cgroup tables (cgroup_group.h). */
#include "libcore/engine/cgroup_group.h"

#include "base/label_value.h"
#include "libcore/decode/cgroup_paths.h"
#include "libcore/engine/module.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cg_state { CG_FREE, CG_SERIES, CG_OTHER, CG_IGNORED };

/* A cgroup met in this read's entries: where its values go, and whether it is gone. */
struct cg_entry {
	uint64_t id;
	uint8_t state;
	bool gone;
	uint32_t place;
};

/* A cgroup's place among the MaxSeries with series: its name. */
struct cg_place {
	bool used;
	char name[LABEL_VALUE_MAX];
};

struct cgroup_group {
	const struct cgroup_options *o;
	struct cgroup_paths paths;
	/* The cgroups met in this read and in the last: open addressing by id, cap slots (a
	 * power of two, at least twice the tables' entries). */
	struct cg_entry *ids, *ids_prev;
	uint32_t cap;
	struct cg_place *places; /* max_series */
	uint32_t nplaces;        /* used */
	uint32_t folded;         /* cgroups in `other` this read */
	bool ever_folded;
	uint64_t reclaimed;
	int ignored_fd;
};

static uint32_t id_slot(uint64_t id, uint32_t cap)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The entry of id in table t (cap slots); a free one when it is not there. */
static struct cg_entry *id_find(struct cg_entry *t, uint32_t cap, uint64_t id)
{
	for (uint32_t i = id_slot(id, cap);; i = (i + 1) & (cap - 1))
		if (t[i].id == id || t[i].state == CG_FREE)
			return &t[i];
}

static bool is_gone(struct cgroup_group *g, uint64_t id)
{
	const char *path = cgroup_path(&g->paths, id);

	return !path || !cgroup_alive(&g->paths, id, path);
}

/* Where a cgroup met for the first time goes. */
static void classify(struct cgroup_group *g, struct cg_entry *e)
{
	const char *path;

	e->gone = is_gone(g, e->id);
	e->state = CG_OTHER; /* gone: no series of one point; or no place left */
	if (e->gone)
		return;
	path = cgroup_path(&g->paths, e->id);
	if (!cgroup_options_selects(g->o, path)) {
		e->state = CG_IGNORED;
		return;
	}
	for (uint32_t i = 0; i < g->o->max_series; i++) {
		struct cg_place *p = &g->places[i];

		if (p->used)
			continue;
		p->used = true;
		label_value_safe(path, p->name);
		g->nplaces++;
		e->state = CG_SERIES;
		e->place = i;
		return;
	}
}

/* The entry of a cgroup in this read: as the last read left it (checked for removal), or
 * classified. */
static struct cg_entry *entry_of(struct cgroup_group *g, uint64_t id)
{
	struct cg_entry *e = id_find(g->ids, g->cap, id), *prev;

	if (e->state != CG_FREE)
		return e;
	e->id = id;
	prev = id_find(g->ids_prev, g->cap, id);
	if (prev->state != CG_FREE && !prev->gone) {
		*e = *prev;
		e->gone = is_gone(g, id);
	} else {
		classify(g, e);
	}
	if (e->state == CG_OTHER)
		g->folded++;
	return e;
}

void cgroup_group_begin_read(struct cgroup_group *g)
{
	struct cg_entry *swap = g->ids_prev;

	/* The cgroups the last read had and this one does not meet are forgotten with it. */
	g->ids_prev = g->ids;
	g->ids = swap;
	memset(g->ids, 0, g->cap * sizeof(*g->ids));
	g->folded = 0;
}

enum series_fate cgroup_group_fate(struct cgroup_group *g, uint64_t id, const char **text)
{
	const struct cg_entry *e = entry_of(g, id);

	switch (e->state) {
	case CG_SERIES:
		*text = g->places[e->place].name;
		return e->gone ? SERIES_LAST : SERIES_SEND;
	case CG_OTHER:
		*text = "other";
		return e->gone ? SERIES_CARRY : SERIES_SEND;
	default:
		return SERIES_DELETE;
	}
}

void cgroup_group_end_read(struct cgroup_group *g, const struct metric_sink *sink)
{
	const uint8_t ignored = 1;

	for (uint32_t i = 0; i < g->cap; i++) {
		struct cg_entry *e = &g->ids[i];

		if (e->state == CG_IGNORED && !e->gone && g->ignored_fd >= 0) /* once per cgroup, not per entry */
			bpf_map_update_elem(g->ignored_fd, &e->id, &ignored, BPF_ANY);
		if (e->state == CG_FREE || !e->gone)
			continue;
		if (e->state == CG_SERIES && g->places[e->place].used) {
			g->places[e->place].used = false;
			g->nplaces--;
		}
		g->reclaimed++; /* the entry stays, gone: a slot of the probe chains of the next read */
	}
	g->ever_folded |= g->folded > 0;
	if (sink->gauge && g->ever_folded)
		sink->gauge(sink->ctx, METRIC("folded"), "cgroups", g->folded);
}

struct cgroup_group *cgroup_group_new(const struct cgroup_options *o, int ignored_fd, uint64_t entries, char *err,
				      size_t errlen)
{
	struct cgroup_group *g = calloc(1, sizeof(*g));

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	g->o = o;
	g->ignored_fd = ignored_fd;
	g->paths.root_fd = -1;
	if (cgroup_paths_init(&g->paths, NULL, err, errlen)) {
		free(g);
		return NULL;
	}
	g->cap = 16;
	while (g->cap < 2 * entries)
		g->cap *= 2;
	g->ids = calloc(g->cap, sizeof(*g->ids));
	g->ids_prev = calloc(g->cap, sizeof(*g->ids_prev));
	g->places = calloc(o->max_series ? o->max_series : 1, sizeof(*g->places));
	if (!g->ids || !g->ids_prev || !g->places) {
		snprintf(err, errlen, "cannot set up the per-cgroup reader: %s", strerror(ENOMEM));
		cgroup_group_free(g);
		return NULL;
	}
	return g;
}

void cgroup_group_free(struct cgroup_group *g)
{
	if (!g)
		return;
	free(g->ids);
	free(g->ids_prev);
	free(g->places);
	cgroup_paths_free(&g->paths);
	free(g);
}

uint32_t cgroup_group_nseries(const struct cgroup_group *g)
{
	return g->nplaces;
}

uint64_t cgroup_group_reclaimed(const struct cgroup_group *g)
{
	return g->reclaimed;
}
