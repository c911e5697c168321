/* The value vocabulary: what a read hands the front-ends (struct metric_id, its labels and
 * a histogram's own buckets) and where it hands them (struct metric_sink). Below read/ and
 * engine/, which both speak it, as do programs/ and every front-end; a value's kind (counter,
 * histogram, gauge) is the sink's callback, a histogram's unit hist/'s enum hist_unit. */
#ifndef EBPF_CORE_METRIC_H
#define EBPF_CORE_METRIC_H

#include <stdint.h>

#include "libcore/hist/hist.h"

/* What a value is, as a read hands it to the front-ends, which name it from this. */
struct metric_id {
	/* The module's own vocabulary ("calls", "errors", "latency"), which each front-end maps
	 * to its names (the plugin: base/value_naming.c); for a user's program, the map of a
	 * counter or gauge ("sync_calls") and the Type of a histogram. The SNMP tables' name. */
	const char *name;
	/* A user's program's collectd type (`Type "derive"`, a histogram's `Type "latency"`):
	 * the instance is then the whole type instance. NULL for a module's own values. */
	const char *type;
	/* A user's program's map, NULL for a module's own values: whose <Histogram>
	 * presentation (Percentile, Bucket) applies to a histogram. */
	const char *map;
	/* The labels of this series when its reader knows them (a view's labels, its group,
	 * its CPU), NULL otherwise: then the instance is all there is (front-ends that keep
	 * labels apart, the snapshot, take them from here). */
	const struct metric_labels *labels;
	/* What the program's config names the value for readers that name it as its source
	 * does (a program from ebpf_exporter's YAML: the Prometheus endpoint), NULL otherwise:
	 * its family ("ebpf_exporter_<name>"), its help text and, for a histogram, its own
	 * buckets over the engine's slots (nbounds of them, none when they cannot be told apart
	 * in the slots). */
	const char *family;
	const char *help;
	const struct metric_bound *bounds;
	int nbounds;
};

/* A histogram's own bucket: its upper bound as its source writes it (`le`), and the last
 * engine slot it holds: the bucket's cumulative count is that of the slots up to `slot`. */
#define METRIC_BOUND_TEXT 32
struct metric_bound {
	unsigned int slot;
	char le[METRIC_BOUND_TEXT];
};

/* A series' labels by name: names[i] has the text values[i] (as made safe in the
 * instance); group: the group (a cgroup) of a per-cgroup series, NULL without one. */
#define METRIC_MAX_LABELS 10
struct metric_labels {
	const char *group;
	int n;
	const char *names[METRIC_MAX_LABELS];
	const char *values[METRIC_MAX_LABELS];
};

/* A module's own value: only its name. */
#define METRIC(name_) (&(const struct metric_id){ .name = (name_) })

/* Where a module's read goes. */
struct metric_sink {
	void *ctx;
	/* A cumulative count since the module started. */
	void (*counter)(void *ctx, const struct metric_id *m, const char *instance, uint64_t value);
	/* One histogram series: its last interval and lifetime totals. */
	void (*histogram)(void *ctx, const struct metric_id *m, const char *instance, enum hist_unit unit,
			  const struct hist_interval *h);
	/* A value of the moment or of the last interval ("hit_ratio" in percent, a 0/1 flag
	 * such as "approximation"). May be NULL: modules then skip their gauges. */
	void (*gauge)(void *ctx, const struct metric_id *m, const char *instance, double value);
};

#endif
