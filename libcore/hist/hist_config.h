/* How a module presents its histograms: `Percentile`, `Bucket` and `BucketType`, as in
 * collectd's LatencyConfig (tail plugin), and how finely its kernel side records them:
 * `Precision`. Shared by every module that has histograms. */
#ifndef EBPF_CORE_HIST_CONFIG_H
#define EBPF_CORE_HIST_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "libcore/engine/options.h"

#define HIST_MAX_PERCENTILES 16
#define HIST_MAX_BUCKETS 32

struct hist_bucket {
	double lower; /* exclusive, in seconds (latency) or bytes (sizes) */
	double upper; /* inclusive; 0 means no upper bound */
};

struct hist_config {
	double percentiles[HIST_MAX_PERCENTILES];
	int npercentiles;
	bool percentiles_from_user; /* the first `Percentile` replaces the defaults */
	struct hist_bucket buckets[HIST_MAX_BUCKETS];
	int nbuckets;
	char bucket_type[64]; /* collectd type for bucket rates, "bucket" by default */
	unsigned int precision;  /* 2^precision sub-buckets per power of two (hist_slot.h) */
	bool precision_from_user;
};

/* Kernel memory a module's histogram rows may take per CPU before a precision the user did
 * not ask for is lowered (hist_config_precision). */
#define HIST_ROWS_BUDGET_BYTES (1024u * 1024u)

/* Defaults: percentiles 50, 95 and 99; no buckets; precision HIST_PRECISION_DEFAULT. */
void hist_config_init(struct hist_config *c);

/* 1 if the option was one of ours and is valid, 0 if the key is not ours, -1 with err set
 * if it is ours and invalid. */
int hist_config_option(struct hist_config *c, const struct option *o, char *err, size_t errlen);

/* The precision of a module with nrows histogram rows per CPU: the user's `Precision`, else
 * the highest up to the default whose rows fit in HIST_ROWS_BUDGET_BYTES (`Latency "all"`
 * of syscalls: 360 rows on x86_64 get precision 3). */
unsigned int hist_config_precision(const struct hist_config *c, unsigned int nrows);

#endif
