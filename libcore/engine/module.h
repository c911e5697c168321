/* The module table: each module is a name, a lifecycle and a snapshot.
 *
 * A front-end (the collectd plugin, tests, bench) creates a module by name, feeds it
 * options, starts it (open -> load -> attach), reads it every interval into a
 * metric_sink, and frees it. A module that fails to start keeps its state and error
 * for the front-end to report; the others are unaffected.
 */
#ifndef EBPF_CORE_MODULE_H
#define EBPF_CORE_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/hist/hist.h"
#include "libcore/hist/hist_config.h"
#include "libcore/engine/options.h"
#include "libcore/engine/probe.h"

enum module_state {
	MODULE_CONFIGURED,  /* not started yet */
	MODULE_RUNNING,     /* every probe point on its first-choice method */
	MODULE_DEGRADED,    /* running, on a fallback method or with a failing read */
	MODULE_FAILED,      /* could not start, see last_error */
	MODULE_UNSUPPORTED, /* this kernel has no way to run it */
};

const char *module_state_name(enum module_state s);

/* Where a module's read goes. `metric` is the module's own vocabulary ("calls",
 * "errors", "latency"); the front-end maps it to its types. */
struct metric_sink {
	void *ctx;
	/* A cumulative count since the module started. */
	void (*counter)(void *ctx, const char *metric, const char *instance, uint64_t value);
	/* One histogram series: its last interval and lifetime totals. */
	void (*histogram)(void *ctx, const char *metric, const char *instance, enum hist_unit unit,
			  const struct hist_interval *h);
	/* A value of the moment or of the last interval ("hit_ratio" in percent, a 0/1 flag
	 * such as "approximation"). May be NULL: modules then skip their gauges. */
	void (*gauge)(void *ctx, const char *metric, const char *instance, double value);
};

struct module;

struct module_ops {
	const char *name;
	const char *description;
	bool in_default_set;              /* enabled by a bare `LoadPlugin ebpf` */
	const char *const *option_names;  /* the module's own keys, NULL-terminated */
	int (*create)(struct module *m);  /* allocate m->priv with defaults */
	int (*set_option)(struct module *m, const struct option *o, char *err, size_t errlen); /* 1 ok, 0 unknown, -1 bad */
	/* Options that are valid one by one but not together (Ports without PortBreakdown):
	 * checked once the module's block is read, so they are configuration errors that stop
	 * collectd like any bad value. May be NULL. 0, or -1 with the message. */
	int (*check_config)(struct module *m, char *err, size_t errlen);
	int (*start)(struct module *m, char *err, size_t errlen);
	int (*read)(struct module *m, const struct metric_sink *sink);
	void (*destroy)(struct module *m); /* detach, close, free m->priv; safe in any state */
};

struct module {
	const struct module_ops *ops;
	void *priv;
	/* "<module>" or "<module>-<instance>": collectd's plugin_instance and the log prefix. */
	char label[96];
	enum module_state state;
	char last_error[1024];
	uint32_t filter_tgid;       /* 0: whole system; tests count only their own process */
	struct hist_config hist;    /* Percentile, Bucket, BucketType */
	struct probe_set probes;    /* the module fills points; AttachOrder lands in order */
};

extern const struct module_ops *const module_table[];

const struct module_ops *module_find(const char *name);
/* "syscalls, ..." for error messages. */
void module_names(char *buf, size_t len);

/* instance: NULL or "" for the module's only instance, else a name that sets it apart. */
struct module *module_new(const struct module_ops *ops, const char *instance);
/* Common keys (AttachOrder, Percentile, Bucket, BucketType) and then the module's own;
 * an unknown key is an error listing the valid ones. 0 or -1. */
int module_set_option(struct module *m, const struct option *o, char *err, size_t errlen);
/* After the last option: the options' consistency (module_ops.check_config). 0 or -1 with
 * a message that names the options and the fix. module_start() checks it too. */
int module_check_config(struct module *m, char *err, size_t errlen);
/* Starts the module and sets state and last_error; logs the outcome once. 0 or -1. */
int module_start(struct module *m);
int module_read(struct module *m, const struct metric_sink *sink);
void module_free(struct module *m);

#endif
