#include "probe.h"

#include "log.h"
#include "privileges.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const method_names[ATTACH_METHOD_COUNT] = {
	[ATTACH_TP_BTF] = "tp_btf",         [ATTACH_RAW_TP] = "raw_tp", [ATTACH_TRACEPOINT] = "tracepoint",
	[ATTACH_FENTRY] = "fentry",         [ATTACH_KPROBE] = "kprobe",
};

const char *attach_method_name(enum attach_method m)
{
	return m < ATTACH_METHOD_COUNT ? method_names[m] : "?";
}

int attach_method_parse(const char *name, enum attach_method *out)
{
	for (int m = 0; m < ATTACH_METHOD_COUNT; m++) {
		if (!strcmp(name, method_names[m])) {
			*out = m;
			return 0;
		}
	}
	return -1;
}

const char *probe_point_method(const struct probe_point *p, char *buf, size_t len)
{
	const struct probe_candidate *c;

	if (p->chosen < 0) {
		snprintf(buf, len, "none");
		return buf;
	}
	c = &p->candidates[p->chosen];
	snprintf(buf, len, "%s%s%s", attach_method_name(c->method), c->variant ? "+" : "", c->variant ? c->variant : "");
	return buf;
}

/* Position of the candidate's method in the user's AttachOrder; candidates whose method is
 * not listed are never tried. */
static int rank_of(const struct probe_set *ps, const struct probe_candidate *c)
{
	if (ps->norder == 0)
		return 0;
	for (int i = 0; i < ps->norder; i++)
		if (ps->order[i] == c->method)
			return i;
	return -1;
}

/* The next candidate to try for p: the lowest AttachOrder rank, then table order. */
static int next_candidate(const struct probe_set *ps, const struct probe_point *p)
{
	int best = -1, best_rank = 0;

	for (int i = 0; i < p->ncandidates; i++) {
		int r = rank_of(ps, &p->candidates[i]);

		if (r < 0 || (p->failed & (1u << i)))
			continue;
		if (best < 0 || r < best_rank) {
			best = i;
			best_rank = r;
		}
	}
	return best;
}

static bool candidate_uses_map(const struct probe_candidate *c, const char *map)
{
	for (int i = 0; i < PROBE_MAX_MAPS && c->own_maps[i]; i++)
		if (!strcmp(c->own_maps[i], map))
			return true;
	return false;
}

/* Enables the programs and own maps of the selected candidates (sel[i] for point i, -1 to
 * load nothing for it), disables every other candidate's. */
static int select_candidates(const struct probe_set *ps, struct bpf_object *obj, const int *sel)
{
	for (int i = 0; i < ps->npoints; i++) {
		const struct probe_point *p = &ps->points[i];

		for (int j = 0; j < p->ncandidates; j++) {
			const struct probe_candidate *c = &p->candidates[j];

			for (int k = 0; k < PROBE_MAX_PROGS && c->progs[k]; k++) {
				struct bpf_program *prog = bpf_object__find_program_by_name(obj, c->progs[k]);

				if (!prog) {
					ebpf_log(EBPF_LOG_ERROR, "%s: program %s missing from the BPF object (build bug)",
						 ps->module, c->progs[k]);
					return -1;
				}
				bpf_program__set_autoload(prog, sel[i] == j);
			}
		}
	}
	/* A map shared by several candidates is created if any selected candidate owns it. */
	for (int i = 0; i < ps->npoints; i++) {
		const struct probe_point *p = &ps->points[i];

		for (int j = 0; j < p->ncandidates; j++) {
			for (int k = 0; k < PROBE_MAX_MAPS && p->candidates[j].own_maps[k]; k++) {
				const char *name = p->candidates[j].own_maps[k];
				struct bpf_map *map = bpf_object__find_map_by_name(obj, name);
				bool wanted = false;

				for (int a = 0; a < ps->npoints; a++)
					if (sel[a] >= 0 && candidate_uses_map(&ps->points[a].candidates[sel[a]], name))
						wanted = true;
				if (map)
					bpf_map__set_autocreate(map, wanted);
			}
		}
	}
	return 0;
}

static void note_failure(struct probe_set *ps, struct probe_point *p, int cand, const char *stage, int err)
{
	const char *why = ebpf_log_last_libbpf_warning();
	char method[64];
	size_t used = strlen(p->failures);
	int saved = p->chosen;

	/* Classic tracepoints are looked up in tracefs, which many systems do not mount. */
	bool no_tracefs = p->candidates[cand].method == ATTACH_TRACEPOINT &&
			  access("/sys/kernel/tracing/events", F_OK) && access("/sys/kernel/debug/tracing/events", F_OK);

	p->chosen = cand;
	probe_point_method(p, method, sizeof(method));
	p->chosen = saved;
	p->failed |= 1u << cand;
	snprintf(p->failures + used, sizeof(p->failures) - used, "%s%s %s failed (%s%s%s)%s", used ? "; " : "",
		 method, stage, strerror(err > 0 ? err : -err), why[0] ? ": " : "", why,
		 no_tracefs ? " [tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing]" : "");
	ebpf_log(EBPF_LOG_INFO, "%s: %s via %s: %s failed (%s), trying the next method", ps->module, p->name, method,
		 stage, strerror(err > 0 ? err : -err));
}

/* Loads only candidate `cand` of point `pi`; 0 if the kernel accepts it. */
static int test_load_alone(struct probe_set *ps, const struct probe_object *po, int pi, int cand)
{
	int sel[ps->npoints];
	struct bpf_object *obj;
	int err;

	for (int i = 0; i < ps->npoints; i++)
		sel[i] = -1;
	sel[pi] = cand;
	obj = po->open(po->ctx);
	if (!obj)
		return -errno;
	ebpf_log_clear_libbpf_warning();
	err = select_candidates(ps, obj, sel);
	if (!err)
		err = po->load(po->ctx);
	po->close(po->ctx);
	return err;
}

static void detach_all(struct probe_set *ps)
{
	for (int i = ps->npoints - 1; i >= 0; i--) {
		struct probe_point *p = &ps->points[i];

		for (int k = PROBE_MAX_PROGS - 1; k >= 0; k--) {
			bpf_link__destroy(p->links[k]); /* NULL-safe */
			p->links[k] = NULL;
		}
	}
}

static int attach_chosen(struct probe_set *ps, struct bpf_object *obj)
{
	for (int i = 0; i < ps->npoints; i++) {
		struct probe_point *p = &ps->points[i];
		const struct probe_candidate *c;

		if (!p->enabled)
			continue;
		c = &p->candidates[p->chosen];
		for (int k = 0; k < PROBE_MAX_PROGS && c->progs[k]; k++) {
			struct bpf_program *prog = bpf_object__find_program_by_name(obj, c->progs[k]);

			ebpf_log_clear_libbpf_warning();
			p->links[k] = bpf_program__attach(prog);
			if (!p->links[k]) {
				int err = errno;

				note_failure(ps, p, p->chosen, "attach", err);
				p->links[k] = NULL;
				detach_all(ps);
				return -1;
			}
		}
	}
	return 0;
}

/* Picks the next candidate of every enabled point; -1 with err set if one has none left. */
static int choose(struct probe_set *ps, int *sel, char *err, size_t errlen)
{
	for (int i = 0; i < ps->npoints; i++) {
		struct probe_point *p = &ps->points[i];

		sel[i] = -1;
		p->chosen = -1;
		if (!p->enabled)
			continue;
		sel[i] = next_candidate(ps, p);
		if (sel[i] < 0) {
			snprintf(err, errlen, "no attach method works for %s%s%s", p->name,
				 p->failures[0] ? ": " : " (AttachOrder excludes every method it has)", p->failures);
			return -1;
		}
		p->chosen = sel[i];
	}
	return 0;
}

static void log_choices(const struct probe_set *ps)
{
	char method[64];

	for (int i = 0; i < ps->npoints; i++) {
		const struct probe_point *p = &ps->points[i];

		if (!p->enabled)
			continue;
		probe_point_method(p, method, sizeof(method));
		if (p->failed)
			ebpf_log(EBPF_LOG_WARNING, "%s: %s attached via %s, a fallback (%s)", ps->module, p->name, method,
				 p->failures);
		else
			ebpf_log(EBPF_LOG_INFO, "%s: %s attached via %s", ps->module, p->name, method);
	}
}

/* After a whole-object load failed: test each point's candidate alone and mark the ones
 * that fail. Returns how many were marked; 0 means no single candidate is to blame. */
static int blame_candidates(struct probe_set *ps, const struct probe_object *po, const int *sel)
{
	int marked = 0;

	for (int i = 0; i < ps->npoints; i++) {
		int e;

		if (sel[i] < 0)
			continue;
		e = test_load_alone(ps, po, i, sel[i]);
		if (e) {
			note_failure(ps, &ps->points[i], sel[i], "load", e);
			marked++;
		}
	}
	return marked;
}

int probe_set_start(struct probe_set *ps, const struct probe_object *po, char *err, size_t errlen)
{
	int sel[ps->npoints];

	ebpf_log_capture_libbpf();
	for (int i = 0; i < ps->npoints; i++) {
		ps->points[i].failed = 0;
		ps->points[i].failures[0] = '\0';
	}
	/* Each round either succeeds or marks at least one candidate failed, so this ends. */
	for (;;) {
		struct bpf_object *obj;
		int e;

		if (choose(ps, sel, err, errlen))
			return -1;
		obj = po->open(po->ctx);
		if (!obj) {
			snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
			return -1;
		}
		ebpf_log_clear_libbpf_warning();
		e = select_candidates(ps, obj, sel);
		if (!e)
			e = po->load(po->ctx);
		if (e) {
			const char *why = ebpf_log_last_libbpf_warning();
			char copy[512];

			snprintf(copy, sizeof(copy), "%s", why);
			po->close(po->ctx);
			if ((e == -EPERM || e == -EACCES) && !privileges_sufficient()) {
				privileges_explain(err, errlen);
				return -1;
			}
			if (blame_candidates(ps, po, sel) == 0) {
				snprintf(err, errlen, "loading the BPF programs failed: %s%s%s", strerror(-e),
					 copy[0] ? ": " : "", copy);
				return -1;
			}
			continue;
		}
		if (attach_chosen(ps, obj)) {
			po->close(po->ctx);
			continue;
		}
		log_choices(ps);
		return 0;
	}
}

void probe_set_stop(struct probe_set *ps)
{
	detach_all(ps);
}

bool probe_set_fell_back(const struct probe_set *ps)
{
	for (int i = 0; i < ps->npoints; i++)
		if (ps->points[i].enabled && ps->points[i].failed)
			return true;
	return false;
}
