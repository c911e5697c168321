/* A module's events (events.h): sent through the module's rate limit, summaries of what the
 * limit held back, and the loss counters' events: a `dropped-*` or `untraced-*` counter
 * that grows in an interval after a quiet one begins a loss (WARNING), the first quiet
 * interval after it ends it (OKAY). module_read() calls these; modules call
 * module_event() for events of their own (the process module's OOM kills). */
#ifndef EBPF_CORE_MODULE_EVENTS_H
#define EBPF_CORE_MODULE_EVENTS_H

#include "libcore/engine/events.h"
#include "libcore/metric/metric.h"

#include <stdint.h>

struct module;

/* Loss counters a module watches: the bound is the number of dropped-* and untraced-*
 * series one module has (a block module on a machine with many disks has two per disk);
 * series past it are not watched and counted in `unwatched`. */
#define LOSS_WATCH_MAX 64

struct loss_series {
	char name[64];   /* "dropped-oom_events", "untraced-loop0-write" */
	uint64_t last;   /* the counter at the previous read (counters start at 0 with the module) */
	bool losing;     /* the last interval had losses */
};

struct loss_watch {
	int n;
	uint64_t unwatched;
	struct loss_series s[LOSS_WATCH_MAX];
};

/* Sends e (its module set to m's label) unless m's limit for e's kind holds it back. */
void module_event(struct module *m, struct ebpf_event *e);
/* A module_state event (its start failed, it fell back, its read failed or works again):
 * the text, then the module's state and error as fields, through module_event(). */
void module_state_event(struct module *m, enum ebpf_event_severity severity, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* One summary event per kind whose limit held events back since the last summary: a
 * WARNING with subject "summary" and field `not_sent`, the exact count. */
void module_events_flush(struct module *m);

/* The sinks every value of a module's read passes on its way to the front-end's `out`:
 * `host` takes the host-wide values and adds up the read's events (module_ops.cost_events,
 * what cpu_cost is priced by) in `events`; `all` the rest (per cgroup, self-metrics). Both
 * watch the loss counters. Built once for an out (module_read()), not at every read. */
struct module_sinks {
	const struct metric_sink *out;
	struct metric_sink host, all;
	uint64_t events;
};
void module_sinks_init(struct module *m, const struct metric_sink *out);
/* One loss counter's new value (what the sink does for "dropped" and "untraced"). */
void loss_watch_counter(struct module *m, const struct metric_id *id, const char *instance, uint64_t value);

#endif
