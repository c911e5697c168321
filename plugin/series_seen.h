/* The counter series a module has sent, so that one seen for the first time after the
 * module's first read gets a zero at the previous read's time: a DERIVE's first value yields
 * no rate, and a series born later (the first fsync error, a new disk or cgroup) started from
 * 0 at that read, so without the zero its first interval would never show as a rate.
 *
 * A set of 64-bit hashes of type and type instance (FNV-1a), growing by doubling: 8 bytes a
 * series, bounded by the module's own caps on its series. Two names with one hash (about
 * n^2 / 2^65 for n series) would only cost the second its zero. Not thread-safe: one set per
 * module, used by its read callback only. */
#ifndef EBPF_PLUGIN_SERIES_SEEN_H
#define EBPF_PLUGIN_SERIES_SEEN_H

#include <stdbool.h>
#include <stdint.h>

struct series_seen {
	uint64_t *slots; /* 0: empty */
	uint32_t cap, n;
};

/* Adds the series; true if it was not there before. False also when memory runs out (the
 * series then simply gets no zero). */
bool series_seen_add(struct series_seen *s, const char *type, const char *type_instance);
void series_seen_free(struct series_seen *s);

#endif
