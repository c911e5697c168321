/* The module table and the one lifecycle: each module is a descriptor (its BPF object,
 * probe points, options and map views as data, plus hooks for what data cannot say) that
 * module.c runs the same way for all.
 *
 * A front-end (the collectd plugin, tests, bench) creates a module by name, feeds it
 * options, starts it (open -> rodata -> load -> attach), reads it every interval into a
 * metric_sink, and frees it. A module that fails to start keeps its state and error
 * for the front-end to report; the others are unaffected.
 */
#ifndef EBPF_CORE_MODULE_H
#define EBPF_CORE_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/hist/hist.h"
#include "libcore/hist/hist_config.h"
#include "libcore/engine/map_layout.h"
#include "libcore/engine/views.h"
#include "libcore/metric/metric.h"
#include "libcore/read/map_view.h"
#include "libcore/engine/module_events.h"
#include "libcore/engine/module_state.h"
#include "base/options.h"
#include "libcore/engine/probe.h"
#include "base/err_max.h"

struct module;
struct bpf_object;
struct map_view;
struct view_state;
struct witness_reader;
struct module_cgroup;
struct cgroup_table;

/* One key of a module's options table, in the order users are told them. A bool is
 * parsed by the engine into the module's private state; anything else goes to the
 * set_option hook. */
enum module_option_kind { MODOPT_HOOK, MODOPT_BOOL };
struct module_option {
	const char *key;
	enum module_option_kind kind;
	size_t offset; /* MODOPT_BOOL: offsetof() of a bool in the module's private struct */
};

/* A probe point of the descriptor: its name and ordered candidates (probe.h). */
struct module_point {
	const char *name;
	const struct probe_candidate *candidates;
	int ncandidates;
	bool off;      /* not enabled until the module's prepare hook enables it */
};
/* The candidate count is derived from the array, never written by hand. */
#define MODULE_POINT(name_, candidates_) \
	{ .name = (name_), .candidates = (candidates_), .ncandidates = (int)(sizeof(candidates_) / sizeof((candidates_)[0])) }
#define MODULE_POINT_OFF(name_, candidates_) \
	{ .name = (name_), .candidates = (candidates_), \
	  .ncandidates = (int)(sizeof(candidates_) / sizeof((candidates_)[0])), .off = true }

/* A tracepoint's point tried by its three methods, each with its witness
 * (WITNESSED_TRACEPOINT_CANDIDATES of programs prog_##_btf, _raw and _tp): the
 * candidates are a file-scope compound literal, static like a named array. */
#define MODULE_WITNESSED_TRACEPOINT(name_, prog_) \
	MODULE_POINT(name_, ((const struct probe_candidate[])WITNESSED_TRACEPOINT_CANDIDATES(prog_)))

/* The BPF side of a descriptor whose tables are named `points` and `views`: the object of
 * skeleton <name>_bpf, the one whose names the descriptor checks (MODULE_SKELETON(<name>),
 * object_names.h: a build error without it), and both tables with their counts. */
#define MODULE_OBJECT(name_)                                                                          \
	.elf_bytes = name_##_bpf__elf_bytes, .points = points,                                        \
	.npoints = COUNT_OF(points) + 0 * sizeof(struct {                                             \
		_Static_assert(__builtin_types_compatible_p(struct name_##_bpf, module_skeleton),      \
			       "the descriptor names its object's programs and maps through "         \
			       "MODULE_SKELETON(" #name_ ")");                                         \
		int checked;                                                                          \
	}),                                                                                           \
	.views = views, .nviews = COUNT_OF(views)

/* By "cgroup" with the tables a descriptor names, the same whatever the options: the
 * table array `tables_` and the maps made only with By "cgroup" (NULL: the usual ones). */
#define MODULE_CGROUP_TABLES(tables_, aux_) \
	MODULE_BY_CGROUP, .cgroup_tables = (tables_), .ncgroup_tables = COUNT_OF(tables_), .cgroup_aux = (aux_)

/* The cost governor's handles on a module (cost_control.h, doc/modules.md Cost): with
 * `sampling`, its object has sampling.bpf.h's map `sampling` and its entry program samples
 * 1 in N; `shed` (bit k: program k of the point's chosen candidate) are the programs detached
 * at the last step. Both act only while point `point` is enabled; `what` names the
 * sampled part for the notifications and the shed programs `shed_what`. */
struct cost_steps {
	int point;
	bool sampling;
	uint32_t shed;
	const char *what, *shed_what;
};

/* A module's descriptor: what it is (data), and hooks only for what data cannot say.
 *
 * The engine does the lifecycle once for every module (module.c): allocates priv_size
 * bytes of private state, parses common options and the bools of the options table and
 * hands the other keys to set_option; at start opens the BPF object from elf_bytes (the
 * skeleton's X_bpf__elf_bytes), sets the `filter_tgid` and `hist_precision` rodata by
 * name, sizes every map whose value is one bare histogram row (declared by value_size, no
 * BTF type) for that precision, lets configure set the module's own rodata and map sizes,
 * starts the probe points by candidates (probe.c), sets up readers for the map views, and on every read reads and sends the
 * views before the read hook. Every hook may be NULL. One rule for the hooks that can
 * fail: 0, or -1 with err filled (what is wrong and how to fix it; the engine says whose
 * it is); read, whose failure is an errno the engine words, aside. */
struct module_ops {
	const char *name;
	const char *description;
	bool in_default_set;              /* enabled by a bare `LoadPlugin ebpf` */
	/* Its witnesses (witness.h) run only with `Witness true`: its tracepoints fire so often
	 * (every syscall, every context switch) that a second program per event is a cost the
	 * user chooses. Elsewhere they run unless `Witness false`. */
	bool witness_opt_in;
	/* configuration */
	const struct module_option *options; /* NULL-terminated */
	const char *const *option_names;  /* without a table: keys set_option parses */
	size_t priv_size;                 /* m->priv: zeroed, freed by the engine */
	/* the BPF object */
	const void *(*elf_bytes)(size_t *size);
	const struct module_point *points;
	int npoints;
	const struct map_view *views;
	int nviews;
	/* The metrics whose counters and histogram totals (host-wide) count the module's events,
	 * NULL-terminated: its cpu_cost between cost windows is carried by them (cost_window.h).
	 * NULL: the last window's cost is sent until the next. */
	const char *const *cost_events;
	/* What the cost governor may do when the module's cost stays over its CpuBudget
	 * (cost_control.h); NULL: the cost is only sent and said when over. */
	const struct cost_steps *cost_steps;
	/* By "cgroup" (module_cgroup.h): the module's values per cgroup too. The engine keeps
	 * its state (m->cgroup) through every step: takes the cgroup keys the module's options
	 * table lists, checks them after check_config, budgets the per-cgroup histogram rows
	 * after prepare, sizes the tables after configure, starts their reader after start
	 * (its log line says whose cgroup an event counts for: cgroup_whose, "" the task's, or
	 * e.g. " of the socket"), reads them after read and frees them after destroy. The
	 * module gives its tables, fixed ones here (MODULE_CGROUP_TABLES) or ones sized from
	 * its options at prepare (module_cgroup_tables); views that exist only with By
	 * "cgroup" need MODULE_FEATURE_CGROUP, which the engine sets. */
	bool by_cgroup;
	/* By "command" too (the same tables keyed by the acting task's comm, cgroup_key.h): its
	 * programs know the task each event is counted for (row_key_current, row_key_task). */
	bool by_command;
	const char *cgroup_whose;
	const struct cgroup_table *cgroup_tables;
	int ncgroup_tables;
	const char *const *cgroup_aux; /* NULL-terminated; NULL: MODULE_CGROUP_AUX_MAPS only */
	bool cgroup_pressure; /* Pressure (CGROUP_PRESSURE_KEY) on by default with By "cgroup" */

	/* hooks */
	void (*create)(struct module *m); /* defaults in m->priv (already zeroed) */
	/* One of the module's own keys that the engine does not parse itself (its options
	 * table's MODOPT_HOOK keys, or without a table option_names'): the engine refuses any
	 * other key. 0, or -1 with the message. */
	int (*set_option)(struct module *m, const struct option *o, char *err, size_t errlen);
	/* Options that are valid one by one but not together (Ports without PortBreakdown):
	 * checked once the module's block is read, so they are configuration errors that stop
	 * collectd like any bad value. 0, or -1 with the message. */
	int (*check_config)(struct module *m, char *err, size_t errlen);
	/* Before the object is opened: kernel facts, which points are enabled
	 * (m->probes.points[i].enabled), m->features, m->hist_rows. 0, or -1 with the message. */
	int (*prepare)(struct module *m, char *err, size_t errlen);
	/* After each open, before load: the module's own rodata (module_rodata()) and map
	 * sizes. 0, or -1 with the message (module_hook_fail()): the module does not start and
	 * its error is that message. Called again when a candidate fails and the object reopens. */
	int (*configure)(struct module *m, struct bpf_object *obj, char *err, size_t errlen);
	/* After each load, before anything attaches: what the kernel got (a user's program
	 * checked again after libbpf's relocations). 0, or -1 with the message: the load counts
	 * as failed and the module's error is that message. */
	int (*loaded)(struct module *m, struct bpf_object *obj, char *err, size_t errlen);
	/* After the points are attached and the views set up: readers of its own, log lines. */
	int (*start)(struct module *m, char *err, size_t errlen);
	/* Every read, after the views' maps and before the per-cgroup tables: the module's own
	 * maps (a user's program's views), read and kept, nothing sent. 0, or -1 with the
	 * message (what could not be read): then nothing of the read is sent. */
	int (*read)(struct module *m, char *err, size_t errlen);
	/* Once every map of the read was read: sends what `read` kept and what the views cannot
	 * say, after the views' values. */
	void (*send)(struct module *m, const struct metric_sink *sink);
	/* Frees what the hooks allocated (not m->priv itself); safe in any state. */
	void (*destroy)(struct module *m);
};

struct module {
	const struct module_ops *ops;
	void *priv;
	/* "<module>" or "<module>-<instance>": collectd's plugin_instance and the log prefix. */
	char label[96];
	enum module_state state;
	char last_error[ERR_MAX];
	char refusal[ERR_MAX];     /* the configure or loaded hook's message: it refused the object */
	uint32_t filter_tgid;       /* 0: whole system; tests count only their own process */
	uint32_t features;          /* bits the prepare hook sets; views' `needs` test them */
	struct hist_config hist;    /* Precision (how a front-end presents histograms is its own) */
	/* Histogram rows the kernel keeps, against the memory budget that decides the
	 * default precision (hist_config_precision): a prepare hook sets it where the views'
	 * row counts do not say it (rows sized at start, hashes); 0 = counted from the views. */
	uint32_t hist_rows;
	unsigned int precision;     /* of the host-wide histogram rows, set at start */
	/* By "cgroup": the per-cgroup histogram rows (module_cgroup_prepare) have a precision of
	 * their own, so that turning them on leaves `precision` as it was. CgroupPrecision, or
	 * the highest up to `precision` whose rows fit HIST_ROWS_BUDGET_BYTES on their own;
	 * KernelMemoryLimit lowers cgroup_hist first (memory_plan.h). */
	struct hist_config cgroup_hist;
	uint32_t cgroup_hist_rows;
	unsigned int cgroup_precision; /* set at start, with precision */
	struct map_layout_input layout; /* what its maps are laid out for; zeroed: this machine */
	struct probe_set probes;    /* points from the descriptor; AttachOrder lands in order */
	struct bpf_object *obj;     /* opened from elf_bytes; NULL when closed */
	/* A user's program carries its object's bytes (read once, checked): opened from these
	 * instead of ops->elf_bytes when set. */
	const void *elf;
	size_t elf_size;
	struct view_state *views;   /* one per descriptor view, while running */
	struct module_cgroup *cgroup; /* with by_cgroup */
	struct witness_reader *witness; /* its witnessed points' "untraced" (witness.h), while running */
	/* Events (module_events.h): the rate limit per kind, the loss counters watched. */
	struct event_limiter event_limits[EBPF_EVENT_KINDS];
	struct loss_watch losses;
	struct module_sinks sinks; /* in front of the front-end's sink, from the first read */
	/* CpuBudget in ns of CPU per second: 0 unset (the front-end's default), CPU_BUDGET_OFF. */
	double cpu_budget;
	struct cost_control *cost; /* the governor's state, while running */
	/* What the kernel charges for the maps that are charged once (self_metrics_start). */
	uint64_t kernel_memory_fixed;
	bool kernel_memory_fixed_ok;
};

/* Inside the open object's .rodata: the global variable `name` (through BTF), which must
 * be `size` bytes (0: any size, for arrays); NULL if it is missing or of another size.
 * For configure hooks, through MODULE_RODATA (object_names.h: name and size from the
 * skeleton). */
void *module_rodata(struct bpf_object *obj, const char *name, size_t size);
/* A hook's failure: the message into err; -1, as a hook returns it. */
int module_hook_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

extern const struct module_ops *const module_table[];

const struct module_ops *module_find(const char *name);
/* "syscalls, ..." for error messages. */
void module_names(char *buf, size_t len);

/* instance: NULL or "" for the module's only instance, else a name that sets it apart. */
struct module *module_new(const struct module_ops *ops, const char *instance);
/* Common keys (AttachOrder, Precision, Witness, CpuBudget) and then the module's own; an unknown key is an
 * error listing the valid ones (opt_refuse_unknown: "valid options: Latency, AttachOrder,
 * Precision", the module's own, then the common ones). 0 or -1. */
int module_set_option(struct module *m, const struct option *o, char *err, size_t errlen);
/* After the last option: the options' consistency (module_ops.check_config). 0 or -1 with
 * a message that names the options and the fix. module_start() checks it too. */
int module_check_config(struct module *m, char *err, size_t errlen);
/* Starts the module and sets state and last_error; logs the outcome once and sends it as
 * an event when it is news: off (FAILURE), or a point on a fallback method (WARNING, one
 * per point). 0 or -1. */
int module_start(struct module *m);
/* The kernel memory a module's maps will take once started, planned before anything
 * loads (memory_plan.h): its object opened and sized as module_start() would, with the
 * maps of each probe point's first-choice method, never loaded. */
#define MODULE_MEMORY_MAX_MAPS 32
struct map_memory {
	char name[32];
	uint64_t bytes;     /* map_planned_bytes() at the plan's possible CPUs */
	bool percpu;        /* one copy per possible CPU */
};
struct module_memory {
	int nmaps;
	struct map_memory maps[MODULE_MEMORY_MAX_MAPS];
	uint64_t bytes;     /* all its maps */
	unsigned int precision;
	unsigned int cgroup_precision; /* of its per-cgroup histogram rows, if cgroup_hist_rows */
	uint32_t cgroup_hist_rows;
};
/* Plans m at its configured precisions (m->hist, m->cgroup_hist: lower their precision
 * first to plan it finer or coarser), laid out as a machine with possible_cpus gets it (its layout and a
 * prepare hook's precision budget: m->layout's possible_cpus for the plan). 0, or -1 with the message (a module that cannot start: its start
 * gives the same error). */
int module_plan_memory(struct module *m, int possible_cpus, struct module_memory *plan, char *err, size_t errlen);
/* Keeps m off without starting it (the memory plan refused it): state and last_error as a
 * failed start sets them, logged once. */
void module_refuse(struct module *m, const char *why);
/* Reads every map of the module (its views, the read hook's, the per-cgroup tables), then,
 * when all were read, sends all their values and the self-metrics into sink: a read that
 * fails sends nothing. A read that fails after good ones is a FAILURE event, the first good
 * one after it an OKAY; the loss counters' events and the rate limit's summaries go out at
 * the end of the read. The sinks in front of sink (module_sinks) are built at the first
 * read into it and kept while the front-end reads into the same sink. 0, or -1 (a module
 * that is not running, or a read that failed: m->last_error says what). */
int module_read(struct module *m, const struct metric_sink *sink);
void module_free(struct module *m);

#endif
