/* A map read as series: the one description the reader (series_read.h) works from. It says
 * what the view is (its map, its key's labels, how a per-CPU map's copies combine, its value's
 * fields, its cap, whether it keeps totals), never who described it. Each description of a
 * map becomes one, by one constructor: a module's map_view (map_view.h) in
 * engine/view_start.c, a <Program>'s <Counter>, <Gauge> or <Histogram> block (program_model.h)
 * in programs/program_read.c, a module's per-cgroup table in engine/cgroup_rows.c.
 *
 * Every entry's key is decoded into labels, each by its decoder chain; the labels' texts,
 * each made safe (label_value.h), joined by "-" or put into a TypeInstance template, name
 * the entry's series. Entries with the same name are added up into one series. Each value
 * field of the entry is one value of the series: a counter, a gauge or a histogram. */
#ifndef EBPF_READ_SERIES_VIEW_H
#define EBPF_READ_SERIES_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/metric/metric.h"
#include "libcore/hist/hist.h"
#include "libcore/read/map_view.h"

struct decoder_chain;

#define SERIES_MAX_LABELS 8
/* series_name()'s `ends`: a name whose labels cannot be told apart in it */
#define SERIES_ENDS_UNKNOWN 0xff
/* series_name()'s `ends`: each label's end, then (from SERIES_MAX_LABELS on) its start */
#define SERIES_LABEL_SPANS (2 * SERIES_MAX_LABELS)
#define SERIES_MAX_FIELDS 8

struct series_label {
	const char *name;
	uint32_t offset, size; /* in the key */
	struct decoder_chain *chain;
	bool cpu_index; /* not in the key: the copy's CPU index, `size` (2) bytes in host order */
};

/* What a foreign histogram layout adds of one entry (one CPU's copy) into a series' slots
 * (the engine's, at the view's precision) and its sum; a program's slot conventions
 * (slot_map.h), walked once or twice per read (reclaim_after). `sum_to_unit` turns an added-up sum into the engine's unit at send. */
struct series_hist_source {
	void *ctx;
	void (*begin)(void *ctx); /* before each walk of a read's entries (may be NULL) */
	/* again: the value is the entry's previous one (keep_totals), whose difference is
	 * taken: count nothing besides the slots and the sum */
	void (*add)(void *ctx, const uint8_t *key, const uint8_t *value, uint64_t *slots, uint64_t *sum, bool again);
	uint64_t (*sum_to_unit)(void *ctx, uint64_t sum);
};

/* What becomes of an entry whose key is in a group that the view's owner keeps apart
 * (series_view.group): a module's per-cgroup tables share one cap over their cgroups. */
enum series_fate {
	SERIES_SEND,   /* into its series, named "<group>/<labels>" */
	SERIES_SKIP,   /* no series; the entry stays (a row nothing names) */
	SERIES_DELETE, /* no series; the entry is deleted after the read (a cgroup left out) */
	SERIES_CARRY,  /* into its series, then taken from the map (map_read_take): the series
	                * keeps what the entry held (carried), sent at every read from then on
	                * while its group holds it, so that it never goes back (a removed cgroup;
	                * a cgroup folded into `other`, which so pins no kernel row) */
};

struct series_group {
	void *ctx;
	/* Every entry of every read, before it is named: its fate, and but for SKIP and
	 * DELETE the group's text (valid until the next call), which the entry's series name
	 * leads ("<group>/<labels>", the group cut with '~' and a hash to keep the whole
	 * within collectd's length). */
	enum series_fate (*fate)(void *ctx, const uint8_t *key, const char **text, uint64_t *token);
	/* Whether the group still holds the series named under `token` (what fate gave its
	 * entries), asked of a series that only carries (no entry in this read): false, and it
	 * is forgotten unsent. NULL: always. */
	bool (*holds)(void *ctx, uint64_t token);
};

struct series_field {
	enum view_value_kind kind;
	struct metric_id id;
	/* a counter or gauge: the whole number of `width` bytes (1, 2, 4 or 8) at offset;
	 * a histogram without a source: a struct hist_row at offset */
	uint32_t offset, width;
	/* A series with entries sends its value even when it is 0; else only a value that is
	 * not 0 ("a series with data"). */
	bool send_zero;
	/* "connect" + "80" -> "connect-80", + "" -> "connect"; in a group after it: "<group>/connect-80" */
	const char *instance_prefix;
	/* histograms */
	enum hist_unit unit;
	const struct series_hist_source *source; /* NULL: a struct hist_row */
	bool no_sum;                  /* the map keeps no sum: no mean rather than a made-up 0 */
	/* The lifetime count beside the histogram: with count_named, as "<series>-count" (and
	 * "<series>-sum" unless no_sum) at every read; else under the series' own instance once
	 * it has events. NULL: none. */
	const struct metric_id *count_id;
	bool count_named;
};

/* A hit ratio of the interval between two counter fields of a series (ratio.h): percent of
 * the `total` field's events (accesses) that were not the `miss` field's, a gauge under
 * `instance`, not sent for an interval without accesses (dcache, pagecache). */
struct series_ratio {
	struct metric_id id;
	const char *instance;
	int total, miss;
};

/* How the copies of an entry of a per-CPU map (other maps have one) become series. */
enum series_copies {
	COPIES_ADDED,            /* each copy added on its own into its key's series (fields may be
	                          * narrower than a word) */
	COPIES_APART,            /* each copy its own series, "cpu<N>" after the key's labels */
	COPIES_APART_BY_LABEL,   /* each copy its own series, one label (series_label.cpu_index) the CPU */
	/* The value is whole u64 words: the copies summed word by word before the fields are
	 * read, and packed histogram rows unpacked (HIST_PACKED_ROW_OFFSET: packed_rows rows
	 * from byte packed_head on) into full_size bytes. An entry hook and a group need it. */
	COPIES_SUMMED,
	COPIES_SUMMED_AND_APART, /* summed; each copy's histograms also the series "cpu<N>", beside the sum */
};

struct series_view {
	const char *map;          /* names the gauges folded-, unmatched- */
	/* the map */
	int fd;
	bool hash;
	uint32_t key_size, value_size, max_entries;
	enum series_copies copies;
	size_t packed_head, full_size;
	unsigned int packed_rows;
	unsigned int precision;   /* of the series' histograms (and of packed rows) */
	/* naming */
	struct series_label labels[SERIES_MAX_LABELS];
	int nlabels;
	const char *type_instance;  /* "%{label}" template, or NULL: the labels joined by "-" */
	const char *lone_name;      /* the name of the series of a view without labels */
	/* Labels decoded at every read, not once per KEY_CACHE_REFRESH reads: a disk's name
	 * after a hot replug (and always with an entry hook). */
	bool fresh_labels;
	/* A key's labels never change (rows named by tables): an array's rows are named once,
	 * and found again by their number, not by the key cache. */
	bool fixed_labels;
	/* An entry hook (map_view.h `entry`, entry_ctx its first argument): every entry of
	 * every read, its key, its value (the copies summed, unpacked) and its labels' texts as
	 * decoded (before they are made safe); false keeps its values from being sent. Needs
	 * summed copies. */
	bool (*entry)(void *ctx, const void *key, const void *value, const char *const *labels);
	void *entry_ctx;
	/* A group the keys belong to (see enum series_fate), or NULL. Needs summed copies. */
	const struct series_group *group;
	/* values */
	struct series_field fields[SERIES_MAX_FIELDS];
	int nfields;
	/* Or: the key's row (a u32 at row_offset) says which one field its value is, each row
	 * its own metric (process' forks, execs per cgroup): row_fields[row] is the field, -1
	 * or a row past nrow_fields: no value. Counters and gauges only. */
	const int *row_fields;
	uint32_t nrow_fields, row_offset;
	const struct series_ratio *ratio; /* or NULL */
	/* The cap: at most max_series series; the label sets beyond go into the series "other",
	 * counted by gauge "folded-<map>" (sent once the cap is reached with folded_when_full,
	 * else once anything folded). reclaim_after: reads without a change after which a
	 * series gives its place to a newcomer (0: never). */
	uint32_t max_series, reclaim_after;
	bool folded_when_full;
	/* Each entry adds what it counted since the previous read (its counters' and
	 * histograms' difference from its value then, found by its key; all it has when it was
	 * not there, or when a value went back: a new entry), so that a series (`other` too)
	 * never goes back and loses nothing when entries leave the map (evicted from an LRU
	 * hash, deleted by the program) or move to another series: only what an entry counted
	 * after the last read before it left. Gauges are read as they are. The reader keeps the
	 * previous read's entries for it (as much memory as the read's). No group. */
	bool keep_totals;
};

#endif
