/* What the engine keeps of one view while its module runs (map_view.h): set up by
 * view_start.c, read and sent by view_emit.c. */
#ifndef EBPF_READ_VIEW_STATE_H
#define EBPF_READ_VIEW_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/read/map_read.h"
#include "libcore/read/series_view.h"
#include "libcore/read/view_labels.h"

struct ring_buffer;
struct series_reader;

struct view_state {
	bool active;               /* its `needs` are met and its map was found */
	int fd;
	/* rows as values */
	uint32_t nrows;
	struct map_read rd;
	uint64_t *values;          /* nrows rows of value_size bytes, summed over CPUs */
	uint64_t *prev;            /* the rows of the previous read, for a ratio */
	/* keyed views: their labels, the view as series (series_view.h), read by series_read.h */
	struct view_labels labels;
	struct series_view series_view;
	struct metric_id count_ids[SERIES_MAX_FIELDS];
	struct series_reader *series;
	struct ring_buffer *rb;    /* VIEW_RINGBUF */
};

#endif
