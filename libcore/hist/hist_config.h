/* How a module presents its histograms: `Percentile`, `Bucket` and `BucketType`, as in
 * collectd's LatencyConfig (tail plugin). Shared by every module that has histograms. */
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
};

/* Defaults: percentiles 50, 95 and 99; no buckets. */
void hist_config_init(struct hist_config *c);

/* 1 if the option was one of ours and is valid, 0 if the key is not ours, -1 with err set
 * if it is ours and invalid. */
int hist_config_option(struct hist_config *c, const struct option *o, char *err, size_t errlen);

#endif
