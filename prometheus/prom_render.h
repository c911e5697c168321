/* The snapshot (snapshot/snapshot_file.h) as a Prometheus exposition: text format 0.0.4 or
 * OpenMetrics 1.0.0. Pure: no HTTP, no files, so that it is unit-tested
 * (tests/prometheus/test_prom_render.c).
 *
 * Names: collectd_ebpf_<module>_<metric>, with the base unit (_seconds, _bytes) of what
 * has one and _total for counters; every record's labels (format 3) as labels, and
 * "module". Histograms as cumulative _bucket{le} + _sum + _count from the kernel's slots:
 * every le is a real slot upper bound (hist_slot.h) in base units. A record with a "@family"
 * note (a program of ebpf_exporter's YAML) is written under that name as it is (a counter
 * without a _total added) and a histogram with bound lines with those buckets: ebpf_exporter's
 * names, doc/programs.md. */
#ifndef EBPF_PROMETHEUS_PROM_RENDER_H
#define EBPF_PROMETHEUS_PROM_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot/snapshot_file.h"

enum prom_format { PROM_TEXT, PROM_OPENMETRICS };

/* Which slot upper bounds become `le` buckets: every power of 4 (1, 4, 16 ... 2^38 ns or
 * bytes: 20 buckets, the default), every power of 2 (39), or every slot of the histogram's
 * own precision (up to 1089: quantiles as exact as the plugin's own). */
enum prom_buckets { PROM_BUCKETS_POW4, PROM_BUCKETS_POW2, PROM_BUCKETS_ALL };

/* What the endpoint knows besides the snapshot. */
struct prom_status {
	int up;            /* 1: s was read; 0: it was not (s is NULL), `error` says why */
	const char *error; /* the last read's error, "" when up */
	uint64_t scrapes;  /* served so far, this one included */
	uint64_t read_errors;
};

/* A growing text. */
struct prom_text {
	char *buf;
	size_t len, cap;
	int oom;
};

void prom_text_free(struct prom_text *t);

/* Renders s (NULL when it could not be read) with the endpoint's own metrics into out
 * (appended). The number of series left out (a label set twice in a family, a family name
 * of two types); -1 when out of memory. */
int prom_render(const struct snapshot *s, const struct prom_status *st, enum prom_format format,
		enum prom_buckets buckets, struct prom_text *out);

/* "text/plain; version=0.0.4; charset=utf-8" or the OpenMetrics one. */
const char *prom_content_type(enum prom_format format);
/* The format an Accept header asks for (NULL: none): OpenMetrics when it names
 * application/openmetrics-text, else text. */
enum prom_format prom_format_for(const char *accept);

/* "pow4", "pow2", "all" into *out; 0 or -1. */
int prom_buckets_parse(const char *s, enum prom_buckets *out);

#endif
