/* The snapshot's event lines (snapshot_file.h) as COLLECTD-EBPF-MIB notifications: which
 * NOTIFICATION-TYPE an event is and its varbinds (event_notification()), and which events
 * are new to this subagent (event_cursor). No net-snmp here: snmp/event_traps.c sends what
 * these describe. */
#ifndef EBPF_SNMP_EVENT_NOTIFY_H
#define EBPF_SNMP_EVENT_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot/snapshot_file.h"

/* Under the base OID: notifications at .0.<n>, their objects at .1.7.<n>.0. */
enum event_notification_number {
	EVENT_NOTIFY_OOM_KILL = 1,     /* ebpfOomKill */
	EVENT_NOTIFY_MODULE_STATE = 2, /* ebpfModuleStateChange */
	EVENT_NOTIFY_DROPS = 3,        /* ebpfDropsChange */
	EVENT_NOTIFY_UNTRACED = 4,     /* ebpfUntracedChange */
	EVENT_NOTIFY_NOT_SENT = 5,     /* ebpfEventsNotSent */
};

enum event_object {
	EVENT_OBJ_SEQUENCE = 1, EVENT_OBJ_SEVERITY, EVENT_OBJ_KIND, EVENT_OBJ_MODULE, EVENT_OBJ_SUBJECT,
	EVENT_OBJ_MESSAGE, EVENT_OBJ_PID, EVENT_OBJ_PROCESS_NAME, EVENT_OBJ_CGROUP, EVENT_OBJ_TRIGGER_CGROUP,
	EVENT_OBJ_MODULE_STATE, EVENT_OBJ_ERROR, EVENT_OBJ_COUNT, EVENT_OBJ_TOTAL,
};
#define EVENT_OBJECTS_ARC 7 /* ebpfEvent ::= { ebpfObjects 7 } */

enum event_vb_type { EVENT_VB_UNSIGNED32, EVENT_VB_INTEGER, EVENT_VB_STRING, EVENT_VB_COUNTER64 };

struct event_varbind {
	enum event_object object;
	enum event_vb_type type;
	uint64_t num;
	char str[256]; /* DisplayString: at most 255 octets */
};

#define EVENT_MAX_VARBINDS 8

struct event_notification {
	enum event_notification_number number;
	int nvarbinds;
	struct event_varbind vb[EVENT_MAX_VARBINDS];
};

/* 0, or -1 for a kind this subagent does not know (a newer plugin's): not sent. */
int event_notification(const struct snapshot_event *e, struct event_notification *out);

/* What was sent: events recorded before the subagent started are history (its
 * predecessor sent them), the rest are sent once each, in order. */
struct event_cursor {
	int64_t since_us;
	uint64_t run, seq; /* the last one sent */
};

void event_cursor_init(struct event_cursor *c, int64_t since_us);
bool event_cursor_is_new(const struct event_cursor *c, const struct snapshot_event *e);
void event_cursor_sent(struct event_cursor *c, const struct snapshot_event *e);

#endif
