/* The cgroups of a module's per-cgroup tables (cgroup_group.h). */
#include "libcore/engine/cgroup_group.h"

#include "base/label_value.h"
#include "base/log.h"
#include "base/text_hash.h"
#include "libcore/decode/cgroup_paths.h"
#include "libcore/engine/cgroup_select.h"
#include "libcore/engine/module.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cg_state { CG_FREE, CG_SERIES, CG_OTHER, CG_IGNORED };

/* Reads a place keeps its name once its last cgroup is gone (CGROUP_LINGER_READS,
 * cgroup_group.h), waiting for the name's next incarnation. */

/* A cgroup met in this read's entries: where its values go, and whether it is gone. */
struct cg_entry {
	uint64_t id;
	uint8_t state;
	bool gone;
	uint32_t place;
};

/* A name's place among the MaxSeries with series: the name's live cgroups (incarnations:
 * a service restarted is a new cgroup under the same path, for a while beside the old one),
 * and since when it has none. gen tells its series a later name in the same place apart. */
struct cg_place {
	bool used;
	uint64_t path_hash; /* of the path whose name it is: another path of the same name is not an incarnation */
	uint32_t live;
	uint32_t vacant_reads;
	uint32_t gen;
	char name[LABEL_VALUE_MAX];
};

struct cgroup_group {
	const struct cgroup_options *o;
	const char *label; /* the module's, for the log */
	struct cgroup_paths paths;
	/* The cgroups met in this read and in the last: open addressing by id, cap slots (a
	 * power of two, at least twice the tables' entries). */
	struct cg_entry *ids, *ids_prev;
	uint32_t cap;
	struct cg_place *places; /* max_series */
	uint32_t nplaces;        /* used */
	uint32_t *by_name;       /* place + 1 by name hash, open addressing; name_cap slots */
	uint32_t name_cap;
	uint32_t folded;         /* cgroups in `other` this read */
	bool ever_folded;
	int ignored_fd;
	struct cgroup_select select;
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

static uint32_t name_slot(const char *name, uint32_t cap)
{
	return text_hash32(name) & (cap - 1);
}

/* The used place named `name`, or NULL. */
static struct cg_place *place_named(struct cgroup_group *g, const char *name)
{
	for (uint32_t i = name_slot(name, g->name_cap); g->by_name[i]; i = (i + 1) & (g->name_cap - 1))
		if (!strcmp(g->places[g->by_name[i] - 1].name, name))
			return &g->places[g->by_name[i] - 1];
	return NULL;
}

static void index_place(struct cgroup_group *g, uint32_t place)
{
	uint32_t i = name_slot(g->places[place].name, g->name_cap);

	while (g->by_name[i])
		i = (i + 1) & (g->name_cap - 1);
	g->by_name[i] = place + 1;
}

/* After places were given up: the index of the used ones made again (at most once a read). */
static void reindex_places(struct cgroup_group *g)
{
	memset(g->by_name, 0, g->name_cap * sizeof(*g->by_name));
	for (uint32_t p = 0; p < g->o->max_series; p++)
		if (g->places[p].used)
			index_place(g, p);
}

static bool is_gone(struct cgroup_group *g, uint64_t id)
{
	const char *path = cgroup_path(&g->paths, id);

	return !path || !cgroup_alive(&g->paths, id, path);
}

/* The name of the cgroup at path (its hash ph): its path made safe; when that is another
 * path's name already ("/a/b_c" and "/a/b/c" are both "a_b_c"), that name with '~' and a
 * hash of this path, so that two cgroups are never summed into one series (said once). */
static struct cg_place *name_for(struct cgroup_group *g, const char *path, uint64_t ph, char name[LABEL_VALUE_MAX])
{
	struct cg_place *named;
	char safe[LABEL_VALUE_MAX];

	label_value_safe(path, name);
	named = place_named(g, name);
	if (!named || named->path_hash == ph)
		return named;
	memcpy(safe, name, sizeof(safe));
	snprintf(name, LABEL_VALUE_MAX, "%.*s~%08x", (int)(LABEL_VALUE_MAX - 10), safe, (unsigned int)(ph >> 32));
	named = place_named(g, name);
	if (!named)
		ebpf_log(EBPF_LOG_WARNING,
			 "%s: two cgroups are named \"%s\" once made safe (a '/' and a '_' of their paths "
			 "differ): the later one is sent as \"%s\"",
			 g->label, safe, name);
	return named;
}

/* Where a cgroup met for the first time goes: the place of its name if the name has one
 * (another incarnation of it, live or gone a few reads ago), else a free place, else `other`. */
static void classify(struct cgroup_group *g, struct cg_entry *e)
{
	const char *path;
	char name[LABEL_VALUE_MAX];
	struct cg_place *named;
	uint64_t ph;

	e->gone = is_gone(g, e->id);
	e->state = CG_OTHER; /* gone: no series of one point; or no place left */
	if (e->gone)
		return;
	path = cgroup_path(&g->paths, e->id);
	if (!cgroup_options_selects(g->o, path)) {
		e->state = CG_IGNORED;
		return;
	}
	ph = text_hash64(path);
	if ((named = name_for(g, path, ph, name))) {
		named->live++;
		named->vacant_reads = 0;
		e->state = CG_SERIES;
		e->place = (uint32_t)(named - g->places);
		return;
	}
	for (uint32_t i = 0; i < g->o->max_series; i++) {
		struct cg_place *p = &g->places[i];

		if (p->used)
			continue;
		*p = (struct cg_place){ .used = true, .path_hash = ph, .live = 1, .gen = p->gen + 1 };
		memcpy(p->name, name, sizeof(p->name));
		index_place(g, i);
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
	cgroup_select_update(&g->select, g->paths.root_fd);
}

/* A place's token: its index and generation (0 is `other`'s, which is always held). */
static uint64_t place_token(const struct cgroup_group *g, uint32_t place)
{
	return (uint64_t)g->places[place].gen << 32 | (place + 1);
}

bool cgroup_group_holds(const struct cgroup_group *g, uint64_t token)
{
	uint32_t place = (uint32_t)token - 1;

	return !token || (place < g->o->max_series && g->places[place].used && g->places[place].gen == token >> 32);
}

/* A removed cgroup's entries are carried by their series (SERIES_CARRY): a name's values are
 * the sum over its incarnations, and never go back because one of them ended. So are a
 * folded cgroup's, live or not, by `other`'s: a folded cgroup pins no kernel row (its next
 * event makes one, which the next read folds again), so that a flood of cgroups beyond
 * MaxSeries cannot keep the tables full. */
enum series_fate cgroup_group_fate(struct cgroup_group *g, uint64_t id, const char **text, uint64_t *token)
{
	const struct cg_entry *e = entry_of(g, id);

	*token = 0;
	switch (e->state) {
	case CG_SERIES:
		*text = g->places[e->place].name;
		*token = place_token(g, e->place);
		return e->gone ? SERIES_CARRY : SERIES_SEND;
	case CG_OTHER:
		*text = "other";
		return SERIES_CARRY;
	default:
		return SERIES_DELETE;
	}
}

/* Places without a live cgroup for more than CGROUP_LINGER_READS reads are given up: their
 * series are forgotten (cgroup_group_holds) and the place goes to a newcomer. */
static void age_places(struct cgroup_group *g)
{
	bool gave_up = false;

	for (uint32_t i = 0; i < g->o->max_series; i++) {
		struct cg_place *p = &g->places[i];

		if (!p->used || p->live || ++p->vacant_reads <= CGROUP_LINGER_READS)
			continue;
		p->used = false;
		g->nplaces--;
		gave_up = true;
	}
	if (gave_up)
		reindex_places(g);
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
		if (e->state == CG_SERIES && g->places[e->place].live)
			g->places[e->place].live--;
		/* the entry stays, gone: a slot of the probe chains of the next read */
	}
	age_places(g);
	g->ever_folded |= g->folded > 0;
	if (sink->gauge && g->ever_folded)
		sink->gauge(sink->ctx, METRIC("folded"), "cgroups", g->folded);
}

void cgroup_group_each_place(struct cgroup_group *g, void (*fn)(void *ctx, const struct cgroup_place_seen *s),
			     void *ctx)
{
	for (uint32_t i = 0; i < g->cap; i++) {
		const struct cg_entry *e = &g->ids[i];
		struct cgroup_place_seen s;

		if (e->state != CG_SERIES || e->gone || !g->places[e->place].used)
			continue;
		s = (struct cgroup_place_seen){ .place = e->place, .gen = g->places[e->place].gen,
						.name = g->places[e->place].name, .id = e->id,
						.root_fd = g->paths.root_fd, .path = cgroup_path(&g->paths, e->id) };
		if (s.path)
			fn(ctx, &s);
	}
}

struct cgroup_group *cgroup_group_new(const struct cgroup_options *o, const char *label, int ignored_fd,
				      int select_fd, uint64_t entries, char *err, size_t errlen)
{
	struct cgroup_group *g = calloc(1, sizeof(*g));
	char how[512];

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	g->o = o;
	g->label = label;
	g->ignored_fd = ignored_fd;
	g->paths.root_fd = -1;
	if (cgroup_paths_init(&g->paths, NULL, err, errlen)) {
		free(g);
		return NULL;
	}
	g->paths.walk_depth = o->depth; /* the reads meet no cgroup deeper (a walk's bound) */
	g->cap = 16;
	while (g->cap < 2 * entries)
		g->cap *= 2;
	g->ids = calloc(g->cap, sizeof(*g->ids));
	g->ids_prev = calloc(g->cap, sizeof(*g->ids_prev));
	g->places = calloc(o->max_series ? o->max_series : 1, sizeof(*g->places));
	g->name_cap = 16;
	while (g->name_cap < 2 * o->max_series)
		g->name_cap *= 2;
	g->by_name = calloc(g->name_cap, sizeof(*g->by_name));
	if (!g->ids || !g->ids_prev || !g->places || !g->by_name) {
		snprintf(err, errlen, "cannot set up the per-cgroup reader: %s", strerror(ENOMEM));
		cgroup_group_free(g);
		return NULL;
	}
	cgroup_select_init(&g->select, o, select_fd);
	cgroup_select_update(&g->select, g->paths.root_fd);
	if (o->nglobs) {
		cgroup_select_describe(&g->select, how, sizeof(how));
		ebpf_log(EBPF_LOG_INFO, "%s: the Cgroup globs are %s", label, how);
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
	free(g->by_name);
	cgroup_paths_free(&g->paths);
	free(g);
}
