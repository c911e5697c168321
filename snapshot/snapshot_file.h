/* The snapshot file: what the plugin publishes once per read for the SNMP subagent.
 *
 * The plugin replaces the file atomically (temporary file in the same directory, then
 * rename), so a reader sees a whole old or a whole new file, never a mix, and never waits
 * for collectd. The subagent only parses it. No collectd, libbpf or net-snmp header here:
 * both sides compile this file.
 *
 * Format, version 1: UTF-8 text, one record per line, fields separated by one TAB; a TAB,
 * newline or backslash inside a string field is written \t, \n, \\. Records:
 *
 *   collectd-ebpf-snapshot	1
 *   written	<unix time, microseconds>
 *   module	<label>	<state>	<discontinuity, unix microseconds>	<attach methods>	<last error>
 *   counter	<metric>	<instance>	<cumulative u64>
 *   gauge	<metric>	<instance>	<value of the moment, a decimal number>
 *   histogram	<metric>	<instance>	<unit>	<count>	<sum>	<interval count>	<mean>	<p50>	<p95>	<p99>
 *   bucket	<lower>	<upper>	<cumulative count>
 *   end
 *
 * gauge lines came with the self-metrics (map fill, attach methods, hit ratios); the plugin
 * and the subagent ship together, so they joined version 1 rather than bump it.
 * counter, gauge and histogram lines belong to the module line above them, bucket lines to the
 * histogram line above them. <state> is running, degraded, failed, unsupported or
 * disabled. <attach methods> is "point=method,point=method" ("" when nothing is attached).
 * Histogram <count> and <sum> are lifetime totals in <unit> ("nanoseconds" or "bytes");
 * <mean> and the percentiles describe the last read interval in <unit>, "-" when that
 * interval had no event. Buckets are the kernel's log2 slots: values in (lower, upper],
 * cumulative since the module started, "inf" as the last upper bound; only buckets with a
 * non-zero count are written. "end" is the last line: a file without it is incomplete.
 */
#ifndef EBPF_CORE_SNAPSHOT_FILE_H
#define EBPF_CORE_SNAPSHOT_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define SNAPSHOT_FORMAT_VERSION 1
#define SNAPSHOT_MAGIC "collectd-ebpf-snapshot"
#define SNAPSHOT_DEFAULT_PATH "/run/collectd-ebpf/snapshot"
#define SNAPSHOT_MAX_BUCKETS 64

struct snapshot_counter {
	char metric[64];
	char instance[128];
	uint64_t value;
};

struct snapshot_gauge {
	char metric[64];
	char instance[128];
	double value;
};

struct snapshot_bucket {
	double lower; /* exclusive */
	double upper; /* inclusive; INFINITY for the last slot */
	uint64_t count;
};

struct snapshot_histogram {
	char metric[64];
	char instance[128];
	char unit[16];           /* "nanoseconds" or "bytes" */
	uint64_t count, sum;     /* lifetime */
	uint64_t interval_count; /* events in the last read interval */
	double mean, p50, p95, p99; /* last interval, in unit; NAN without events */
	int nbuckets;
	struct snapshot_bucket buckets[SNAPSHOT_MAX_BUCKETS];
};

struct snapshot_module {
	char label[96];
	char state[16];
	char methods[256];
	char error[1024];
	int64_t discontinuity_us; /* wall clock: when its counters last started from zero */
	int ncounters, counters_cap;
	struct snapshot_counter *counters;
	int nhistograms, histograms_cap;
	struct snapshot_histogram *histograms;
	int ngauges, gauges_cap;
	struct snapshot_gauge *gauges;
};

struct snapshot {
	int64_t written_us;
	int nmodules;
	struct snapshot_module *modules;
};

/* Wall clock in microseconds, the unit of the file's times. */
int64_t snapshot_now_us(void);

/* Values: drops counters, gauges and histograms, keeps the allocations for the next read. */
void snapshot_module_clear_values(struct snapshot_module *sm);
/* Frees the counter, gauge and histogram arrays. */
void snapshot_module_release(struct snapshot_module *sm);
/* 0 or -ENOMEM. */
int snapshot_module_add_counter(struct snapshot_module *sm, const char *metric, const char *instance,
				uint64_t value);
/* 0 or -ENOMEM. */
int snapshot_module_add_gauge(struct snapshot_module *sm, const char *metric, const char *instance, double value);
/* A zeroed histogram with its names set, or NULL when out of memory. */
struct snapshot_histogram *snapshot_module_add_histogram(struct snapshot_module *sm, const char *metric,
							 const char *instance);

/* Writes the whole file to f. 0 or -errno. */
int snapshot_write_stream(FILE *f, const struct snapshot_module *const *modules, int nmodules,
			  int64_t written_us);
/* Atomically replaces path: a temporary file in the same directory, mode 0640, group gid
 * (unless gid is (gid_t)-1), renamed over path. 0, or -1 with the reason in err. */
int snapshot_write_file(const char *path, gid_t gid, const struct snapshot_module *const *modules,
			int nmodules, int64_t written_us, char *err, size_t errlen);

/* Bounds of bucket i of h, in h's unit: it holds values in (lower, upper], upper INFINITY
 * for the open last slot. Readers take bounds from here, never from a bucket's position:
 * the slot layout is the writer's business. */
void snapshot_bucket_bounds(const struct snapshot_histogram *h, int i, double *lower, double *upper);

/* Parses a whole file. 0, or -1 with "line N: what is wrong" in err (out is then empty). */
int snapshot_parse(FILE *f, struct snapshot *out, char *err, size_t errlen);
void snapshot_free(struct snapshot *s);

#endif
