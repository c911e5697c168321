/* The witness counts of a module's points, per CPU, into "untraced" (witness.h). */
#include "libcore/engine/witness.h"

#include "libcore/engine/module.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdint.h>
#include <stdlib.h>

/* bpf/include/witness.bpf.h's row, in the same field order. */
struct witness_count {
	uint64_t fired;
	uint64_t ran;
};

struct witness_reader {
	int fd;
	int ncpus;
	int npoints;
	uint64_t *most;              /* per point and CPU: the largest fired - ran read so far */
	struct witness_count *row;   /* one point's per-CPU values */
};

static bool point_witnessed(const struct probe_set *ps, const struct probe_point *p)
{
	return !ps->witness_off && p->enabled && p->chosen >= 0 && p->candidates[p->chosen].witnesses;
}

struct witness_reader *witness_reader_new(const struct module *m)
{
	struct bpf_map *map = m->probes.obj ? bpf_object__find_map_by_name(m->probes.obj, ENGINE_MAP_NAME(witness)) : NULL;
	int ncpus = libbpf_num_possible_cpus(), any = 0;
	struct witness_reader *w;

	for (int i = 0; i < m->probes.npoints; i++)
		any |= point_witnessed(&m->probes, &m->probes.points[i]);
	if (!any || !map || ncpus <= 0 || bpf_map__fd(map) < 0)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	*w = (struct witness_reader){ .fd = bpf_map__fd(map), .ncpus = ncpus, .npoints = m->probes.npoints };
	w->most = calloc((size_t)w->npoints * (size_t)ncpus, sizeof(*w->most));
	w->row = calloc((size_t)ncpus, sizeof(*w->row));
	if (!w->most || !w->row) {
		witness_reader_free(w);
		return NULL;
	}
	return w;
}

/* The point's untraced count: per CPU the largest fired - ran so far, summed. */
static int point_untraced(struct witness_reader *w, uint32_t point, uint64_t *total)
{
	uint64_t *most = &w->most[(size_t)point * (size_t)w->ncpus];

	if (bpf_map_lookup_elem(w->fd, &point, w->row))
		return -1;
	*total = 0;
	for (int c = 0; c < w->ncpus; c++) {
		/* ran ahead of fired (a run whose firing is not counted yet) is no loss */
		if (w->row[c].fired > w->row[c].ran && w->row[c].fired - w->row[c].ran > most[c])
			most[c] = w->row[c].fired - w->row[c].ran;
		*total += most[c];
	}
	return 0;
}

void witness_read(struct witness_reader *w, const struct module *m, const struct metric_sink *sink)
{
	uint64_t untraced;

	if (!w)
		return;
	for (int i = 0; i < w->npoints && i < m->probes.npoints; i++)
		if (point_witnessed(&m->probes, &m->probes.points[i]) && !point_untraced(w, (uint32_t)i, &untraced))
			sink->counter(sink->ctx, METRIC("untraced"), m->probes.points[i].name, untraced);
}

void witness_reader_free(struct witness_reader *w)
{
	if (!w)
		return;
	free(w->most);
	free(w->row);
	free(w);
}
