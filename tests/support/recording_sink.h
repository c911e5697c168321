/* A metric sink that records what a module sends, for the tests and benches: one read
 * (recording_read) keeps every counter, gauge and histogram in the order sent, and the
 * caller then asks for the values it checks. One recorder instead of a sink per test file,
 * so that each test says only what it expects.
 *
 * A recorded histogram is a copy of the interval; its total_slots (valid only during the
 * module's call) is NULL. */
#ifndef EBPF_TESTS_RECORDING_SINK_H
#define EBPF_TESTS_RECORDING_SINK_H

#include "libcore/engine/module.h"
#include "libcore/hist/hist.h"

#include <stdbool.h>
#include <stdint.h>

enum recorded_kind { RECORDED_COUNTER, RECORDED_GAUGE, RECORDED_HISTOGRAM };

struct recorded_value {
	enum recorded_kind kind;
	char metric[64];            /* struct metric_id's name */
	char type[64];              /* its type: a user's program's collectd type, "" for a module's */
	char instance[128];
	uint64_t counter;           /* RECORDED_COUNTER */
	double gauge;               /* RECORDED_GAUGE */
	enum hist_unit unit;        /* RECORDED_HISTOGRAM */
	struct hist_interval *hist; /* RECORDED_HISTOGRAM */
};

struct recording {
	struct recorded_value *values;
	int n, cap;
	bool failed; /* out of memory: some values were not kept */
};

/* The sink that appends to r (a zeroed struct recording is an empty one). */
struct metric_sink recording_sink(struct recording *r);
/* Empties r (keeping its memory) and records one module_read(m). Returns module_read's. */
int recording_read(struct recording *r, struct module *m);
void recording_clear(struct recording *r);
void recording_free(struct recording *r);

/* The last value of that kind sent as metric with instance (NULL: any instance), or NULL. */
const struct recorded_value *recorded(const struct recording *r, enum recorded_kind kind, const char *metric,
				      const char *instance);
/* The last counter sent as metric with instance (NULL: any), 0 when none was. */
uint64_t recorded_counter(const struct recording *r, const char *metric, const char *instance);
/* The last gauge sent as metric with instance (NULL: any): true with it in *value, or false
 * with *value untouched. */
bool recorded_gauge(const struct recording *r, const char *metric, const char *instance, double *value);
/* The last histogram sent as metric with instance (NULL: any) in unit, or NULL. */
const struct hist_interval *recorded_histogram(const struct recording *r, const char *metric, const char *instance,
					       enum hist_unit unit);
/* How many values of that kind were sent as metric (NULL: any) and instance (NULL: any). */
int recorded_count(const struct recording *r, enum recorded_kind kind, const char *metric, const char *instance);

#endif
