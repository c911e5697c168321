#include "libcore/engine/probe.h"

#include "libcore/kernel/kernel_funcs.h"
#include "base/log.h"
#include "libcore/engine/libbpf_log.h"
#include "base/text_append.h"
#include "libcore/kernel/privileges.h"

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

static bool has_targets(const struct probe_candidate *c)
{
	return c->targets[0] != NULL;
}

/* "method[+variant][:function]" */
static void format_method(const struct probe_candidate *c, int target, char *buf, size_t len)
{
	bool fn = has_targets(c) && target >= 0;

	snprintf(buf, len, "%s%s%s%s%s", attach_method_name(c->method), c->variant ? "+" : "",
		 c->variant ? c->variant : "", fn ? ":" : "", fn ? c->targets[target] : "");
}

const char *probe_point_method(const struct probe_point *p, char *buf, size_t len)
{
	if (p->chosen < 0)
		snprintf(buf, len, "none");
	else
		format_method(&p->candidates[p->chosen], p->target, buf, len);
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

static void select_maps(const struct probe_set *ps, struct bpf_object *obj, const int *sel);

/* True when progs[k] of c is a witness left out by `Witness false`. */
static bool witness_left_out(const struct probe_set *ps, const struct probe_candidate *c, int k)
{
	int n = 0;

	while (n < PROBE_MAX_PROGS && c->progs[n])
		n++;
	return ps->witness_off && k >= n - c->witnesses;
}

/* Candidate j's programs of point p: loaded or not; when selected, fentry targets set. */
static int select_programs(const struct probe_set *ps, struct bpf_object *obj, const struct probe_point *p, int j,
			   bool selected)
{
	const struct probe_candidate *c = &p->candidates[j];

	for (int k = 0; k < PROBE_MAX_PROGS && c->progs[k]; k++) {
		struct bpf_program *prog = bpf_object__find_program_by_name(obj, c->progs[k]);

		if (!prog) {
			ebpf_log(EBPF_LOG_ERROR, "%s: program %s missing from the BPF object (build bug)", ps->module,
				 c->progs[k]);
			return -1;
		}
		bpf_program__set_autoload(prog, selected && !witness_left_out(ps, c, k));
		if (selected && c->method == ATTACH_FENTRY && has_targets(c)) {
			int e = bpf_program__set_attach_target(prog, 0, c->targets[p->target]);

			if (e)
				return e;
		}
	}
	return 0;
}

/* Enables the programs and own maps of the selected candidates (sel[i] for point i, -1 to
 * load nothing for it), disables every other candidate's. Two passes, because candidates
 * can share a program (a point's witnesses serve all its variants of a method): one that
 * a selected candidate uses stays enabled whatever the others say. */
static int select_candidates(const struct probe_set *ps, struct bpf_object *obj, const int *sel)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < ps->npoints; i++)
			for (int j = 0; j < ps->points[i].ncandidates; j++) {
				bool selected = sel[i] == j;
				int e;

				if (selected != (pass == 1))
					continue;
				e = select_programs(ps, obj, &ps->points[i], j, selected);
				if (e)
					return e;
			}
	select_maps(ps, obj, sel);
	return 0;
}

/* A map shared by several candidates is created if any selected candidate owns it. */
static void select_maps(const struct probe_set *ps, struct bpf_object *obj, const int *sel)
{
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
}

void probe_set_select_first(const struct probe_set *ps, struct bpf_object *obj)
{
	int sel[ps->npoints > 0 ? ps->npoints : 1];

	for (int i = 0; i < ps->npoints; i++)
		sel[i] = ps->points[i].enabled ? next_candidate(ps, &ps->points[i]) : -1;
	/* The maps only: a kernel-function target is looked up at start, not for a plan. */
	select_maps(ps, obj, sel);
}

/* Adds "; <text>" (or just <text>) to p->failures, truncating when full. */
static void append_failure(struct probe_point *p, const char *text)
{
	size_t used = strlen(p->failures);

	snprintf(p->failures + used, sizeof(p->failures) - used, "%s%s", used ? "; " : "", text);
}

/* What to do when libbpf could not find a uprobe's or USDT probe's binary or probe (its
 * warning `why`), or "". */
static const char *user_binary_hint(const char *why)
{
	if (strstr(why, "resolve full path"))
		return " [a binary named without a '/' in SEC() is looked for in collectd's PATH, then "
		       "/usr/bin:/usr/sbin (libraries: LD_LIBRARY_PATH, then the library directories); "
		       "write its full path in SEC(), e.g. SEC(\"usdt//usr/bin/python3:python:function__entry\")]";
	if (strstr(why, "USDT notes"))
		return " [the binary has no USDT probes: `readelf -n BINARY` lists a binary's probes "
		       "(stapsdt notes)]";
	/* Before BPF cookies (5.15), libbpf tells a position-independent binary's probes apart
	 * only within one process. */
	if (strstr(why, "without specific PID"))
		return " [this kernel has no BPF cookies (5.15 on): a shared library's or position-"
		       "independent executable's USDT probes attach here only with a process id; an "
		       "executable built with -no-pie attaches for every process]";
	return "";
}

/* fentry/fexit refused with EPERM or EACCES by a kernel that lets this process load BPF (the
 * privileges are there): the kernel itself refuses the program type. Said so, or "" for any
 * other failure: "Operation not permitted" alone reads as a missing privilege. */
static const char *fentry_refused_hint(const struct probe_candidate *c, int err, char *buf, size_t len)
{
	char mode[128] = "";
	FILE *f;

	err = err > 0 ? err : -err;
	if (c->method != ATTACH_FENTRY || (err != EPERM && err != EACCES) || !privileges_sufficient())
		return "";
	/* "none [integrity] confidentiality": the mode in brackets is the one in force. */
	if ((f = fopen("/sys/kernel/security/lockdown", "r"))) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = '\0';
		fclose(f);
		mode[strcspn(mode, "\n")] = '\0';
	}
	snprintf(buf, len, " [the kernel refuses fentry/fexit programs, although collectd may load BPF: kernel "
		 "lockdown (%s%s) or no BPF trampoline for this function; the next method is tried, and an "
		 "AttachOrder without \"fentry\" skips it]", mode[0] ? "/sys/kernel/security/lockdown: " :
		 "see /sys/kernel/security/lockdown", mode);
	return buf;
}

/* The chosen candidate of p (with its current target) failed at `stage`. A candidate with
 * kernel-function targets is failed only once no alternate is left (choose() decides). */
static void note_failure(struct probe_set *ps, struct probe_point *p, const char *stage, int err)
{
	const struct probe_candidate *c = &p->candidates[p->chosen];
	const char *why = ebpf_log_last_libbpf_warning();
	char method[96], text[1024], refused[384]; /* as long as the failures it goes into */
	const char *hint = fentry_refused_hint(c, err, refused, sizeof(refused));
	size_t used;

	/* Classic tracepoints are looked up in tracefs, which many systems do not mount, and
	 * which is root's only (mode 0700): access() says EACCES, not ENOENT, to anyone else. */
	bool tracepoint = c->method == ATTACH_TRACEPOINT;
	bool tracefs_denied = tracepoint && access("/sys/kernel/tracing/events", F_OK) && errno == EACCES;
	bool no_tracefs = tracepoint && !tracefs_denied && access("/sys/kernel/tracing/events", F_OK) &&
			  access("/sys/kernel/debug/tracing/events", F_OK);

	/* kprobes need CONFIG_KPROBES; without it libbpf's legacy fallback fails obscurely.
	 * uprobes and USDT probes are the uprobe PMU's, which kernels have without kprobes. */
	bool user_space = c->variant && (!strncmp(c->variant, "uprobe", 6) || !strncmp(c->variant, "uretprobe", 9) ||
					  !strcmp(c->variant, "usdt"));
	bool no_kprobes = c->method == ATTACH_KPROBE && !user_space && access("/sys/bus/event_source/devices/kprobe", F_OK) &&
			  access("/sys/kernel/tracing/kprobe_events", F_OK) &&
			  access("/sys/kernel/debug/tracing/kprobe_events", F_OK);

	format_method(c, p->target, method, sizeof(method));
	if (has_targets(c))
		p->next_target[p->chosen] = p->target + 1;
	else
		p->failed |= 1u << p->chosen;
	snprintf(text, sizeof(text), "%s %s failed (%s%s%s)%s%s%s%s", method, stage, strerror(err > 0 ? err : -err),
		 why[0] ? ": " : "", why, user_space ? user_binary_hint(why) : "",
		 no_tracefs ? " [tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing]" : "",
		 tracefs_denied ? " [tracefs is root's only: without root, grant CAP_DAC_READ_SEARCH too "
				  "(AmbientCapabilities, see contrib/collectd-ebpf.service.d.conf)]" : "",
		 no_kprobes ? " [this kernel has no kprobes: CONFIG_KPROBES is off]" : "");
	/* In the module's error, once per point and short (the attempt's log line has the whole
	 * hint): its fentry alternates would say the same again, and the error must fit the
	 * log's line whole. */
	used = strlen(text);
	if (hint[0] && !strstr(p->failures, "[the kernel refuses fentry"))
		text_appendf(text, sizeof(text), &used, " [the kernel refuses fentry/fexit although collectd may load "
			     "BPF: lockdown, or no BPF trampoline; see the log]");
	append_failure(p, text);
	ebpf_log(EBPF_LOG_INFO, "%s: %s via %s: %s failed (%s)%s, trying the next method", ps->module, p->name, method,
		 stage, strerror(err > 0 ? err : -err), hint);
}

/* The first alternate of candidate `cand` from next_target on that this kernel has, or -1. */
static int pick_target(struct kernel_funcs *kf, const struct probe_point *p, int cand)
{
	const struct probe_candidate *c = &p->candidates[cand];

	for (int t = p->next_target[cand]; t < PROBE_MAX_TARGETS && c->targets[t]; t++) {
		bool exists = c->method == ATTACH_FENTRY ? kernel_funcs_in_btf(kf, c->targets[t])
							 : kernel_funcs_traceable(kf, c->targets[t]);

		if (exists)
			return t;
	}
	return -1;
}

/* None of the candidate's functions exists in this kernel (checked before any load). A
 * function that kprobes can see but BTF cannot is in a module of a kernel without module
 * BTF (before 5.11): say so, since the fix is a method, not a missing function. */
static void note_missing(struct probe_set *ps, struct kernel_funcs *kf, struct probe_point *p, int cand)
{
	const struct probe_candidate *c = &p->candidates[cand];
	char names[256] = "", text[512];
	const char *why = " (available_filter_functions, kallsyms)";
	size_t used = 0;

	for (int t = 0; t < PROBE_MAX_TARGETS && c->targets[t]; t++)
		text_appendf(names, sizeof(names), &used, "%s%s", t ? ", " : "", c->targets[t]);
	if (c->method == ATTACH_FENTRY) {
		why = "'s BTF";
		if (!kernel_funcs_have_module_btf(kf) && kernel_funcs_traceable(kf, c->targets[0]))
			why = "'s BTF: it is in a module, and this kernel has no BTF for modules (5.11+); "
			      "kprobe can trace it";
	}
	snprintf(text, sizeof(text), "%s: no function %s in this kernel%s", attach_method_name(c->method), names, why);
	append_failure(p, text);
	ebpf_log(EBPF_LOG_INFO, "%s: %s: %s, trying the next method", ps->module, p->name, text);
}

/* Loads only candidate `cand` of point `pi`; 0 if the kernel accepts it. */
static int test_load_alone(struct probe_set *ps, const struct probe_object *po, int pi, int cand)
{
	int sel[ps->npoints > 0 ? ps->npoints : 1]; /* none: a user's object of perf_event programs only */
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
			bpf_link__destroy(p->links[k]); /* NULL-safe; closes the perf event */
			p->links[k] = NULL;
			kretprobe_event_remove(p->kretprobe_events[k]);
		}
	}
}

/* Why this process cannot make kretprobes in tracefs (kretprobe_event_open's answer),
 * or NULL if it can, or if the error is about the function. */
static const char *no_tracefs_kretprobes(int err)
{
	if (err == -EACCES || err == -EPERM)
		return "kprobe_events in tracefs is root's only (run collectd as root, or grant "
		       "CAP_DAC_OVERRIDE)";
	if (err == -ENOENT && access("/sys/kernel/tracing/kprobe_events", F_OK) &&
	    access("/sys/kernel/debug/tracing/kprobe_events", F_OK))
		return "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing before collectd starts)";
	return NULL;
}

/* A kretprobe with room for KRETPROBE_MAXACTIVE callers blocked at once, made in tracefs
 * (kretprobe_events.h). Where this process cannot write kprobe_events, libbpf makes it with
 * the kernel's default room, and the log says what that can lose and how to fix it. */
static struct bpf_link *attach_kretprobe(struct bpf_program *prog, const char *function,
					 char event[KRETPROBE_EVENT_NAME_MAX])
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .retprobe = true);
	int fd = kretprobe_event_open(function, event), e;
	const char *why = fd < 0 ? no_tracefs_kretprobes(fd) : NULL;
	struct bpf_link *link;

	if (why) {
		link = bpf_program__attach_kprobe_opts(prog, function, &opts);
		if (link)
			ebpf_log(EBPF_LOG_WARNING, "kretprobe on %s has the kernel's default room for calls in "
				 "progress (10, or 2 per CPU): returns of more calls blocked in it at once are lost "
				 "uncounted, because %s", function, why);
		return link;
	}
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	link = bpf_program__attach_perf_event(prog, fd);
	if (!link) {
		e = errno;
		close(fd);
		kretprobe_event_remove(event);
		errno = e;
	}
	return link;
}

/* kprobe candidates name their function at run time; everything else attaches by the
 * section name (fentry by the target set before load). */
static struct bpf_link *attach_prog(struct bpf_program *prog, const struct probe_candidate *c, int target,
				    char event[KRETPROBE_EVENT_NAME_MAX])
{
	if (c->method == ATTACH_KPROBE && has_targets(c)) {
		LIBBPF_OPTS(bpf_kprobe_opts, opts);

		if (!strncmp(bpf_program__section_name(prog), "kretprobe", 9))
			return attach_kretprobe(prog, c->targets[target], event);
		return bpf_program__attach_kprobe_opts(prog, c->targets[target], &opts);
	}
	return bpf_program__attach(prog);
}

int probe_point_detach_prog(struct probe_point *p, int k)
{
	if (k < 0 || k >= PROBE_MAX_PROGS || !p->links[k])
		return -1;
	bpf_link__destroy(p->links[k]);
	p->links[k] = NULL;
	kretprobe_event_remove(p->kretprobe_events[k]);
	return 0;
}

int probe_point_reattach_prog(struct probe_set *ps, struct probe_point *p, int k)
{
	const struct probe_candidate *c;
	struct bpf_program *prog;

	if (!ps->obj || !p->enabled || p->chosen < 0 || k < 0 || k >= PROBE_MAX_PROGS || p->links[k])
		return p->links[k] ? 0 : -EINVAL;
	c = &p->candidates[p->chosen];
	prog = c->progs[k] ? bpf_object__find_program_by_name(ps->obj, c->progs[k]) : NULL;
	if (!prog)
		return -ENOENT;
	p->links[k] = attach_prog(prog, c, p->target, p->kretprobe_events[k]);
	return p->links[k] ? 0 : -errno;
}

/* Attaches every enabled point; a point that fails is noted and the others are still
 * tried, so one round finds every attach failure. 0, or -1 with nothing left attached. */
static int attach_chosen(struct probe_set *ps, struct bpf_object *obj)
{
	int failed = 0;

	for (int i = 0; i < ps->npoints; i++) {
		struct probe_point *p = &ps->points[i];
		const struct probe_candidate *c;

		if (!p->enabled)
			continue;
		c = &p->candidates[p->chosen];
		for (int k = 0; k < PROBE_MAX_PROGS && c->progs[k]; k++) {
			struct bpf_program *prog = bpf_object__find_program_by_name(obj, c->progs[k]);

			if (witness_left_out(ps, c, k))
				continue;
			ebpf_log_clear_libbpf_warning();
			p->links[k] = attach_prog(prog, c, p->target, p->kretprobe_events[k]);
			if (!p->links[k]) {
				note_failure(ps, p, "attach", errno);
				failed++;
				break;
			}
		}
	}
	if (failed)
		detach_all(ps);
	return failed ? -1 : 0;
}

/* The next candidate of p and, for kernel-function candidates, the next alternate that
 * exists; candidates whose functions are all missing or tried are failed on the way. */
static int choose_one(struct probe_set *ps, struct kernel_funcs *kf, struct probe_point *p)
{
	for (;;) {
		int cand = next_candidate(ps, p), target = -1;

		if (cand < 0)
			return -1;
		if (has_targets(&p->candidates[cand])) {
			target = pick_target(kf, p, cand);
			if (target < 0) {
				if (p->next_target[cand] == 0)
					note_missing(ps, kf, p, cand);
				p->failed |= 1u << cand;
				continue;
			}
		}
		p->chosen = cand;
		p->target = target;
		return cand;
	}
}

/* Picks the next candidate of every enabled point; -1 with err set if one has none left. */
static int choose(struct probe_set *ps, struct kernel_funcs *kf, int *sel, char *err, size_t errlen)
{
	for (int i = 0; i < ps->npoints; i++) {
		struct probe_point *p = &ps->points[i];

		sel[i] = -1;
		p->chosen = -1;
		p->target = -1;
		if (!p->enabled)
			continue;
		sel[i] = choose_one(ps, kf, p);
		if (sel[i] < 0) {
			snprintf(err, errlen, "no attach method works for %s%s%s", p->name,
				 p->failures[0] ? ": " : " (AttachOrder excludes every method it has)", p->failures);
			ps->no_method = true;
			return -1;
		}
	}
	return 0;
}

static void log_choices(const struct probe_set *ps)
{
	char method[96];

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
			note_failure(ps, &ps->points[i], "load", e);
			marked++;
		}
	}
	return marked;
}

/* Each round either succeeds or marks at least one candidate (or alternate) failed, so
 * this ends. */
static int start_rounds(struct probe_set *ps, const struct probe_object *po, struct kernel_funcs *kf, char *err,
			size_t errlen)
{
	int sel[ps->npoints > 0 ? ps->npoints : 1]; /* none: a user's object of perf_event programs only */

	for (int i = 0; i < ps->npoints; i++) {
		struct probe_point *p = &ps->points[i];

		p->failed = 0;
		p->failures[0] = '\0';
		memset(p->next_target, 0, sizeof(p->next_target));
	}
	for (;;) {
		struct bpf_object *obj;
		int e;

		if (choose(ps, kf, sel, err, errlen))
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
		ps->obj = obj;
		return 0;
	}
}

int probe_set_start(struct probe_set *ps, const struct probe_object *po, char *err, size_t errlen)
{
	struct kernel_funcs *kf = kernel_funcs_new();
	int r;

	ps->no_method = false;
	ebpf_log_capture_libbpf();
	if (!kf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r = start_rounds(ps, po, kf, err, errlen);
	kernel_funcs_free(kf);
	return r;
}

void probe_set_stop(struct probe_set *ps)
{
	detach_all(ps);
	ps->obj = NULL;
}

bool probe_set_fell_back(const struct probe_set *ps)
{
	for (int i = 0; i < ps->npoints; i++)
		if (ps->points[i].enabled && ps->points[i].failed)
			return true;
	return false;
}
