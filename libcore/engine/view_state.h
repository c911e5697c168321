/* What the engine keeps of one view while its module runs (map_view.h): set up by
 * view_start.c, read and sent by view_emit.c. */
#ifndef EBPF_ENGINE_VIEW_STATE_H
#define EBPF_ENGINE_VIEW_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/read/series_view.h"
#include "libcore/read/view_labels.h"

struct ring_buffer;
struct series_reader;

struct view_state {
	bool active;               /* its `needs` are met and its map was found */
	int fd;
	/* the view as series (series_view.h), read by series_read.h: a keyed view's labels, or
	 * rows as values' fields (row -> field) and ratio */
	struct view_labels labels;
	int *row_fields;
	struct series_ratio ratio;
	struct series_view series_view;
	struct metric_id count_ids[SERIES_MAX_FIELDS];
	struct series_reader *series;
	struct ring_buffer *rb;    /* VIEW_RINGBUF */
};

#endif
