/* Reading a user's program's maps as its <Counter>, <Gauge> and <Histogram> blocks say:
 * every entry's key decoded into labels, entries with the same labels added up into one
 * series, the series sent through the metric sink. A view keeps at most MaxSeries series:
 * label sets beyond are added into the series "other" and their number is sent as
 * gauge "folded-<map>", so nothing read is lost from the totals.
 *
 * Histograms: the native layout (hist_row) is read as it is, at the program's precision;
 * exp2, exp2zero, log2 and bcc_log2 slots are moved onto the precision-0 native slots with
 * the same power-of-two bounds (log2
 * and bcc_log2 count [2^k, 2^(k+1)), read as (2^k, 2^(k+1)]: one unit off at each edge).
 * linear and fixed slots are not readable yet: such a view makes the start fail with a
 * message that says so. */
#ifndef EBPF_PROGRAMS_PROGRAM_READ_H
#define EBPF_PROGRAMS_PROGRAM_READ_H

#include <stddef.h>

#include "libcore/programs/program_config.h"
#include "libcore/programs/program_resolve.h"

struct bpf_object;
struct metric_sink;
struct program_reader;

/* After load: the reader of view v, whose native histogram rows the program records at
 * `precision` (its hist_precision). NULL with err when the view cannot be read. */
struct program_reader *program_reader_new(struct program_view *v, const struct view_layout *l,
					  struct bpf_object *obj, unsigned int precision, char *err, size_t errlen);
/* Reads the map and sends its series. 0 or -errno. */
int program_reader_read(struct program_reader *r, const struct metric_sink *sink);
void program_reader_free(struct program_reader *r);

#endif
