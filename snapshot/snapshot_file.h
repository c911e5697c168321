/* The snapshot file: what the plugin publishes once per read for the SNMP subagent.
 *
 * The plugin replaces the file atomically (temporary file in the same directory, then
 * rename), so a reader sees a whole old or a whole new file, never a mix, and never waits
 * for collectd. The subagent only parses it. No collectd, libbpf or net-snmp header here:
 * both sides compile this file.
 *
 * Format, version 3: UTF-8 text, one record per line, fields separated by one TAB; a TAB,
 * newline or backslash inside a string field is written \t, \n, \\, and each byte of what
 * else base/text_rule.h's rule refuses (controls, bidi controls, bytes that are not UTF-8)
 * as \\xHH, which a reader reads as the text \xHH. Records:
 *
 *   collectd-ebpf-snapshot	3
 *   written	<unix time, microseconds>
 *   module	<label>	<state>	<discontinuity, unix microseconds>	<attach methods>	<last error>
 *   counter	<metric>	<instance>	<cumulative u64>	[<name>=<value>]...
 *   gauge	<metric>	<instance>	<value of the moment, a decimal number>	[<name>=<value>]...
 *   histogram	<metric>	<instance>	<unit>	<precision>	<count>	<sum>	<interval count>	<mean>	<p50>	<p95>	<p99>	[<name>=<value>]...
 *   bucket	<slot>	<cumulative count>
 *   bound	<le>	<cumulative count>
 *   event	<run>	<seq>	<time, unix microseconds>	<kind>	<severity>	<module>	<subject>	<message>	[<name>=<value>]...
 *   end
 *
 * counter, gauge and histogram lines belong to the module line above them, bucket and bound
 * lines to the histogram line above them. <state> is running, degraded, failed, unsupported or
 * disabled (or configured: not started yet). <attach methods> is "point=method,point=method"
 * ("" when nothing is attached). Histogram <count> and <sum> are lifetime totals in <unit>
 * ("nanoseconds" or "bytes"); <mean> and the percentiles describe the last read interval in
 * <unit>, "-" when that interval had no event. Buckets are the kernel's slots as the engine
 * has them: <slot> is the slot's index in the layout of <precision> (bpf/include/hist_slot.h;
 * hist_slot_lower_bound() and hist_slot_upper_bound() give its bounds (lower, upper]), in
 * increasing order, with its count cumulative since the module started; only slots with a
 * non-zero count are written. Bound lines (after the bucket lines) are the histogram's own
 * buckets where its source has some (a program from ebpf_exporter's YAML): every one, in
 * increasing order, <le> its upper bound as that source writes it (a decimal number, such as
 * "1e-06" or "0.001024", in the unit of the source, not <unit>) and the count of the events at
 * or below it since the module started; a reader that exposes them gives them instead of
 * bounds of its own. "end" is the last line: a file without it is incomplete.
 *
 * Event lines (after the modules) are the plugin's last SNAPSHOT_MAX_EVENTS events
 * (libcore/engine/events.h), oldest first, so that the subagent, which needs no BPF, sends
 * each as an SNMP notification once: <run> is the writer's start (unix microseconds; a new
 * collectd is a new run), <seq> counts the run's events from 1. <kind> is oom_kill,
 * module_state, drops or untraced, <severity> okay, warning or failure, <subject> what in
 * the module ("summary": how many the rate limit held back), then up to
 * SNAPSHOT_EVENT_MAX_FIELDS fields. A reader rejects more event lines than that bound.
 *
 * Labels (version 3): a counter, gauge or histogram line ends with its series' labels, what
 * its <instance> joins into one text, each apart: up to SNAPSHOT_MAX_LABELS name=value
 * fields, split at the first '='. A name is a Prometheus label name ([A-Za-z_][A-Za-z0-9_]*)
 * given once per record: the view's own label names (syscall, disk, op, signal, port, a
 * program's label names), "cgroup" for a per-cgroup series (the group before the '/' of
 * <instance>, "other" for folded cgroups), "command" for a per-command one (By "command": the
 * same group, a command's name), "cpu" for a per-CPU series, and "kind" for what
 * else the instance says (a row's name such as "out_of_range", tcp's "connect", a program
 * histogram's "count" and "sum" counters). A series that beyond its view's cap went into
 * `other` has each of its view's labels "other". The module is the module line's. A name
 * after '@' is a note for the readers, not a label: "@family" (the name a Prometheus reader
 * gives the value's family, instead of one of its own), "@help" (that family's help text);
 * readers skip the notes they do not know, so that notes can be added without a version.
 * A value is a string field as any (escapes above), shorter than SNAPSHOT_LABEL_VALUE_MAX.
 *
 * Every reader refuses a file of another version with a message that names both versions:
 * the plugin and its readers (subagent, terminal view, Prometheus endpoint) come from one
 * release.
 *
 * Version 1 wrote each bucket as its double bounds, which a reader turned back into a slot
 * with log2: with log-linear slots that no longer works, hence version 2. Version 2 had no
 * labels: the Prometheus endpoint could not tell a syscall from a disk in an instance, hence
 * version 3.
 */
#ifndef EBPF_CORE_SNAPSHOT_FILE_H
#define EBPF_CORE_SNAPSHOT_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "bpf/include/hist_slot.h"

#define SNAPSHOT_FORMAT_VERSION 3
#define SNAPSHOT_MAGIC "collectd-ebpf-snapshot"
#define SNAPSHOT_DEFAULT_PATH "/run/collectd-ebpf/snapshot"

/* A module's state: the values are the MIB's ebpfModuleState numbers, and the one table of
 * names is snapshot_state_name(). */
enum snapshot_state {
	SNAPSHOT_STATE_RUNNING = 1,
	SNAPSHOT_STATE_DEGRADED,
	SNAPSHOT_STATE_FAILED,
	SNAPSHOT_STATE_UNSUPPORTED,
	SNAPSHOT_STATE_DISABLED,
	SNAPSHOT_STATE_CONFIGURED, /* not started: the MIB's unknown(6) */
};

enum snapshot_unit { SNAPSHOT_UNIT_NANOSECONDS, SNAPSHOT_UNIT_BYTES };

/* "running", ..., "configured"; "nanoseconds", "bytes". */
const char *snapshot_state_name(enum snapshot_state s);
const char *snapshot_unit_name(enum snapshot_unit u);

/* A record's labels: n "name\0value\0" pairs from byte `at` of its module's label text
 * (snapshot_labels()). */
struct snapshot_labels {
	uint32_t at;
	uint16_t n;
};
#define SNAPSHOT_MAX_LABELS 16
#define SNAPSHOT_LABEL_NAME_MAX 64
#define SNAPSHOT_LABEL_VALUE_MAX 256

struct snapshot_counter {
	char metric[64];
	char instance[128];
	uint64_t value;
	struct snapshot_labels labels;
};

struct snapshot_gauge {
	char metric[64];
	char instance[128];
	double value;
	struct snapshot_labels labels;
};

struct snapshot_bucket {
	unsigned int slot; /* in the layout of its histogram's precision */
	uint64_t count;    /* cumulative */
};

/* A histogram's own bucket (a bound line): its `le` text and cumulative count. */
#define SNAPSHOT_BOUND_TEXT 32
struct snapshot_bound {
	char le[SNAPSHOT_BOUND_TEXT];
	uint64_t count;
};

struct snapshot_histogram {
	char metric[64];
	char instance[128];
	enum snapshot_unit unit;
	unsigned int precision;  /* the slot layout, hist_slot.h */
	uint64_t count, sum;     /* lifetime */
	uint64_t interval_count; /* events in the last read interval */
	double mean, p50, p95, p99; /* last interval, in unit; NAN without events */
	int first_bucket, nbuckets; /* in the module's buckets, see snapshot_buckets() */
	int first_bound, nbounds;   /* in the module's bounds, see snapshot_bounds() */
	struct snapshot_labels labels;
};

struct snapshot_module {
	char label[96];
	enum snapshot_state state;
	char methods[256];
	bool methods_set; /* methods were formatted (they do not change once a module started) */
	char error[1024];
	int64_t discontinuity_us; /* wall clock: when its counters last started from zero */
	int ncounters, counters_cap;
	struct snapshot_counter *counters;
	int nhistograms, histograms_cap;
	struct snapshot_histogram *histograms;
	int ngauges, gauges_cap;
	struct snapshot_gauge *gauges;
	int nbuckets, buckets_cap; /* of all its histograms, each histogram's in a run */
	struct snapshot_bucket *buckets;
	int nbounds, bounds_cap; /* of all its histograms, each histogram's in a run */
	struct snapshot_bound *bounds;
	/* The records' labels, "name\0value\0" pairs; from label_at on, those of the next
	 * record added (snapshot_module_label()). */
	char *label_text;
	uint32_t label_len, label_cap, label_at;
	uint16_t label_n;
	/* Writer only, not in the file: the label a group before '/' is recorded under,
	 * "command" for a module with By "command"; NULL: "cgroup". */
	const char *group_label;
};

#define SNAPSHOT_MAX_EVENTS 64
#define SNAPSHOT_EVENT_MAX_FIELDS 8

struct snapshot_event_field {
	char name[32];
	char value[256];
};

struct snapshot_event {
	uint64_t run, seq;
	int64_t time_us;
	char kind[16], severity[16];
	char module[96], subject[64], message[256];
	int nfields;
	struct snapshot_event_field fields[SNAPSHOT_EVENT_MAX_FIELDS];
};

/* The value of field `name` of e, NULL without it. */
const char *snapshot_event_field(const struct snapshot_event *e, const char *name);

struct snapshot {
	int64_t written_us;
	int nmodules;
	struct snapshot_module *modules;
	int nevents; /* at most SNAPSHOT_MAX_EVENTS, oldest first */
	struct snapshot_event *events;
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
/* A label of the next counter, gauge or histogram added: name a Prometheus label name
 * ([A-Za-z_][A-Za-z0-9_]*, shorter than SNAPSHOT_LABEL_NAME_MAX) or such a name after
 * '@' (a note for the readers, not a label), not yet given to that record, and at most
 * SNAPSHOT_MAX_LABELS of them; value shorter than SNAPSHOT_LABEL_VALUE_MAX. 0, -EINVAL
 * (and nothing added) or -ENOMEM. */
int snapshot_module_label(struct snapshot_module *sm, const char *name, const char *value);
/* Whether name is such a name. */
bool snapshot_label_name_ok(const char *name);
/* The labels l of one of sm's records: up to max of them into names[] and values[]; their
 * count. */
int snapshot_labels(const struct snapshot_module *sm, const struct snapshot_labels *l, const char **names,
		    const char **values, int max);
/* The value of label `name` of l, NULL without it. */
const char *snapshot_label(const struct snapshot_module *sm, const struct snapshot_labels *l, const char *name);
/* A zeroed histogram with its names set, or NULL when out of memory. */
struct snapshot_histogram *snapshot_module_add_histogram(struct snapshot_module *sm, const char *metric,
							 const char *instance);
/* A bucket of the last histogram added: slots in increasing order. 0 or -ENOMEM. */
int snapshot_module_add_bucket(struct snapshot_module *sm, unsigned int slot, uint64_t count);
/* The buckets of h, one of sm's histograms: h->nbuckets of them. */
const struct snapshot_bucket *snapshot_buckets(const struct snapshot_module *sm, const struct snapshot_histogram *h);

/* A bound of the last histogram added: `le` (a decimal number shorter than
 * SNAPSHOT_BOUND_TEXT) above the one before. 0, -EINVAL or -ENOMEM. */
int snapshot_module_add_bound(struct snapshot_module *sm, const char *le, uint64_t count);
/* The bounds of h, one of sm's histograms: h->nbounds of them. */
const struct snapshot_bound *snapshot_bounds(const struct snapshot_module *sm, const struct snapshot_histogram *h);

/* Writes the whole file to f. 0 or -errno. */
int snapshot_write_stream(FILE *f, const struct snapshot_module *const *modules, int nmodules,
			  int64_t written_us);
/* The same with the event lines after the modules: nevents of them, oldest first, of which
 * at most SNAPSHOT_MAX_EVENTS (the newest) are written. */
int snapshot_write_stream_events(FILE *f, const struct snapshot_module *const *modules, int nmodules,
				 const struct snapshot_event *events, int nevents, int64_t written_us);
/* Atomically replaces name in the directory dirfd: a temporary file there (O_EXCL,
 * O_NOFOLLOW), mode 0640, group gid (unless gid is (gid_t)-1), renamed over name; the
 * modules, then the events (NULL, 0: none). 0, or -1 with the reason in err. */
int snapshot_write_file_at(int dirfd, const char *name, gid_t gid, const struct snapshot_module *const *modules,
			   int nmodules, const struct snapshot_event *events, int nevents, int64_t written_us,
			   char *err, size_t errlen);
/* The same for a path (its directory opened by name), without events. */
int snapshot_write_file(const char *path, gid_t gid, const struct snapshot_module *const *modules,
			int nmodules, int64_t written_us, char *err, size_t errlen);

/* Bounds of bucket b of h (snapshot_buckets()), in h's unit: it holds values in
 * (lower, upper], upper INFINITY for the open last slot. Readers take bounds from here,
 * never from a bucket's position: the slot layout is the writer's business. */
void snapshot_bucket_bounds(const struct snapshot_histogram *h, const struct snapshot_bucket *b, double *lower,
			    double *upper);

/* What a reader takes from a file, whatever it holds: the plugin's files are a few KiB
 * (the soak's whole MIB, every module and a users' program: 13,590 rows at most).
 * Counts bound the memory as bytes bound the time: a parsed snapshot holds at most
 * SNAPSHOT_MAX_MODULES modules and SNAPSHOT_MAX_ROWS rows (lines after the module lines:
 * counters, gauges, histograms, buckets, and any record a later version adds), about
 * 64 MiB at most, where 16 MiB of one-counter module lines once took 2.7 GB. */
#define SNAPSHOT_MAX_BYTES (16u << 20)
#define SNAPSHOT_MAX_MODULES 256
#define SNAPSHOT_MAX_ROWS 100000

/* Opens a snapshot file to parse, as every reader must: O_NONBLOCK (a FIFO at the path
 * does not hang the reader), then on the opened descriptor a regular file (not /dev/zero,
 * not a FIFO) of at most SNAPSHOT_MAX_BYTES. Links are followed (the plugin never makes
 * one; an administrator may). The stream (st: its fstat), or NULL with why and errno (the
 * open's, or EINVAL/EFBIG for a file that is not one). */
FILE *snapshot_open_file(const char *path, struct stat *st, char *why, size_t len);

/* Parses a whole file, at most SNAPSHOT_MAX_BYTES, SNAPSHOT_MAX_MODULES modules and
 * SNAPSHOT_MAX_ROWS rows. 0, or -1 with "line N: what is wrong" in err (out is then
 * empty). */
int snapshot_parse(FILE *f, struct snapshot *out, char *err, size_t errlen);
void snapshot_free(struct snapshot *s);

#endif
