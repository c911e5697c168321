#include "libcore/programs/program_model.h"
#include "libcore/read/series_read.h"

#include <stdio.h>
#include <string.h>

size_t program_reader_series_bytes(enum program_view_kind kind)
{
	return series_reader_series_bytes(1, kind == VIEW_KIND_HISTOGRAM);
}

static const char *const convention_names[] = {
	[SLOTS_NATIVE] = "native", [SLOTS_LOG2] = "log2",   [SLOTS_BCC_LOG2] = "bcc_log2",
	[SLOTS_EXP2] = "exp2",     [SLOTS_EXP2ZERO] = "exp2zero", [SLOTS_LINEAR] = "linear",
	[SLOTS_FIXED] = "fixed",
};

const char *slot_convention_name(enum slot_convention s)
{
	return s <= SLOTS_FIXED ? convention_names[s] : "?";
}

void program_view_init(struct program_view *v, enum program_view_kind kind)
{
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->max_series = PROGRAM_DEFAULT_MAX_SERIES;
	/* ExporterConfig's too: ebpf_exporter shows every label set in the map, so a newcomer
	 * waiting in `other` behind a label set gone idle is further from it than a reclaim. */
	v->reclaim_after = PROGRAM_DEFAULT_RECLAIM_AFTER;
	v->multiplier = 1;
	v->layout = HIST_LAYOUT_VALUE;
	v->buckets = SLOTS_NATIVE;
	hist_config_init(&v->hist);
}

int program_model_add_kaddr(struct program_config *c, const char *symbol, char *err, size_t errlen)
{
	/* the global's name, kaddr_<symbol>, must fit too */
	if (!symbol[0] || strlen(symbol) + 6 >= PROGRAM_NAME_MAX || strspn(symbol, "abcdefghijklmnopqrstuvwxyz"
					"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != strlen(symbol)) {
		char shown[80];

		snprintf(shown, sizeof(shown), c->text_hidden ? "this entry" : "\"%.60s\"", symbol);
		snprintf(err, errlen, "%s is not a kernel symbol's name (letters, digits, '_' and '.', at most %d "
				      "characters): KernelAddress \"bpf_jit_current\"", shown, PROGRAM_NAME_MAX - 7);
		return -1;
	}
	for (int i = 0; i < c->nkaddrs; i++)
		if (!strcmp(c->kaddrs[i], symbol)) {
			if (c->text_hidden)
				snprintf(err, errlen, "this entry's kernel symbol is given twice");
			else
				snprintf(err, errlen, "kernel symbol \"%s\" is given twice", symbol);
			return -1;
		}
	if (c->nkaddrs == PROGRAM_MAX_KADDRS) {
		snprintf(err, errlen, "at most %d KernelAddress symbols", PROGRAM_MAX_KADDRS);
		return -1;
	}
	snprintf(c->kaddrs[c->nkaddrs++], PROGRAM_NAME_MAX, "%s", symbol);
	return 0;
}

int program_model_set_cgroup_ids(struct program_config *c, const char *map, const char *type,
				 const char *const *patterns, int npatterns, char *err, size_t errlen)
{
	struct cgroup_id_map_config *g = &c->cgroup_ids;
	char why[512];

	if (g->map[0]) {
		snprintf(err, errlen, "one cgroup id map per program");
		return -1;
	}
	if (!map[0] || strlen(map) >= sizeof(g->map)) {
		snprintf(err, errlen, "the cgroup id map needs the name of a map of the program");
		return -1;
	}
	if (strcmp(type, "hash") && strcmp(type, "cgrp_storage")) {
		char shown[80];

		snprintf(shown, sizeof(shown), c->text_hidden ? "unknown" : "\"%.60s\"", type);
		snprintf(err, errlen, "cgroup id map type %s: it is \"hash\" (u64 cgroup id -> u64) or \"cgrp_storage\" "
				      "(BPF_MAP_TYPE_CGRP_STORAGE)", shown);
		return -1;
	}
	if (npatterns > CGROUP_ID_MAP_PATTERNS) {
		snprintf(err, errlen, "the cgroup id map takes at most %d patterns", CGROUP_ID_MAP_PATTERNS);
		return -1;
	}
	for (int i = 0; i < npatterns; i++) {
		if (strlen(patterns[i]) >= sizeof(g->patterns[i])) {
			snprintf(err, errlen, "a cgroup id map pattern is at most %zu characters", sizeof(g->patterns[i]) - 1);
			return -1;
		}
		snprintf(g->patterns[i], sizeof(g->patterns[i]), "%s", patterns[i]);
	}
	g->npatterns = npatterns;
	g->cgrp_storage = !strcmp(type, "cgrp_storage");
	if (cgroup_id_map_check(g, c->text_hidden, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		memset(g, 0, sizeof(*g));
		return -1;
	}
	snprintf(g->map, sizeof(g->map), "%s", map);
	return 0;
}

struct program_perf_event *program_model_new_perf_event(struct program_config *c, char *err, size_t errlen)
{
	if (c->nperf_events == PROGRAM_MAX_PERF_EVENTS) {
		snprintf(err, errlen, "at most %d perf events (<PerfEvent> blocks, perf_events: entries)",
			 PROGRAM_MAX_PERF_EVENTS);
		return NULL;
	}
	return &c->perf_events[c->nperf_events++];
}

const char *program_view_kind_name(enum program_view_kind k)
{
	return k == VIEW_KIND_HISTOGRAM ? "Histogram" : k == VIEW_KIND_GAUGE ? "Gauge" : "Counter";
}

/* The program records every native row at one precision (hist_record's hist_precision, one
 * global of the object): the first <Histogram>'s Precision is the program's, and a later one
 * cannot ask for another. 0, or -1 with the message. */
static int check_precision(const struct program_config *c, char *err, size_t errlen)
{
	const struct program_view *first = NULL;

	for (int i = 0; i < c->nviews; i++) {
		const struct program_view *v = &c->views[i];

		if (v->kind != VIEW_KIND_HISTOGRAM)
			continue;
		if (!first) {
			first = v;
			continue;
		}
		if (v->hist.precision_from_user && v->hist.precision != first->hist.precision) {
			snprintf(err, errlen,
				 "<Program \"%s\"> <Histogram \"%s\">: Precision %u, but the program's first "
				 "<Histogram \"%s\"> has %u: a program records all its native histograms at one "
				 "precision (hist_record's hist_precision); set Precision once, in the first <Histogram>",
				 c->name, v->map, v->hist.precision, first->map, first->hist.precision);
			return -1;
		}
	}
	return 0;
}

int program_model_check(const struct program_config *c, char *err, size_t errlen)
{
	if (!c->object[0]) {
		snprintf(err, errlen, "<Program \"%s\"> has no Object \"/path/to/prog.bpf.o\"", c->name);
		return -1;
	}
	if (!c->nviews) {
		snprintf(err, errlen, "<Program \"%s\"> reads no map: add <Counter \"map\">, <Gauge \"map\"> or "
				      "<Histogram \"map\">", c->name);
		return -1;
	}
	for (int v = 0; v < c->nviews; v++) {
		size_t each = program_reader_series_bytes(c->views[v].kind);
		double bytes = (double)c->views[v].max_series * (double)each;

		if (bytes > PROGRAM_VIEW_MAX_BYTES) {
			snprintf(err, errlen,
				 "<Program \"%s\">: <%s \"%s\">: MaxSeries %u would keep up to %.0f bytes for its series "
				 "(%zu bytes each), more than the %u MiB collectd keeps for one map: MaxSeries %zu at most",
				 c->name, program_view_kind_name(c->views[v].kind), c->views[v].map, c->views[v].max_series,
				 bytes, each, PROGRAM_VIEW_MAX_BYTES >> 20, (size_t)PROGRAM_VIEW_MAX_BYTES / each);
			return -1;
		}
	}
	return check_precision(c, err, errlen);
}

void program_config_free(struct program_config *c)
{
	for (int v = 0; v < c->nviews; v++)
		for (int l = 0; l < c->views[v].nlabels; l++)
			decoder_chain_free(&c->views[v].labels[l].decoders);
}
