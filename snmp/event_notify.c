#include "event_notify.h"
#include "display_string.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct event_varbind *add(struct event_notification *n, enum event_object obj, enum event_vb_type type)
{
	struct event_varbind *vb = &n->vb[n->nvarbinds++];

	memset(vb, 0, sizeof(*vb));
	vb->object = obj;
	vb->type = type;
	return vb;
}

/* A DisplayString under base/text_rule.h's rule: a trap carries no control to the
 * receiver's log or mail (the snapshot file is the subagent's input, not its trust). */
static void add_text(struct event_notification *n, enum event_object obj, const char *text)
{
	display_string(add(n, obj, EVENT_VB_STRING)->str, text ? text : "");
}

static uint64_t field_number(const struct snapshot_event *e, const char *name)
{
	const char *v = snapshot_event_field(e, name);

	return v ? strtoull(v, NULL, 10) : 0;
}

static void add_unsigned32(struct event_notification *n, enum event_object obj, uint64_t v)
{
	add(n, obj, EVENT_VB_UNSIGNED32)->num = v > UINT32_MAX ? UINT32_MAX : v;
}

/* EbpfEventSeverity: okay(1), warning(2), failure(3). */
static long severity(const char *s)
{
	return !strcmp(s, "okay") ? 1 : !strcmp(s, "warning") ? 2 : 3;
}

/* EbpfEventKind: oomKill(1), moduleState(2), drops(3), untraced(4). */
static const char *const kinds[] = { "oom_kill", "module_state", "drops", "untraced" };

static int kind(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, kinds[i]))
			return i + 1;
	return 0;
}

/* EbpfRunState, the snapshot's state names; unknown(6) for anything else. */
static long run_state(const char *s)
{
	for (int i = SNAPSHOT_STATE_RUNNING; s && i <= SNAPSHOT_STATE_DISABLED; i++)
		if (!strcmp(s, snapshot_state_name((enum snapshot_state)i)))
			return i;
	return 6;
}

int event_notification(const struct snapshot_event *e, struct event_notification *n)
{
	int k = kind(e->kind);

	memset(n, 0, sizeof(*n));
	if (!k)
		return -1;
	add_unsigned32(n, EVENT_OBJ_SEQUENCE, e->seq);
	if (!strcmp(e->subject, "summary")) {
		n->number = EVENT_NOTIFY_NOT_SENT;
		add(n, EVENT_OBJ_KIND, EVENT_VB_INTEGER)->num = (uint64_t)k;
		add_text(n, EVENT_OBJ_MODULE, e->module);
		add_unsigned32(n, EVENT_OBJ_COUNT, field_number(e, "not_sent"));
	} else if (k == 1) {
		n->number = EVENT_NOTIFY_OOM_KILL;
		add_text(n, EVENT_OBJ_MODULE, e->module);
		add_unsigned32(n, EVENT_OBJ_PID, field_number(e, "pid"));
		add_text(n, EVENT_OBJ_PROCESS_NAME, snapshot_event_field(e, "name"));
		add_text(n, EVENT_OBJ_CGROUP, snapshot_event_field(e, "cgroup"));
		add_text(n, EVENT_OBJ_TRIGGER_CGROUP, snapshot_event_field(e, "trigger_cgroup"));
	} else if (k == 2) {
		n->number = EVENT_NOTIFY_MODULE_STATE;
		add(n, EVENT_OBJ_SEVERITY, EVENT_VB_INTEGER)->num = (uint64_t)severity(e->severity);
		add_text(n, EVENT_OBJ_MODULE, e->module);
		add_text(n, EVENT_OBJ_SUBJECT, e->subject);
		add(n, EVENT_OBJ_MODULE_STATE, EVENT_VB_INTEGER)->num = (uint64_t)run_state(snapshot_event_field(e, "state"));
		add_text(n, EVENT_OBJ_ERROR, snapshot_event_field(e, "error"));
	} else {
		n->number = k == 3 ? EVENT_NOTIFY_DROPS : EVENT_NOTIFY_UNTRACED;
		add(n, EVENT_OBJ_SEVERITY, EVENT_VB_INTEGER)->num = (uint64_t)severity(e->severity);
		add_text(n, EVENT_OBJ_MODULE, e->module);
		add_text(n, EVENT_OBJ_SUBJECT, e->subject);
		add_unsigned32(n, EVENT_OBJ_COUNT, field_number(e, "interval"));
		add(n, EVENT_OBJ_TOTAL, EVENT_VB_COUNTER64)->num = field_number(e, "total");
	}
	add_text(n, EVENT_OBJ_MESSAGE, e->message);
	return 0;
}

void event_cursor_init(struct event_cursor *c, int64_t since_us)
{
	*c = (struct event_cursor){ .since_us = since_us };
}

bool event_cursor_is_new(const struct event_cursor *c, const struct snapshot_event *e)
{
	if (e->time_us < c->since_us)
		return false;
	return e->run > c->run || (e->run == c->run && e->seq > c->seq);
}

void event_cursor_sent(struct event_cursor *c, const struct snapshot_event *e)
{
	c->run = e->run;
	c->seq = e->seq;
}
