#include "plugin/collectd_api.h"

#include "plugin/notifications.h"
#include "base/text_rule.h"

static int severity(enum ebpf_event_severity s)
{
	switch (s) {
	case EBPF_EVENT_OKAY: return NOTIF_OKAY;
	case EBPF_EVENT_WARNING: return NOTIF_WARNING;
	case EBPF_EVENT_FAILURE: return NOTIF_FAILURE;
	}
	return NOTIF_FAILURE;
}

void notify_collectd(const struct ebpf_event *e)
{
	notification_t n = { .severity = severity(e->severity), .time = cdtime() };

	sstrncpy(n.host, hostname_g, sizeof(n.host));
	sstrncpy(n.plugin, "ebpf", sizeof(n.plugin));
	sstrncpy(n.plugin_instance, e->module ? e->module : "", sizeof(n.plugin_instance));
	sstrncpy(n.type, ebpf_event_kind_name(e->kind), sizeof(n.type));
	/* The engine escaped the texts when it made the event (log_escape); the rule again here,
	 * where they leave for the exec and mail handlers, cut at a whole character. */
	text_clean(n.type_instance, sizeof(n.type_instance), e->subject, TEXT_SHOW);
	text_clean(n.message, sizeof(n.message), e->message, TEXT_SHOW);
	for (int i = 0; i < e->nfields; i++) {
		const struct ebpf_event_field *f = &e->fields[i];

		char text[sizeof(f->text)];

		if (f->is_number) {
			plugin_notification_meta_add_unsigned_int(&n, f->name, f->number);
		} else {
			text_clean(text, sizeof(text), f->text, TEXT_SHOW);
			plugin_notification_meta_add_string(&n, f->name, text);
		}
	}
	plugin_dispatch_notification(&n);
	plugin_notification_meta_free(n.meta);
}
