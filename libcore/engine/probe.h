/* Probe lifecycle: open -> configure (rodata, map sizes) -> load -> attach, with an
 * ordered list of attach candidates per probe point.
 *
 * A BPF object holds every flavour of every probe point (say tp_btf, raw_tp and classic
 * tracepoint programs for sys_exit). probe_set_start() enables one candidate per point,
 * loads, attaches, and on failure marks that candidate failed and tries the next: the
 * choice is made by trying, never by comparing kernel versions. When a whole-object load
 * fails, each point's candidate is test-loaded alone to find the one that broke it. The
 * winner of each point is logged and readable through probe_point_method().
 *
 * fentry and kprobe candidates name their kernel function at run time (`targets`, with
 * alternates for functions renamed across kernels): the first alternate that exists (BTF
 * for fentry, available_filter_functions or kallsyms for kprobe) is tried; if it fails to
 * load or attach, the next existing alternate is, and only then the next candidate.
 */
#ifndef EBPF_CORE_PROBE_H
#define EBPF_CORE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/engine/object_names.h"
#include "libcore/kernel/kretprobe_events.h"

struct bpf_object;
struct bpf_link;

enum attach_method {
	ATTACH_TP_BTF,
	ATTACH_RAW_TP,
	ATTACH_TRACEPOINT,
	ATTACH_FENTRY,
	ATTACH_KPROBE,
	ATTACH_METHOD_COUNT
};

/* "tp_btf", "raw_tp", "tracepoint", "fentry", "kprobe" */
const char *attach_method_name(enum attach_method m);
int attach_method_parse(const char *name, enum attach_method *out);

/* 6: runqueue's three tracepoints, each with its witness. */
#define PROBE_MAX_PROGS 6
#define PROBE_MAX_MAPS 2
#define PROBE_MAX_CANDIDATES 8
#define PROBE_MAX_TARGETS 4

struct probe_candidate {
	enum attach_method method;
	const char *variant;                    /* detail shown after the method, or NULL */
	const char *progs[PROBE_MAX_PROGS];     /* program names in the object, NULL-terminated */
	const char *own_maps[PROBE_MAX_MAPS];   /* maps only this candidate uses: not created
						   unless it is chosen (the kernel may lack the type) */
	/* fentry/kprobe only: the kernel function all of progs attach to, then alternates
	 * (other names of the same function, same arguments), NULL-terminated. Programs are
	 * SEC("fentry"), SEC("fexit"), SEC("kprobe"), SEC("kretprobe") without a name; a
	 * kretprobe is recognised by its section. Tracepoint candidates leave this empty. */
	const char *targets[PROBE_MAX_TARGETS];
	/* The last `witnesses` of progs are the point's witnesses (witness.h), one per
	 * tracepoint of the point, attached after the others: their count of firings against
	 * the others' of runs is the point's "untraced". Left out with probe_set.witness_off. */
	uint8_t witnesses;
};

/* The three tracepoint flavours of one program of the descriptor's skeleton (object_names.h),
 * in the usual order: programs <prog>_btf (tp_btf), <prog>_raw (raw_tp) and <prog>_tp
 * (classic tracepoint). */
#define TRACEPOINT_CANDIDATES(prog)                                          \
	{                                                                    \
		{ ATTACH_TP_BTF, NULL, { PROG_NAME(prog##_btf) }, { NULL } },  \
		{ ATTACH_RAW_TP, NULL, { PROG_NAME(prog##_raw) }, { NULL } },  \
		{ ATTACH_TRACEPOINT, NULL, { PROG_NAME(prog##_tp) }, { NULL } }, \
	}

/* The same with a witness (bpf/include/witness.bpf.h: WITNESS_PROGRAMS) after the tp_btf
 * and raw_tp programs; the classic tracepoint method has none (why: witness.bpf.h). */
#define WITNESSED_TRACEPOINT_CANDIDATES(prog)                                                        \
	{                                                                                            \
		{ ATTACH_TP_BTF, NULL, { PROG_NAME(prog##_btf), PROG_NAME(witness_##prog##_btf) }, { NULL }, \
		  MODULE_WITNESSES(1) },                                                             \
		{ ATTACH_RAW_TP, NULL, { PROG_NAME(prog##_raw), PROG_NAME(witness_##prog##_raw) }, { NULL }, \
		  MODULE_WITNESSES(1) },                                                             \
		{ ATTACH_TRACEPOINT, NULL, { PROG_NAME(prog##_tp) }, { NULL } },                     \
	}

struct probe_point {
	const char *name;                       /* e.g. "sys_exit" */
	const struct probe_candidate *candidates;
	int ncandidates;
	bool enabled;
	/* state */
	int chosen;                             /* index into candidates, -1 if none */
	int target;                             /* index into the chosen candidate's targets */
	uint32_t failed;                        /* bit i: candidate i failed to load or attach */
	uint8_t next_target[PROBE_MAX_CANDIDATES]; /* first alternate of candidate i not yet tried */
	char failures[1024];                    /* "raw_tp: <why>; kprobe:vfs_read: <why>" */
	struct bpf_link *links[PROBE_MAX_PROGS];
	/* kretprobes the engine made in tracefs (kretprobe_events.h) for links[k], removed
	 * after the link; "" for every other program. */
	char kretprobe_events[PROBE_MAX_PROGS][KRETPROBE_EVENT_NAME_MAX];
};

/* How probe.c handles the module's object: open() opens it from its ELF bytes
 * (bpf_object__open_mem: a built-in's bytes as its generated skeleton embeds them, or a
 * user's checked object), applies the module's configuration (rodata found by name, map
 * sizes) and returns its bpf_object; load() loads it (bpf_object__load), returning 0 or
 * -errno; close() closes it (bpf_object__close). The skeleton's typed accessors are not
 * used: one path serves built-ins and users' objects alike. Called more than once when
 * candidates fail. */
struct probe_object {
	void *ctx;
	struct bpf_object *(*open)(void *ctx);
	int (*load)(void *ctx);
	void (*close)(void *ctx);
};

struct probe_set {
	struct probe_point *points;
	int npoints;
	/* `AttachOrder`: methods to try, in this order; norder == 0 keeps the candidate order. */
	enum attach_method order[ATTACH_METHOD_COUNT];
	int norder;
	const char *module; /* for log messages */
	/* The loaded object while the points are attached (after probe_set_start() succeeds,
	 * until probe_set_stop()), else NULL: what the module-wide self-metrics read. */
	struct bpf_object *obj;
	/* `Witness false`: the witnesses of witnessed candidates are neither loaded nor
	 * attached, and the module's programs skip their run count (rodata witness_on). */
	bool witness_off;
	/* After a failed start: true when a point had no candidate left (this kernel lacks
	 * every way in), false for anything else (privileges, memory, a load error). */
	bool no_method;
};

/* 0 when every enabled point is attached (the object stays open: the module reads its
 * maps); -1 with an actionable message in err, and the object closed. Why it failed is
 * in ps->no_method, not only in the text. */
int probe_set_start(struct probe_set *ps, const struct probe_object *po, char *err, size_t errlen);
/* For a plan before load (module_plan_memory): creates in obj the own maps of each enabled
 * point's first candidate (the one probe_set_start() tries first), no other candidate's. */
void probe_set_select_first(const struct probe_set *ps, struct bpf_object *obj);
/* Detaches every link, in reverse order. The module closes its object afterwards. */
void probe_set_stop(struct probe_set *ps);

/* The cost governor's last step (cost_control.h): program k of p's chosen candidate
 * detached while the others run, and attached again. 0, or -1 / -errno. */
int probe_point_detach_prog(struct probe_point *p, int k);
int probe_point_reattach_prog(struct probe_set *ps, struct probe_point *p, int k);

/* "tp_btf", "raw_tp+tid_hash", "kprobe:vfs_read", ... of the attached candidate, or "none". */
const char *probe_point_method(const struct probe_point *p, char *buf, size_t len);
/* True if any enabled point runs on a candidate other than its first choice. */
bool probe_set_fell_back(const struct probe_set *ps);

#endif
