#include "libcore/engine/events.h"

#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static ebpf_event_fn handler;

const char *ebpf_event_kind_name(enum ebpf_event_kind k)
{
	switch (k) {
	case EBPF_EVENT_OOM_KILL: return "oom_kill";
	case EBPF_EVENT_MODULE_STATE: return "module_state";
	case EBPF_EVENT_DROPS: return "drops";
	case EBPF_EVENT_UNTRACED: return "untraced";
	case EBPF_EVENT_KINDS: break;
	}
	return "?";
}

const char *ebpf_event_severity_name(enum ebpf_event_severity s)
{
	switch (s) {
	case EBPF_EVENT_OKAY: return "okay";
	case EBPF_EVENT_WARNING: return "warning";
	case EBPF_EVENT_FAILURE: return "failure";
	}
	return "?";
}

void ebpf_event_set_handler(ebpf_event_fn fn)
{
	handler = fn;
}

void ebpf_event_init(struct ebpf_event *e, enum ebpf_event_kind kind, enum ebpf_event_severity severity,
		     const char *subject, const char *fmt, ...)
{
	char raw[EBPF_EVENT_TEXT_LEN];
	va_list ap;

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->severity = severity;
	snprintf(e->subject, sizeof(e->subject), "%s", subject ? subject : "");
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* A message may quote a process name: never more than one line for a consumer that
	 * reads line by line (collectd's exec handlers, snmptrapd's log). */
	log_escape(e->message, sizeof(e->message), raw);
}

static struct ebpf_event_field *add_field(struct ebpf_event *e, const char *name)
{
	struct ebpf_event_field *f;

	if (e->nfields == EBPF_EVENT_MAX_FIELDS)
		return NULL;
	f = &e->fields[e->nfields++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	return f;
}

void ebpf_event_add_text(struct ebpf_event *e, const char *name, const char *text)
{
	struct ebpf_event_field *f = add_field(e, name);

	if (f)
		log_escape(f->text, sizeof(f->text), text ? text : "");
}

void ebpf_event_add_number(struct ebpf_event *e, const char *name, uint64_t number)
{
	struct ebpf_event_field *f = add_field(e, name);

	if (!f)
		return;
	f->is_number = true;
	f->number = number;
	snprintf(f->text, sizeof(f->text), "%llu", (unsigned long long)number);
}

bool event_limiter_take(struct event_limiter *l, int64_t now_us)
{
	if (!l->last_us) {
		l->tokens = EVENT_BURST;
	} else if (now_us > l->last_us) {
		l->tokens += (double)(now_us - l->last_us) / (EVENT_REFILL_SECONDS * 1e6);
		if (l->tokens > EVENT_BURST)
			l->tokens = EVENT_BURST;
	}
	l->last_us = now_us;
	if (l->tokens >= 1) {
		l->tokens -= 1;
		return true;
	}
	l->not_sent++;
	return false;
}

void ebpf_event_send(const struct ebpf_event *e)
{
	if (handler)
		handler(e);
}
