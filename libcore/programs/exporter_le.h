/* ebpf_exporter's buckets of a histogram (exporter/histogram.go's keyer): which bucket values
 * of the key it reads, and the `le` it exposes each under, as the text its Prometheus client
 * writes. So that the Prometheus endpoint gives a program loaded from its YAML the very
 * `le` label values its dashboards select (doc/programs.md, "Names on the Prometheus
 * endpoint"). */
#ifndef EBPF_PROGRAMS_EXPORTER_LE_H
#define EBPF_PROGRAMS_EXPORTER_LE_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/programs/program_model.h"

/* The most buckets kept for one histogram: every exp2 and fixed config (65 at most), linear
 * ones up to bucket_max 255. */
#define EXPORTER_MAX_BUCKETS 256

struct exporter_bucket {
	uint64_t key; /* the bucket value in the key */
	double le;    /* its upper bound: keyer(key) */
};

/* The buckets of histogram view v of an ExporterConfig in increasing order: bucket_min to
 * bucket_max (exp2, exp2zero, linear) or bucket_keys (fixed), each with keyer(key) (exp2:
 * 2^key * multiplier; exp2zero: 0 for 0, else 2^(key-1) * multiplier; linear and fixed:
 * key * multiplier). Their count, or -1 when more than max. */
int exporter_buckets(const struct program_view *v, struct exporter_bucket *out, int max);

/* x as Go's strconv.FormatFloat(x, 'g', -1, 64) writes it (the shortest digits that read
 * back as x; exponent form below 1e-4 and from 1e6 on: "1e-06", "0.001024", "1.048576e+06"),
 * which is how ebpf_exporter's client writes a bucket's `le`. */
void exporter_float_text(double x, char *buf, size_t len);

#endif
