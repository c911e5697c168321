/* libcore's events (libcore/engine/events.h) as collectd notifications. */
#ifndef EBPF_PLUGIN_NOTIFICATIONS_H
#define EBPF_PLUGIN_NOTIFICATIONS_H

#include "libcore/engine/events.h"

/* The handler for ebpf_event_set_handler(): plugin "ebpf", plugin_instance the module,
 * type the event's kind, type_instance its subject, every field a meta datum. */
void notify_collectd(const struct ebpf_event *e);

#endif
