/* Reading a map as series (series_view.h), the one reader of keyed maps: every module view
 * whose rows or keys are instances, and every block of a user's program.
 *
 * Each read walks every entry of the map once (map_read.h: batches where the kernel has
 * them), never clears it, adds each entry into its series and sends the series through the
 * metric sink. A key's series is remembered by the key's bytes (key_cache.h), so that its
 * labels are decoded once in KEY_CACHE_REFRESH reads, not at every read (unless the view's
 * labels are fresh).
 *
 * Bounded: at most max_series series, in order of arrival; label sets beyond are added
 * into the series "other" and their number is gauge "folded-<map>", so nothing read is lost
 * from the totals. With reclaim_after, a series unchanged for that many reads gives its
 * place to a newcomer: it goes into `other` with what it had carried, so `other` only grows
 * by what it adds from then on. A key whose label set a decoder drops (regexps) has no
 * series; their number in each read is gauge "unmatched-<map>". */
#ifndef EBPF_READ_SERIES_READ_H
#define EBPF_READ_SERIES_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "libcore/read/series_view.h"

struct metric_sink;
struct series_reader;

/* The bytes one series of a view of nfields fields (nhist of them histograms) costs the
 * reader at most (its name, index slots, the fields' sums, a histogram's slots and
 * tracker). */
size_t series_reader_series_bytes(int nfields, int nhist);

/* The reader of view v (kept by the caller for the reader's life). NULL with err. */
struct series_reader *series_reader_new(const struct series_view *v, char *err, size_t errlen);
/* Reads the map (nothing sent). 0 or -errno. */
int series_reader_read(struct series_reader *r);
/* Sends what the last read read. */
void series_reader_send(struct series_reader *r, const struct metric_sink *sink);
void series_reader_free(struct series_reader *r);
/* Benches and tests: false reads the map one entry at a time (get_next_key + lookup), as on
 * a kernel without batch lookups; true (the default) batches where the kernel can. */
void series_reader_set_batch(struct series_reader *r, bool batch);

#endif
