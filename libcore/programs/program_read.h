/* Reading a user's program's maps as its <Counter>, <Gauge> and <Histogram> blocks say, by
 * the one reader of keyed maps (series_read.h): every entry's key decoded into labels,
 * entries with the same labels added up into one series, the series sent through the metric
 * sink. A view keeps at most MaxSeries series:
 * label sets beyond are added into the series "other" and their number is sent as
 * gauge "folded-<map>", so nothing read is lost from the totals. A key whose label set a
 * decoder drops (regexps: ebpf_exporter's regexp, no pattern matched) has no series; their
 * number in each read is gauge "unmatched-<map>". With ListedKeysOnly (ebpf_exporter's fixed
 * bucket_keys) the events in bucket values the list lacks are no events, and their count,
 * the map's whole, is counter "unlisted-<map>". The map is read in one pass
 * (map_dump.h: batches where the kernel has them), never cleared; a key's series is
 * remembered by its bytes (key_cache.h), so that it is decoded once in KEY_CACHE_REFRESH
 * reads, not at every read.
 *
 * Histograms: the native layout (hist_row) is read as it is, at the program's precision;
 * every other slot convention (exp2, exp2zero, log2, bcc_log2, linear, fixed) and any
 * Multiplier go through slot_map.h, which puts each slot whole into the engine slot of its
 * range's middle. */
#ifndef EBPF_PROGRAMS_PROGRAM_READ_H
#define EBPF_PROGRAMS_PROGRAM_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "libcore/programs/program_model.h"
#include "libcore/programs/program_resolve.h"

struct metric_sink;
struct program_reader;

/* After load: the reader of view v over its map (map_fd, the loaded map), whose native
 * histogram rows the program records at `precision` (its hist_precision). NULL with err
 * when the view cannot be read. */
struct program_reader *program_reader_new(struct program_view *v, const struct view_layout *l, int map_fd,
					  unsigned int precision, char *err, size_t errlen);
/* Reads the map, nothing sent. 0 or -errno. */
int program_reader_read(struct program_reader *r);
/* Sends the series of what program_reader_read() read. */
void program_reader_send(struct program_reader *r, const struct metric_sink *sink);
void program_reader_free(struct program_reader *r);
/* Benches and tests: false reads the map one entry at a time (get_next_key + lookup), as on
 * a kernel without batch lookups; true (the default) batches where the kernel can. */
void program_reader_set_batch(struct program_reader *r, bool batch);

#endif
