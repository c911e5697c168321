#include "libcore/programs/program_module.h"

#include "base/text_append.h"
#include "libcore/engine/module.h"
#include "libcore/programs/exporter_config.h"
#include "libcore/programs/object_file.h"
#include "libcore/programs/object_policy.h"
#include "libcore/programs/object_sandbox.h"
#include "libcore/programs/perf_event_attach.h"
#include "libcore/programs/program_config.h"
#include "libcore/programs/program_read.h"
#include "libcore/programs/program_resolve.h"
#include "base/err_max.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define PROGRAM_MAX_POINTS 32

/* Everything one <Program> owns: its descriptor lives here too, since it is made at run
 * time. m->priv points at it; the engine frees it after the destroy hook. */
struct program_state {
	struct module_ops ops;
	struct program_config cfg;
	struct program_layout layout;
	struct object_bytes bytes;
	struct module_point points[PROGRAM_MAX_POINTS];
	struct probe_candidate candidates[PROGRAM_MAX_POINTS][PROGRAM_MAX_ALTERNATIVES];
	char prog_names[PROGRAM_MAX_POINTS][PROGRAM_MAX_ALTERNATIVES][PROGRAM_NAME_MAX];
	char variants[PROGRAM_MAX_POINTS][PROGRAM_MAX_ALTERNATIVES][16];
	struct program_reader *readers[PROGRAM_MAX_VIEWS];
	struct cgroup_id_sync *cgroup_ids; /* CgroupIdMap, NULL without */
	struct perf_event_links *perf_links; /* its perf_event programs' events, while running */
	char start_error[ERR_MAX]; /* the object was refused: the program stays off with this */
};

/* How the engine names and orders a program's way in, from what libbpf read of its SEC(). */
static int program_method(struct bpf_program *p, enum attach_method *method, char *variant, size_t len,
			  char *err, size_t errlen)
{
	const char *sec = bpf_program__section_name(p);
	size_t n = strcspn(sec, "/.");

	variant[0] = '\0';
	switch (bpf_program__type(p)) {
	case BPF_PROG_TYPE_TRACING:
		*method = bpf_program__expected_attach_type(p) == BPF_TRACE_RAW_TP ? ATTACH_TP_BTF : ATTACH_FENTRY;
		if (*method == ATTACH_FENTRY && strncmp(sec, "fentry", 6))
			snprintf(variant, len, "%.*s", (int)n, sec); /* fexit */
		return 0;
	case BPF_PROG_TYPE_RAW_TRACEPOINT: *method = ATTACH_RAW_TP; return 0;
	case BPF_PROG_TYPE_TRACEPOINT: *method = ATTACH_TRACEPOINT; return 0;
	case BPF_PROG_TYPE_KPROBE:
		*method = ATTACH_KPROBE;
		if (strncmp(sec, "kprobe", 6))
			snprintf(variant, len, "%.*s", (int)n, sec); /* kretprobe, ksyscall, uprobe, usdt */
		return 0;
	case BPF_PROG_TYPE_PERF_EVENT:
		snprintf(err, errlen, "program \"%s\" is a perf_event program: a perf event runs it, not a "
				      "<Probe>; give the event with <PerfEvent \"%s\">", bpf_program__name(p),
			 bpf_program__name(p));
		return -1;
	default:
		snprintf(err, errlen, "program \"%s\" (SEC \"%s\") cannot be attached by its section; collectd "
				      "attaches tracing programs (kprobe, fentry, tracepoint, raw_tp, tp_btf, uprobe, usdt) "
				      "and perf_event programs (<PerfEvent>)",
			 bpf_program__name(p), sec);
		return -1;
	}
}

static bool skipped(const struct program_config *c, const char *name)
{
	for (int i = 0; i < c->nskip; i++)
		if (!strcmp(c->skip[i], name))
			return true;
	return false;
}

static bool in_probe(const struct program_config *c, const char *name)
{
	for (int i = 0; i < c->nprobes; i++)
		for (int j = 0; j < c->probes[i].nprograms; j++)
			if (!strcmp(c->probes[i].programs[j], name))
				return true;
	return false;
}

/* A perf_event program whose section names its event (SEC("perf_event/type=1,config=0,
 * frequency=99"), ebpf_exporter's way) runs on that event, unless a <PerfEvent> or a
 * perf_events: entry names the program: that one replaces it. Added to the configuration
 * once; a section that is not such a list is a configuration error. */
static int add_section_events(struct program_config *c, struct bpf_object *obj, char *err, size_t errlen)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		const char *name = bpf_program__name(p), *sec = bpf_program__section_name(p);
		struct program_perf_event *e;
		bool named = false;
		char why[ERR_MAX];

		if (bpf_program__type(p) != BPF_PROG_TYPE_PERF_EVENT || skipped(c, name) ||
		    strncmp(sec, PERF_EVENT_SECTION_PREFIX, strlen(PERF_EVENT_SECTION_PREFIX)))
			continue;
		/* by the user, or from the section by an earlier check of the same configuration */
		for (int i = 0; i < c->nperf_events; i++)
			named |= !strcmp(c->perf_events[i].program, name);
		if (named)
			continue;
		e = program_model_new_perf_event(c, why, sizeof(why));
		if (!e || perf_event_from_section(e, name, sec, why, sizeof(why))) {
			snprintf(err, errlen, "program \"%s\": %s", name, why);
			return -1;
		}
	}
	return 0;
}

/* Every perf_event program that is not skipped runs on at least one <PerfEvent>, and every
 * <PerfEvent> (perf_events: entry) names one. 0, or -1 with the fix. */
static int check_perf_events(const struct program_config *c, struct bpf_object *obj, char *err, size_t errlen)
{
	struct bpf_program *p;

	for (int i = 0; i < c->nperf_events; i++) {
		const char *name = c->perf_events[i].program;

		p = bpf_object__find_program_by_name(obj, name);
		if (!p || bpf_program__type(p) != BPF_PROG_TYPE_PERF_EVENT || skipped(c, name)) {
			char names[512] = "";
			size_t used = 0;

			bpf_object__for_each_program(p, obj)
				if (bpf_program__type(p) == BPF_PROG_TYPE_PERF_EVENT)
					text_appendf(names, sizeof(names), &used, "%s%s", used ? ", " : "",
						     bpf_program__name(p));
			p = bpf_object__find_program_by_name(obj, name);
			snprintf(err, errlen, "<PerfEvent \"%s\">: %s (its perf_event programs: %s)", name,
				 !p ? "the object has no program of that name"
				 : skipped(c, name) ? "that program is left out with Skip"
						    : "that program is not SEC(\"perf_event\"): a perf event runs only those",
				 used ? names : "none");
			return -1;
		}
	}
	bpf_object__for_each_program(p, obj) {
		const char *name = bpf_program__name(p);
		bool given = false;

		if (bpf_program__type(p) != BPF_PROG_TYPE_PERF_EVENT || skipped(c, name))
			continue;
		for (int i = 0; i < c->nperf_events; i++)
			given |= !strcmp(c->perf_events[i].program, name);
		if (!given) {
			snprintf(err, errlen, "program \"%s\" is SEC(\"perf_event\"): say which perf event runs it with "
				 "<PerfEvent \"%s\"> Type \"software\" Config \"cpu-clock\" SampleFrequency 99 "
				 "</PerfEvent> (or a perf_events: entry with target %s in an ExporterConfig), or leave it "
				 "out with Skip \"%s\"", name, name, name, name);
			return -1;
		}
	}
	return 0;
}

/* Point `pt` with candidate `j`: program `name` of obj. */
static int add_candidate(struct program_state *s, int pt, int j, struct bpf_object *obj, const char *name,
			 char *err, size_t errlen)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, name);
	struct probe_candidate *c = &s->candidates[pt][j];

	snprintf(s->prog_names[pt][j], PROGRAM_NAME_MAX, "%s", name);
	if (program_method(p, &c->method, s->variants[pt][j], sizeof(s->variants[pt][j]), err, errlen))
		return -1;
	c->variant = s->variants[pt][j][0] ? s->variants[pt][j] : NULL;
	c->progs[0] = s->prog_names[pt][j];
	return 0;
}

static int build_points(struct program_state *s, struct bpf_object *obj, char *err, size_t errlen)
{
	const struct program_config *c = &s->cfg;
	struct bpf_program *p;
	int n = 0;

	for (int i = 0; i < c->nprobes; i++, n++) {
		for (int j = 0; j < c->probes[i].nprograms; j++)
			if (add_candidate(s, n, j, obj, c->probes[i].programs[j], err, errlen))
				return -1;
		s->points[n] = (struct module_point){ .name = c->probes[i].name, .candidates = s->candidates[n],
						      .ncandidates = c->probes[i].nprograms };
	}
	bpf_object__for_each_program(p, obj) {
		const char *name = bpf_program__name(p);

		/* attached to their perf events at start (perf_event_attach.h), not a probe point */
		if (skipped(c, name) || in_probe(c, name) || bpf_program__type(p) == BPF_PROG_TYPE_PERF_EVENT)
			continue;
		if (n == PROGRAM_MAX_POINTS) {
			snprintf(err, errlen, "more than %d programs: leave some out with Skip", PROGRAM_MAX_POINTS);
			return -1;
		}
		if (add_candidate(s, n, 0, obj, name, err, errlen))
			return -1;
		s->points[n] = (struct module_point){ .name = s->prog_names[n][0], .candidates = s->candidates[n],
						      .ncandidates = 1 };
		n++;
	}
	if (!n && !c->nperf_events) {
		snprintf(err, errlen, "every program is skipped: nothing would run");
		return -1;
	}
	s->ops.points = s->points;
	s->ops.npoints = n;
	return 0;
}

/* Before each load (probe.c reopens the object when a candidate fails): params, Skip. The
 * whole check runs again, not just those two: measured on read_latency.bpf.o it costs 2 us
 * against 65 us for the open it follows (and milliseconds for the load), and it keeps one
 * code path for what the config check and the load see. */
/* Checked when the block was read: cannot fail with the same bytes. */
static int configure(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	struct program_state *s = m->priv;

	return program_resolve(&s->cfg, obj, &s->layout, err, errlen);
}

/* The views' readers and the cgroup id map's sync. */
static int start_readers(struct module *m, struct program_state *s, char *err, size_t errlen)
{
	for (int i = 0; i < s->cfg.nviews; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(m->obj, s->cfg.views[i].map);

		s->readers[i] = program_reader_new(&s->cfg.views[i], &s->layout.views[i], map ? bpf_map__fd(map) : -1,
						   m->precision, err, errlen);
		if (!s->readers[i])
			return -1;
	}
	if (s->cfg.cgroup_ids.map[0]) {
		struct bpf_map *map = bpf_object__find_map_by_name(m->obj, s->cfg.cgroup_ids.map);

		s->cgroup_ids = cgroup_id_sync_new(&s->cfg.cgroup_ids, map ? bpf_map__fd(map) : -1,
						   map ? bpf_map__max_entries(map) : 0, NULL, err, errlen);
		if (!s->cgroup_ids)
			return -1;
		cgroup_id_sync_run(s->cgroup_ids);
	}
	return 0;
}

static int start(struct module *m, char *err, size_t errlen)
{
	struct program_state *s = m->priv;

	/* module_start() closes only the engine's own on a failed start: what fails here
	 * leaves nothing open (perf_event_links_attach()), and a later failure closes them. */
	if (s->cfg.nperf_events) {
		s->perf_links = perf_event_links_attach(m->obj, s->cfg.perf_events, s->cfg.nperf_events, err, errlen);
		if (!s->perf_links)
			return -1;
	}
	if (start_readers(m, s, err, errlen)) {
		perf_event_links_free(s->perf_links);
		s->perf_links = NULL;
		return -1;
	}
	return 0;
}

/* Every view's map, nothing sent: the engine sends only when every map was read. */
static int read_views(struct module *m, char *err, size_t errlen)
{
	struct program_state *s = m->priv;

	if (s->cgroup_ids)
		cgroup_id_sync_run(s->cgroup_ids);
	for (int i = 0; i < s->cfg.nviews; i++) {
		int e = program_reader_read(s->readers[i]);

		if (e)
			return module_hook_fail(err, errlen, "%s", strerror(-e));
	}
	return 0;
}

static void send_views(struct module *m, const struct metric_sink *sink)
{
	struct program_state *s = m->priv;

	if (s->cgroup_ids)
		cgroup_id_sync_send(s->cgroup_ids, sink);
	for (int i = 0; i < s->cfg.nviews; i++)
		program_reader_send(s->readers[i], sink);
}

static void destroy(struct module *m)
{
	struct program_state *s = m->priv;

	perf_event_links_free(s->perf_links);
	s->perf_links = NULL;
	for (int i = 0; i < PROGRAM_MAX_VIEWS; i++) {
		program_reader_free(s->readers[i]);
		s->readers[i] = NULL;
	}
	cgroup_id_sync_free(s->cgroup_ids);
	s->cgroup_ids = NULL;
	program_config_free(&s->cfg);
	object_bytes_free(&s->bytes);
}

static bool left_out(const char *program, void *ctx)
{
	return skipped(ctx, program);
}

/* Everything libbpf reads of the object, on bytes already read: the calls in the ELF, then
 * libbpf's open, the program types (Skip first: a program left out is not checked) and the
 * configuration against the object's BTF. */
static int check_bytes(struct program_state *s, bool *refused, char *err, size_t errlen)
{
	struct bpf_object *obj;
	int r;

	*refused = true;
	if (object_policy_check_calls(s->bytes.data, s->bytes.len, &s->cfg.policy, s->cfg.object, err, errlen))
		return -1;
	obj = bpf_object__open_mem(s->bytes.data, s->bytes.len, NULL);
	if (!obj) {
		snprintf(err, errlen, "%.900s is not a BPF object libbpf can open (compile it with collectd-ebpf-cc)",
			 s->cfg.object);
		return -1;
	}
	r = object_policy_check_types(obj, &s->cfg.policy, left_out, &s->cfg, s->cfg.object, err, errlen);
	if (!r) {
		*refused = false;
		r = program_resolve(&s->cfg, obj, &s->layout, err, errlen);
	}
	if (!r)
		r = add_section_events(&s->cfg, obj, err, errlen);
	if (!r)
		r = check_perf_events(&s->cfg, obj, err, errlen);
	if (!r)
		r = build_points(s, obj, err, errlen);
	bpf_object__close(obj);
	return r;
}

/* The child's half of object_check_contained(): the same check; the parent only learns
 * whether it crashed. */
static int check_bytes_contained(void *ctx)
{
	char err[ERR_MAX];
	bool refused;

	return check_bytes(ctx, &refused, err, sizeof(err));
}

/* The whole check of bytes read: first in a child, where a libbpf crash is a refusal, then
 * here. */
static int check_read_bytes(struct program_state *s, bool *refused, char *err, size_t errlen)
{
	*refused = true;
	if (object_check_contained(check_bytes_contained, s, s->cfg.object, err, errlen))
		return -1;
	return check_bytes(s, refused, err, errlen);
}

/* Reads, checks and opens the object once at config time. Two kinds of errors: the loader
 * refusing the object (unsafe file, a forbidden helper or program type, an object libbpf
 * crashes on: *refused, the program stays off and the others run), and the configuration
 * not matching the object (a map, label, field or param that is not there: a configuration
 * error, which stops collectd -T and collectd like any bad option). */
static int check_object(struct program_state *s, bool *refused, char *err, size_t errlen)
{
	*refused = true;
	if (object_file_read(s->cfg.object, geteuid(), &s->bytes, err, errlen))
		return -1;
	return check_read_bytes(s, refused, err, errlen);
}

int program_module_config(const struct conf_node *block, struct program_config *c, char *err, size_t errlen)
{
	char why[900];

	if (program_config_parse(block, c, err, errlen))
		return -1;
	if (c->exporter_config[0]) {
		if (!c->object[0] && exporter_object_path(c->exporter_config, c->object, sizeof(c->object))) {
			snprintf(err, errlen, "<Program \"%s\">: ExporterConfig: path too long", c->name);
			return -1;
		}
		if (exporter_config_read(c->exporter_config, c, why, sizeof(why))) {
			snprintf(err, errlen, "<Program \"%s\">: %s", c->name, why);
			return -1;
		}
	}
	return program_model_check(c, err, errlen);
}

int program_module_check_bytes(const struct conf_node *block, const void *bytes, size_t len, bool *refused,
			       char *err, size_t errlen)
{
	struct program_state *s = calloc(1, sizeof(*s));
	int r = -1;

	*refused = false;
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!perf_event_sections_register(err, errlen) && !program_module_config(block, &s->cfg, err, errlen)) {
		s->bytes.data = (void *)bytes; /* borrowed: not freed below */
		s->bytes.len = len;
		r = check_read_bytes(s, refused, err, errlen);
	}
	program_config_free(&s->cfg);
	free(s);
	return r;
}

/* After libbpf's relocations, before anything attaches: what the kernel got passes the
 * same policy (the ELF check sees every call libbpf can make of it; this is the proof). */
static int loaded(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	struct program_state *s = m->priv;

	return object_policy_check_loaded(obj, &s->cfg.policy, s->cfg.object, err, errlen);
}

/* A program whose object was refused is configured but never starts: one error, and the
 * other modules and programs run. */
static int refuse_start(struct module *m, char *err, size_t errlen)
{
	struct program_state *s = m->priv;

	snprintf(err, errlen, "%s", s->start_error);
	return -1;
}

const char *program_module_refusal(const struct module *m)
{
	const struct program_state *s = m->priv;

	return m->ops->prepare == refuse_start ? s->start_error : NULL;
}

const char *program_module_exporter_config(const struct module *m)
{
	const struct program_state *s = m->priv;

	/* every program's ops, a refused one's too, end with its destroy */
	if (!m->ops || m->ops->destroy != destroy || !s)
		return NULL;
	return s->cfg.exporter_config[0] ? s->cfg.exporter_config : NULL;
}

/* The module's operations once check_object() has judged the object: a refused one's only
 * refuse to start, so that the other modules and programs run; an accepted one's load and
 * read it. */
static void set_ops(struct program_state *s, bool refused)
{
	int npoints;

	if (refused) {
		s->ops = (struct module_ops){ .name = s->cfg.name, .description = "a user's BPF program",
					      .prepare = refuse_start, .destroy = destroy };
		return;
	}
	npoints = s->ops.npoints; /* counted by check_object() */
	s->ops = (struct module_ops){
		.name = s->cfg.name,
		.description = "a user's BPF program",
		.points = s->points,
		.npoints = npoints,
		.configure = configure,
		.loaded = loaded,
		.start = start,
		.read = read_views,
		.send = send_views,
		.destroy = destroy,
	};
}

/* The first histogram's Precision is the program's (program_model_check refuses another). */
static void set_precision(struct module *m, const struct program_config *cfg)
{
	for (int i = 0; i < cfg->nviews; i++)
		if (cfg->views[i].kind == VIEW_KIND_HISTOGRAM) {
			m->hist = cfg->views[i].hist;
			return;
		}
}

struct module *program_module_new(const struct conf_node *block, char *err, size_t errlen)
{
	struct program_state *s = calloc(1, sizeof(*s));
	struct module *m;
	bool refused, bad;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (perf_event_sections_register(err, errlen) || program_module_config(block, &s->cfg, err, errlen))
		goto fail;
	if (module_find(s->cfg.name)) {
		snprintf(err, errlen, "<Program \"%s\">: that is the name of a built-in module; name it differently, "
				      "the name becomes collectd's plugin instance", s->cfg.name);
		goto fail;
	}
	/* An object refused is kept as a program that will not start; one that passed the checks
	 * but does not fit the configuration is a configuration error. */
	bad = check_object(s, &refused, s->start_error, sizeof(s->start_error)) != 0;
	if (bad && !refused) {
		snprintf(err, errlen, "<Program \"%s\">: %s (in %.600s)", s->cfg.name, s->start_error, s->cfg.object);
		goto fail;
	}
	set_ops(s, bad);
	m = module_new(&s->ops, NULL);
	if (!m) {
		snprintf(err, errlen, "<Program \"%s\">: out of memory", s->cfg.name);
		goto fail;
	}
	m->priv = s;
	m->elf = s->bytes.data;
	m->elf_size = s->bytes.len;
	set_precision(m, &s->cfg);
	return m;
fail:
	program_config_free(&s->cfg);
	object_bytes_free(&s->bytes);
	free(s);
	return NULL;
}
