/* The perf event that runs a SEC("perf_event") program of a user's object: what
 * `<PerfEvent "program">` in a <Program> block says, or an entry of ebpf_exporter's
 * `perf_events` list (exporter_config.h). The loader opens one such event per online CPU
 * (perf_event_attach.h) and attaches the program to each.
 *
 *   <PerfEvent "on_sample">
 *     Type "software"            hardware, software, hw_cache, or the PMU's type number
 *     Config "cpu-clock"         the event's name for that type, or its number
 *     SampleFrequency 99         samples a second on each CPU; or SamplePeriod N: every Nth event
 *   </PerfEvent>
 */
#ifndef EBPF_PROGRAMS_PERF_EVENT_CONFIG_H
#define EBPF_PROGRAMS_PERF_EVENT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/options.h"

#define PERF_EVENT_PROGRAM_MAX 64
#define PERF_EVENT_DESCRIPTION_MAX 96
#define PERF_EVENT_SECTION_MAX 128
#define PERF_EVENT_SECTION_PREFIX "perf_event/"

struct program_perf_event {
	char program[PERF_EVENT_PROGRAM_MAX];
	uint32_t type;                       /* perf_event_attr.type */
	uint64_t config;                     /* perf_event_attr.config */
	uint64_t sample;                     /* the period, or with `frequency` samples a second */
	bool frequency;
	char description[PERF_EVENT_DESCRIPTION_MAX]; /* "software event cpu-clock", for messages */
	char section[PERF_EVENT_SECTION_MAX]; /* the program's SEC() when the event is from it, else "" */
};

/* A `<PerfEvent "program">` block (its node). 0, or -1 with err naming the option and the
 * valid values. */
int perf_event_parse_block(const struct conf_node *n, struct program_perf_event *e, char *err, size_t errlen);
/* The same from numbers (ebpf_exporter's type, name and sample_period/sample_frequency, one
 * of them 0): checks them as the block's. 0, or -1 with err. */
int perf_event_set(struct program_perf_event *e, const char *program, uint32_t type, uint64_t config,
		   uint64_t period, uint64_t frequency, char *err, size_t errlen);

/* The event a section names, ebpf_exporter's way: SEC("perf_event/type=1,config=0,frequency=99")
 * (type and config: perf_event_attr's, decimal or 0x hex; frequency=N samples a second on each
 * CPU, or period=N: every Nth event). 0, or -1 with err naming the item and the valid ones. */
int perf_event_from_section(struct program_perf_event *e, const char *program, const char *section, char *err,
			    size_t errlen);

#endif
