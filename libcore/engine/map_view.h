/* How a BPF map becomes values, as data: which map, its shape, how a row's key becomes an
 * instance label, and which value fields are counters, histograms (struct hist_row, with
 * deltas tracked per row) or gauges, under which metric name.
 *
 * The engine (module.c) reads every view once per interval, all of them before sending
 * anything (a failed read sends nothing), then sends the values in view order. Modules
 * declare their views in their descriptor; what no table can say (block's hash of disks,
 * vfs's approximation flags) stays in the module's read hook.
 *
 * Two layouts cover every fixed-key map:
 *  - rows as values (`rows`): a u64 array whose every row means something else, such as
 *    a module's `stats` (row 0 "dropped"/"start_lost", row 1 ...) or dcache's counts;
 *  - rows as instances (`fields`): an array of structs whose row is the instance (syscall
 *    number, operation, port row, filesystem slot), each field a metric.
 */
#ifndef EBPF_CORE_MAP_VIEW_H
#define EBPF_CORE_MAP_VIEW_H

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
	VIEW_HASH,         /* open key set: read by the module's hook (keys need decoding) */
	VIEW_PERCPU_HASH,
	VIEW_RINGBUF,      /* records drained at every read into view->record */
};

enum view_value_kind {
	VALUE_COUNTER,   /* cumulative u64: sink->counter */
	VALUE_HISTOGRAM, /* struct hist_row: deltas tracked here, sink->histogram */
	VALUE_GAUGE,     /* u64 as a value of the moment: sink->gauge */
};

/* How the row index of a rows-as-instances view becomes its instance label. */
enum view_key {
	KEY_ROW_NAMES,   /* row_names[row] (fixed enum rows: "read", "write", ...) */
	KEY_SYSCALL_NR,  /* the syscall's name for this architecture */
	KEY_MODULE,      /* the module's row_instance hook (port rows, filesystem slots, ...) */
};

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
	/* rows as instances */
	enum view_key key;
	const char *const *row_names;
	const struct view_field *fields;
	int nfields;
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

/* Reading state of one view; module.c keeps one per descriptor view. */
struct view_state;

/* Histogram rows of the views the module reads (fixed-size arrays; a hook counts
 * the rest into m->hist_rows): what the default precision is budgeted on. */
uint32_t views_hist_rows(const struct module *m);
/* Between open and load: every view map whose value is one bare struct hist_row declared
 * by size (no BTF value type) gets the value size of a row at m->precision
 * (HIST_ROW_SIZE, hist_row.h), so its kernel memory follows the precision. 0 or -errno. */
int views_size_rows(struct module *m, struct bpf_object *obj);
/* Creates the readers of every view once the object is loaded. 0, or -1 with the message. */
int views_start(struct module *m, char *err, size_t errlen);
/* Reads every view's map (no values sent). 0 or -errno. */
int views_read(struct module *m);
/* Sends what views_read() read. */
void views_emit(struct module *m, const struct metric_sink *sink);
void views_free(struct module *m);

/* Sends one histogram series from a cumulative row: the interval's deltas through the
 * tracker, nothing when the interval has no events. Also for hooks (block's rows). */
void emit_hist_row(const struct metric_sink *sink, const char *metric, const char *instance, enum hist_unit unit,
		   struct hist_tracker *t, const void *row);

#endif
