/* How finely a module's kernel side records its histograms: `Precision`, a common option
 * of every module that has histograms. It sets the BPF layout (hist_row.h), so it is the
 * core's. How a front-end presents the histograms (collectd's `Percentile`, `Bucket`,
 * `BucketType`) is the front-end's: plugin/presentation.h. */
#ifndef EBPF_CORE_HIST_CONFIG_H
#define EBPF_CORE_HIST_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/options.h"

#define HIST_PRECISION_KEY "Precision"

struct hist_config {
	unsigned int precision;  /* 2^precision sub-buckets per power of two (hist_slot.h) */
	bool precision_from_user;
};

/* Kernel memory a module's histogram rows may take before a precision the user did not ask
 * for is lowered (hist_config_precision). The rows are shared by all CPUs (map_layout.h), so
 * this is their whole size; KernelMemoryLimit (memory_plan.h) may lower it further. */
#define HIST_ROWS_BUDGET_BYTES (1024u * 1024u)

/* Default: precision HIST_PRECISION_DEFAULT, not from the user. */
void hist_config_init(struct hist_config *c);

/* 1 if the option was one of ours (Precision) and is valid, 0 if the key is not ours, -1
 * with err set if it is ours and invalid. */
int hist_config_option(struct hist_config *c, const struct option *o, char *err, size_t errlen);

/* The precision of a module with nrows histogram rows: the user's `Precision`, else
 * the highest up to the default whose rows fit in HIST_ROWS_BUDGET_BYTES (`Latency "all"`
 * of syscalls: 360 rows on x86_64 get precision 3). */
unsigned int hist_config_precision(const struct hist_config *c, unsigned int nrows);
/* The same for rows that should be no finer than `ceiling` unless the user asked (a
 * module's per-cgroup rows, at most as fine as its host-wide ones): the user's precision,
 * else the highest up to the lower of c's and ceiling whose rows fit the budget. */
unsigned int hist_config_precision_at_most(const struct hist_config *c, unsigned int ceiling, unsigned int nrows);
/* Option o (Precision, or a key of the same meaning: CgroupPrecision) into c: 1, or -1
 * with err naming o's key, its range and an example. */
int hist_config_set_precision(struct hist_config *c, const struct option *o, char *err, size_t errlen);

#endif
