#include "libcore/engine/module_events.h"

#include "base/log.h"
#include "libcore/engine/module.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t monotonic_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void module_event(struct module *m, struct ebpf_event *e)
{
	e->module = m->label;
	if (e->kind >= EBPF_EVENT_KINDS || !event_limiter_take(&m->event_limits[e->kind], monotonic_us()))
		return;
	ebpf_event_send(e);
}

static const char *kind_words(enum ebpf_event_kind k)
{
	switch (k) {
	case EBPF_EVENT_OOM_KILL: return "OOM kills";
	case EBPF_EVENT_MODULE_STATE: return "state changes";
	case EBPF_EVENT_DROPS: return "drop events";
	case EBPF_EVENT_UNTRACED: return "untraced-IO events";
	case EBPF_EVENT_KINDS: break;
	}
	return "events";
}

void module_state_event(struct module *m, enum ebpf_event_severity severity, const char *fmt, ...)
{
	struct ebpf_event e;
	char msg[EBPF_EVENT_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ebpf_event_init(&e, EBPF_EVENT_MODULE_STATE, severity, "state", "%s", msg);
	ebpf_event_add_text(&e, "state", module_state_name(m->state));
	if (m->last_error[0])
		ebpf_event_add_text(&e, "error", m->last_error);
	module_event(m, &e);
}

void module_events_flush(struct module *m)
{
	for (int k = 0; k < EBPF_EVENT_KINDS; k++) {
		struct event_limiter *l = &m->event_limits[k];
		struct ebpf_event e;

		if (!l->not_sent)
			continue;
		ebpf_event_init(&e, k, EBPF_EVENT_WARNING, "summary",
				"%s: %llu more %s were not sent one by one (at most %d at once, then one per %d s)",
				m->label, (unsigned long long)l->not_sent, kind_words(k), EVENT_BURST,
				EVENT_REFILL_SECONDS);
		ebpf_event_add_number(&e, "not_sent", l->not_sent);
		e.module = m->label;
		l->not_sent = 0;
		ebpf_event_send(&e); /* the summary is never limited: it is the count */
	}
}

static struct loss_series *find_series(struct loss_watch *w, const char *name)
{
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->s[i].name, name))
			return &w->s[i];
	if (w->n == LOSS_WATCH_MAX) {
		if (!w->unwatched++) /* the values still go out; only their events do not */
			ebpf_log(EBPF_LOG_WARNING, "more than %d dropped-* and untraced-* series in one module: %s and "
				 "later ones send no drop events", LOSS_WATCH_MAX, name);
		return NULL;
	}
	snprintf(w->s[w->n].name, sizeof(w->s[w->n].name), "%s", name);
	w->s[w->n].last = 0;
	w->s[w->n].losing = false;
	return &w->s[w->n++];
}

void loss_watch_counter(struct module *m, const struct metric_id *id, const char *instance, uint64_t value)
{
	bool untraced = !strcmp(id->name, "untraced");
	struct loss_series *s;
	struct ebpf_event e;
	char name[64];
	uint64_t delta;

	/* The engine's own loss counters only: a program's map may be named "dropped" too. */
	if (id->map || (!untraced && strcmp(id->name, "dropped")))
		return;
	snprintf(name, sizeof(name), "%s-%s", id->name, instance);
	s = find_series(&m->losses, name);
	if (!s)
		return;
	/* A counter that went back started over (a declared discontinuity): its value is the
	 * interval's. */
	delta = value >= s->last ? value - s->last : value;
	s->last = value;
	if (delta && !s->losing) {
		s->losing = true;
		if (untraced)
			ebpf_event_init(&e, EBPF_EVENT_UNTRACED, EBPF_EVENT_WARNING, name,
					"%s: block IO on %s is going untraced: %llu IOs the kernel completed in the "
					"last interval were not seen by the programs",
					m->label, instance, (unsigned long long)delta);
		else
			ebpf_event_init(&e, EBPF_EVENT_DROPS, EBPF_EVENT_WARNING, name,
					"%s: %s began: %llu lost in the last interval", m->label, name,
					(unsigned long long)delta);
	} else if (!delta && s->losing) {
		s->losing = false;
		if (untraced)
			ebpf_event_init(&e, EBPF_EVENT_UNTRACED, EBPF_EVENT_OKAY, name,
					"%s: block IO on %s is traced again: none untraced in the last interval",
					m->label, instance);
		else
			ebpf_event_init(&e, EBPF_EVENT_DROPS, EBPF_EVENT_OKAY, name,
					"%s: %s stopped: none lost in the last interval", m->label, name);
	} else {
		return;
	}
	ebpf_event_add_text(&e, "counter", name);
	ebpf_event_add_number(&e, "interval", delta);
	ebpf_event_add_number(&e, "total", value);
	module_event(m, &e);
}

static bool tallied(const struct module *m, const struct metric_id *id)
{
	for (const char *const *n = m->ops->cost_events; !id->type && n && *n; n++)
		if (!strcmp(*n, id->name))
			return true;
	return false;
}

static void all_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	struct module *m = ctx;

	m->sinks.out->counter(m->sinks.out->ctx, id, instance, value);
	loss_watch_counter(m, id, instance, value);
}

static void host_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t value)
{
	struct module *m = ctx;

	if (tallied(m, id))
		m->sinks.events += value;
	all_counter(ctx, id, instance, value);
}

static void all_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			  const struct hist_interval *h)
{
	struct module *m = ctx;

	m->sinks.out->histogram(m->sinks.out->ctx, id, instance, unit, h);
}

static void host_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			   const struct hist_interval *h)
{
	struct module *m = ctx;

	if (tallied(m, id))
		m->sinks.events += h->total_count;
	all_histogram(ctx, id, instance, unit, h);
}

static void all_gauge(void *ctx, const struct metric_id *id, const char *instance, double value)
{
	struct module *m = ctx;

	m->sinks.out->gauge(m->sinks.out->ctx, id, instance, value);
}

void module_sinks_init(struct module *m, const struct metric_sink *out)
{
	m->sinks = (struct module_sinks){
		.out = out,
		.host = { .ctx = m, .counter = host_counter, .histogram = host_histogram,
			  .gauge = out->gauge ? all_gauge : NULL },
		.all = { .ctx = m, .counter = all_counter, .histogram = all_histogram,
			 .gauge = out->gauge ? all_gauge : NULL },
	};
}
