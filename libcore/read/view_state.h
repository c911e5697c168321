/* What the engine keeps of one view while its module runs (map_view.h): set up by
 * view_start.c, read and sent by view_emit.c. */
#ifndef EBPF_READ_VIEW_STATE_H
#define EBPF_READ_VIEW_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/hist/hist.h"
#include "libcore/read/map_read.h"
#include "libcore/read/view_labels.h"

struct key_cache;
struct ring_buffer;

/* One series of a keys-as-instances view: an array's row, or a key a hash read met. */
struct view_slot {
	bool decoded;                    /* instance (and texts) hold this key's labels */
	char instance[VIEW_INSTANCE_MAX];
};

struct view_state {
	bool active;               /* its `needs` are met and its map was found */
	int fd;
	bool hash;
	uint32_t nrows;            /* arrays: rows; hashes: room for series (the map's entries) */
	struct map_read rd;
	uint64_t *values;          /* arrays: nrows rows of value_size bytes, summed over CPUs;
	                            * hashes: the entry being sent, unpacked */
	uint64_t *packed;          /* hashes: the entry's copies summed, as the map holds it */
	uint64_t *prev;            /* the rows of the previous read, for a ratio */
	int nhist;                 /* histogram fields per row */
	struct hist_tracker *trackers;     /* nrows * nhist */
	struct hist_tracker *cpu_trackers; /* copies * nhist, with the per-CPU feature */
	struct view_labels labels;
	struct view_slot *slots;   /* nrows */
	char (*texts)[VIEW_MAX_LABELS][VIEW_LABEL_TEXT]; /* with an entry hook: each slot's labels */
	uint8_t *slot_keys;        /* hashes: the key of each slot taken */
	uint32_t nslots;           /* hashes: slots taken */
	struct key_cache *keys;    /* hashes: key -> slot + 1 */
	struct ring_buffer *rb;    /* VIEW_RINGBUF */
};

#endif
