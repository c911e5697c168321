/* Events: what happens once (an OOM kill, a module going off, drops beginning), as opposed
 * to the values read every interval. libcore reports them through a handler the front-end
 * sets (the collectd plugin turns them into notifications and records them in the snapshot
 * for SNMP notifications); libcore itself knows no collectd.
 *
 * Every event is sent through its module (module_event()), which rate-limits it per kind:
 * EVENT_BURST events at once, then one per EVENT_REFILL_SECONDS. What the limit holds back
 * is counted, and at the end of the module's read one summary event per kind says exactly
 * how many were not sent one by one (its `not_sent` field), so a storm gives a bounded
 * number of events and an exact count. */
#ifndef EBPF_CORE_EVENTS_H
#define EBPF_CORE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

enum ebpf_event_kind {
	EBPF_EVENT_OOM_KILL,     /* process: the kernel chose an OOM victim */
	EBPF_EVENT_MODULE_STATE, /* a module went off, fell back at start, its read failed or recovered */
	EBPF_EVENT_DROPS,        /* a dropped-* counter began to grow after a quiet interval, or stopped */
	EBPF_EVENT_UNTRACED,     /* block IO the programs did not see began, or stopped */
	EBPF_EVENT_KINDS,
};

enum ebpf_event_severity { EBPF_EVENT_OKAY, EBPF_EVENT_WARNING, EBPF_EVENT_FAILURE };

/* "oom_kill", "module_state", "drops", "untraced": collectd's notification type, the
 * snapshot's event kind. */
const char *ebpf_event_kind_name(enum ebpf_event_kind k);
/* "okay", "warning", "failure" */
const char *ebpf_event_severity_name(enum ebpf_event_severity s);

#define EBPF_EVENT_MAX_FIELDS 8
#define EBPF_EVENT_TEXT_LEN 256

/* A named value of an event: collectd's notification meta data, an SNMP varbind. */
struct ebpf_event_field {
	const char *name;
	bool is_number;
	uint64_t number;
	char text[EBPF_EVENT_TEXT_LEN]; /* escaped (log_escape): one line, whatever its source */
};

struct ebpf_event {
	enum ebpf_event_kind kind;
	enum ebpf_event_severity severity;
	const char *module;   /* the module's label; set by module_event() */
	char subject[64];     /* what in the module: "dropped-oom_events", "untraced-loop0-write", "summary"; may be "" */
	char message[EBPF_EVENT_TEXT_LEN];
	int nfields;
	struct ebpf_event_field fields[EBPF_EVENT_MAX_FIELDS];
};

/* Rate limit per module and kind. */
#define EVENT_BURST 10
#define EVENT_REFILL_SECONDS 6

struct event_limiter {
	double tokens;
	int64_t last_us;       /* monotonic; 0: never used (full bucket) */
	uint64_t not_sent;     /* held back since the last summary */
};

typedef void (*ebpf_event_fn)(const struct ebpf_event *e);

/* NULL: events go nowhere (tools and tests that only log). Set before modules start. */
void ebpf_event_set_handler(ebpf_event_fn fn);

/* The event's kind, severity, subject and message (printf); no fields yet. */
void ebpf_event_init(struct ebpf_event *e, enum ebpf_event_kind kind, enum ebpf_event_severity severity,
		     const char *subject, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Fields beyond EBPF_EVENT_MAX_FIELDS are left out (a bug: the callers' counts are fixed). */
void ebpf_event_add_text(struct ebpf_event *e, const char *name, const char *text);
void ebpf_event_add_number(struct ebpf_event *e, const char *name, uint64_t number);

/* Whether the limiter lets one more event through at now_us (monotonic microseconds);
 * counts it in not_sent when not. */
bool event_limiter_take(struct event_limiter *l, int64_t now_us);

/* Hands e to the handler, unconditionally (module_event() applies the limit). */
void ebpf_event_send(const struct ebpf_event *e);

#endif
