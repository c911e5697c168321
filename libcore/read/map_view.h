/* How a BPF map becomes values, as data: which map, its shape, how its key becomes an
 * instance (labels, each decoded by a chain of the programs' label decoders), and which
 * value fields are counters, histograms (struct hist_row, with deltas tracked per series)
 * or gauges, under which metric name. Every view of a map is read as series
 * (series_view.h, series_read.h), by the reader of a user's program's maps; the engine's
 * view walkers (engine/views.h) describe each view as series.
 *
 * The engine (module.c) reads every view once per interval, all of them before sending
 * anything (a failed read sends nothing), then sends the values in view order. Modules
 * declare their views in their descriptor; what no table can say (vfs's approximation
 * flags, block's untraced IOs) stays in the module's hooks.
 *
 * Two layouts:
 *  - rows as values (`rows`): a u64 array whose every row means something else, such as
 *    a module's `stats` (row 0 "dropped"/"start_lost", row 1 ...) or dcache's counts: one
 *    series without labels, each row a field of it (series_view.row_fields);
 *  - keys as instances (`fields`): an array (the row is the key) or a hash (block's disk and
 *    operation) of structs, each key an instance, each field a metric: a key's labels name
 *    its series (series_name.h).
 * A value is sent when it is not 0 (VIEW_ALWAYS: always; a histogram: once it has events).
 */
#ifndef EBPF_READ_MAP_VIEW_H
#define EBPF_READ_MAP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/hist/hist.h"

struct module;
struct metric_sink;
struct bpf_object;

enum view_shape {
	VIEW_PERCPU_ARRAY, /* summed over the CPUs; batch lookup where the kernel has it */
	VIEW_ARRAY,
	VIEW_HASH,         /* open key set: every key met is a series (key_cache.h) */
	VIEW_RINGBUF,      /* records drained at every read into view->record */
};

enum view_value_kind {
	VALUE_COUNTER,   /* cumulative u64: sink->counter */
	VALUE_HISTOGRAM, /* struct hist_row: deltas tracked here, sink->histogram */
	VALUE_GAUGE,     /* u64 as a value of the moment: sink->gauge */
};

/* One label of the key: its bytes (an array's key is its u32 row) and how they become text,
 * by the programs' label decoders (label_decoder.h):
 *   .decode = { "syscall" }            a Decode line: the decoder, then its arguments;
 *   .names = op_names, .nnames = N     a static_map "0=read" "1=write" ... of those names;
 *   neither                            a static_map the module fills at start
 *                                      (view_label_names(): port rows, filesystem slots).
 * The instance is the labels' texts joined by "-" ("loop0-write"); a label whose `needs`
 * are not met is left out (no labels: the instance ""). */
#define VIEW_LABEL_ARGS 4
#define VIEW_MAX_LABELS 4
struct view_label {
	const char *name;
	uint32_t offset, size;
	const char *decode[VIEW_LABEL_ARGS];
	const char *const *names;
	int nnames;
	uint32_t needs;
};
#define ROW_LABEL(name_, ...) { .name = (name_), .size = sizeof(uint32_t), __VA_ARGS__ }

/* A value is sent only when it is non-zero, as "a series with data"; VIEW_ALWAYS sends
 * it anyway (self-metrics: "nothing lost" is a visible zero). */
#define VIEW_ALWAYS 0x1u

/* Row `row` of a u64 array, sent as metric/instance. `needs`: module feature bits
 * (module.h, m->features) that must all be set for the row to exist. */
struct view_row {
	uint32_t row;
	const char *metric;
	const char *instance;
	unsigned int flags;
	uint32_t needs;
};

/* A field of each row's value. A histogram with count_metric also sends its lifetime
 * count as that counter; instance_prefix turns instance "80" into "connect-80" ("" into
 * "connect"). */
struct view_field {
	const char *metric;
	enum view_value_kind kind;
	size_t offset;               /* offsetof() in the row's value */
	enum hist_unit unit;         /* histograms */
	unsigned int flags;
	uint32_t needs;
	const char *count_metric;
	const char *instance_prefix;
};

/* A hit ratio of the interval between two rows of a rows-as-values view: percent of the
 * `total_row` events (accesses) that were not `miss_row` events (ratio.h); a gauge, not
 * sent for an interval without accesses. */
struct view_ratio {
	const char *metric;
	const char *instance;
	uint32_t total_row, miss_row;
};

struct map_view {
	const char *map;             /* name in the BPF object */
	enum view_shape shape;
	size_t value_size;           /* bytes per row (per CPU) */
	uint32_t nrows;              /* 0: the map's max_entries once loaded (sized at open) */
	uint32_t needs;              /* feature bits without which the view is not read */
	/* rows as values */
	const struct view_row *rows;
	int nrows_view;
	const struct view_ratio *ratio;
	/* keys as instances */
	const struct view_label *labels;
	int nlabels;
	uint32_t key_size;           /* hashes: bytes of a key (arrays: the u32 row) */
	const struct view_field *fields;
	int nfields;
	/* Values whose histograms are packed for the precision (HIST_PACKED_ROW_OFFSET,
	 * hist_row.h): packed_rows rows from byte packed_head on, unpacked into value_size. */
	size_t packed_head;
	unsigned int packed_rows;
	/* Labels whose text may change from one read to the next for the same key (a disk
	 * name after a hot replug): decoded at every read, not once per KEY_CACHE_REFRESH. */
	bool fresh_labels;
	/* Hooks, ctx the module. before_read: before the map is read (block reads
	 * /proc/diskstats first, so that every IO it counts has passed the programs). entry:
	 * every entry of a read, its key, its value (summed over CPUs, unpacked) and its labels'
	 * texts; false keeps its values from being sent (block's Disk filter). */
	void (*before_read)(struct module *m);
	bool (*entry)(void *ctx, const void *key, const void *value, const char *const *labels);
	/* With this feature bit set, histograms are also sent per CPU as "cpu<N>" (each
	 * CPU's own row, not the sum). Per-CPU arrays only. */
	uint32_t per_cpu_feature;
	/* A counter table that every CPU adds to on nearly every event of the module (syscalls'
	 * count table: every syscall): it stays per-CPU up to MAP_LAYOUT_HOT_PERCPU_MAX_BYTES
	 * instead of MAP_LAYOUT_PERCPU_MAX_BYTES, since shared its busiest rows would be one
	 * cache line that all online CPUs fight over (map_layout.h). */
	bool hot;
	/* VIEW_RINGBUF: called for each record, in order (ctx: the module); ring_name says
	 * which in log lines ("OOM event"). */
	int (*record)(void *ctx, void *data, size_t size);
	const char *ring_name;
};

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Parts of a view that come as an array and its count, which is derived from the array,
 * never written by hand.
 * A per-CPU array of u64 counters, nrows_ in the map, sent as values named by rows_ (struct
 * view_row[]): every module's `stats`, and the counting modules' `counts`. */
#define VIEW_PERCPU_COUNTERS(map_, nrows_, rows_)                                                    \
	.map = (map_), .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(uint64_t), .nrows = (nrows_), \
	.rows = (rows_), .nrows_view = COUNT_OF(rows_)
/* Keys as labels (struct view_label[]) and the value's fields (struct view_field[]). */
#define VIEW_LABELLED_FIELDS(labels_, fields_) \
	.labels = (labels_), .nlabels = COUNT_OF(labels_), .fields = (fields_), .nfields = COUNT_OF(fields_)

#endif
