/* How the collectd plugin presents a module's or a program's histograms: `Percentile`,
 * `Bucket` and `BucketType`, as in collectd's LatencyConfig (tail plugin). The core records
 * the histograms and takes `Precision`, which sets the kernel's layout
 * (libcore/hist/hist_config.h); which percentiles and bucket rates to send is the
 * front-end's business. No collectd header: tests/plugin/test_presentation.c tests it,
 * tests/fuzz/fuzz_config.c fuzzes it. */
#ifndef EBPF_PLUGIN_PRESENTATION_H
#define EBPF_PLUGIN_PRESENTATION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/options.h"

#define PRESENTATION_MAX_PERCENTILES 16
#define PRESENTATION_MAX_BUCKETS 32

struct presentation_bucket {
	double lower; /* exclusive, in seconds (latency) or bytes (sizes) */
	double upper; /* inclusive; 0 means no upper bound */
};

struct presentation {
	double percentiles[PRESENTATION_MAX_PERCENTILES];
	int npercentiles;
	bool percentiles_from_user; /* the first `Percentile` replaces the defaults */
	struct presentation_bucket buckets[PRESENTATION_MAX_BUCKETS];
	int nbuckets;
	char bucket_type[64]; /* collectd type for bucket rates, "bucket" by default */
};

/* "Percentile", "Bucket", "BucketType": the keys this file takes in a <Module> or in a
 * <Program>'s <Histogram>. NULL-terminated, in the order messages list them. */
extern const char *const presentation_keys[];

/* Defaults: percentiles 50, 95 and 99; no buckets; BucketType "bucket". */
void presentation_init(struct presentation *p);

/* 1 if the option was one of ours and is valid, 0 if the key is not ours, -1 with err set
 * if it is ours and invalid. */
int presentation_option(struct presentation *p, const struct option *o, char *err, size_t errlen);

/* The core's refusal of an unknown key in a block where ours are valid too (a <Module>, a
 * <Program>'s <Histogram>) lists ours as well: they are histogram settings, listed just
 * before the core's (Precision). A block without histograms (its list has no Precision)
 * and any other message are left as they are. */
void presentation_add_keys(char *err, size_t errlen);

/* One line of a <Module> block as the plugin takes it: a presentation key into p, any
 * other to the core (module_set_option), whose refusal of a key of neither gets our keys
 * added (presentation_add_keys). 0, or -1 with the message. */
struct module;
int presentation_module_option(struct presentation *p, struct module *m, const struct option *o, char *err,
			       size_t errlen);

/* After the block's last option: a BucketType without any Bucket is refused (it would
 * have no effect). 0, or -1 with the message. Whether the type is in types.db is for the
 * plugin to check once collectd has read it. */
int presentation_check(const struct presentation *p, char *err, size_t errlen);

/* The sets of a module (one, `all`) or of a program: each <Histogram> that gives any of
 * the keys has its own, named by its map; one that gives none has the first histogram's
 * (`all`, the defaults when the first gives none either). */
struct map_presentation {
	char *map;
	struct presentation p;
};
struct presentation_set {
	struct presentation all;
	struct map_presentation *maps;
	int nmaps;
};
void presentation_set_init(struct presentation_set *set);
/* The set of a histogram of that map (NULL: a module's own histogram). */
const struct presentation *presentation_for(const struct presentation_set *set, const char *map);
void presentation_set_free(struct presentation_set *set);

/* <Program "name"> as the core takes it: out becomes a copy of the block whose
 * <Histogram> blocks lack the presentation keys, which go to set, one per histogram that
 * gives them (a read's histograms say their map: struct metric_id). Any other key is the
 * core's to take or refuse (then presentation_add_keys() completes its message). out shares
 * the block's lines: free it with presentation_program_free() before the block, and set
 * with presentation_set_free(). 0, or -1 with err naming the program, the histogram and the
 * fix (out and set are then empty). */
int presentation_take_program(const struct conf_node *block, struct conf_node *out, struct presentation_set *set,
			      char *err, size_t errlen);
void presentation_program_free(struct conf_node *out);

#endif
