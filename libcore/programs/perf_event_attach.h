/* A user's SEC("perf_event") programs attached to their perf events: one event per online
 * CPU (/sys/devices/system/cpu/online; a system-wide event is per CPU: pid -1, cpu N),
 * each with the program attached, all closed by perf_event_links_free(). */
#ifndef EBPF_PROGRAMS_PERF_EVENT_ATTACH_H
#define EBPF_PROGRAMS_PERF_EVENT_ATTACH_H

#include <stddef.h>

#include "libcore/programs/perf_event_config.h"

struct bpf_object;
struct perf_event_links;

/* Opens events[i] on every online CPU and attaches the object's program events[i].program
 * to each. NULL with err on the first failure (nothing left open): the CPU that failed
 * and why; an event this machine does not have (no PMU, e.g. in a VM) says so and what
 * to count instead. */
struct perf_event_links *perf_event_links_attach(struct bpf_object *obj, const struct program_perf_event *events,
						 int nevents, char *err, size_t errlen);
/* Detaches and closes every event; NULL-safe. */
void perf_event_links_free(struct perf_event_links *l);

/* Makes libbpf give SEC("perf_event/...") programs (ebpf_exporter's sections that name their
 * event, perf_event_from_section()) the perf_event type: libbpf knows SEC("perf_event") only,
 * and opens the others as type unspec, which cannot load. Once per process, before objects
 * are opened; later calls do nothing. 0, or -1 with err. */
int perf_event_sections_register(char *err, size_t errlen);

/* The online CPUs from text like "0-3,5\n": out[] up to max, their count, or -1 if the
 * text is not such a list or has more than max. */
int perf_event_parse_cpu_list(const char *text, int *out, int max);

#endif
