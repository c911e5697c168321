/* What the engine keeps of one view while its module runs (map_view.h): set up by
 * view_start.c, read and sent by view_emit.c. */
#ifndef EBPF_READ_VIEW_STATE_H
#define EBPF_READ_VIEW_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/hist/hist.h"
#include "libcore/read/map_read.h"
#include "libcore/read/series_view.h"
#include "libcore/read/view_labels.h"

struct ring_buffer;
struct series_reader;

/* One series of an array view: its row. */
struct view_slot {
	bool decoded;                    /* instance holds this row's labels */
	char instance[VIEW_INSTANCE_MAX];
};

struct view_state {
	bool active;               /* its `needs` are met and its map was found */
	int fd;
	uint32_t nrows;            /* arrays: rows */
	struct map_read rd;
	uint64_t *values;          /* arrays: nrows rows of value_size bytes, summed over CPUs */
	uint64_t *prev;            /* the rows of the previous read, for a ratio */
	int nhist;                 /* histogram fields per row */
	struct hist_tracker *trackers;     /* nrows * nhist */
	struct hist_tracker *cpu_trackers; /* copies * nhist, with the per-CPU feature */
	struct view_labels labels;
	struct view_slot *slots;   /* nrows */
	/* VIEW_HASH: the view as series (series_view.h), read by series_read.h */
	struct series_view series_view;
	struct metric_id count_ids[SERIES_MAX_FIELDS];
	struct series_reader *series;
	struct ring_buffer *rb;    /* VIEW_RINGBUF */
};

#endif
