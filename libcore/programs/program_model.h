/* A user's program as data, the model both of its parsers fill: program_config.h (the
 * `<Program>` block) and exporter_config.h (ebpf_exporter's YAML, for ExporterConfig); the
 * structs, the defaults a map block starts from, the mutators that check what they add and
 * the checks of the whole. Neither parser is called from here, and neither calls the other:
 * program_module_config() (program_module.h) runs one after the other. */
#ifndef EBPF_PROGRAMS_PROGRAM_MODEL_H
#define EBPF_PROGRAMS_PROGRAM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/decode/label_decoder.h"
#include "base/options.h"
#include "libcore/hist/hist_config.h"
#include "libcore/programs/object_policy.h"
#include "libcore/programs/cgroup_id_map.h"
#include "libcore/programs/perf_event_config.h"

#define PROGRAM_NAME_MAX 64
#define PROGRAM_MAX_PARAMS 16
#define PROGRAM_MAX_PROBES 16
#define PROGRAM_MAX_ALTERNATIVES 8
#define PROGRAM_MAX_SKIPS 16
#define PROGRAM_MAX_KADDRS 16
#define PROGRAM_MAX_PERF_EVENTS 8
#define PROGRAM_MAX_VIEWS 16
#define PROGRAM_MAX_LABELS 8
#define PROGRAM_MAX_FIXED_BOUNDS 64
#define PROGRAM_HELP_MAX 256
#define PROGRAM_DEFAULT_MAX_SERIES 1000
#define PROGRAM_DEFAULT_RECLAIM_AFTER 60

struct program_param {
	char name[PROGRAM_NAME_MAX];
	bool is_number;
	double number;
	char text[256];
};

/* One probe point: programs to try in order, the first that loads and attaches wins. */
struct program_probe {
	char name[PROGRAM_NAME_MAX];
	char programs[PROGRAM_MAX_ALTERNATIVES][PROGRAM_NAME_MAX];
	int nprograms;
};

/* One part of the map's key, in key order: a BTF member (field), or `size` bytes followed by
 * `padding` bytes that no label reads (ebpf_exporter's `size` and `padding`: the compiler's
 * padding after a member). Offsets are filled in by program_resolve(). */
struct program_label {
	char name[PROGRAM_NAME_MAX];
	char field[PROGRAM_NAME_MAX]; /* "" when given by Size */
	uint32_t size, padding;
	struct decoder_chain decoders;
	/* CPUIndex true (an ExporterConfig counter's last label named "cpu"): on a per-CPU map the
	 * label is each CPU's copy's index, 2 bytes in host order after the key as ebpf_exporter
	 * appends it, and reads no key bytes; on another map it reads the key as any label. */
	bool cpu_index;
	uint32_t offset;              /* resolved: byte offset in the key */
	bool reads_cpu;               /* resolved: cpu_index on a per-CPU map */
};

enum program_view_kind { VIEW_KIND_COUNTER, VIEW_KIND_GAUGE, VIEW_KIND_HISTOGRAM };

/* Where a histogram's slots are: an array field in the map's value, or the last part of
 * the key (the bucket index, as BCC's BPF_HISTOGRAM and ebpf_exporter have it). */
enum hist_layout { HIST_LAYOUT_VALUE, HIST_LAYOUT_KEY };

/* Slot conventions (README "Writing programs" gives each one's exact bounds). */
enum slot_convention {
	SLOTS_NATIVE,   /* the plugin's own row: hist_row.bpf.h's hist_record() */
	SLOTS_LOG2,     /* libbpf-tools' log2l: slot k holds [2^k, 2^(k+1)), slot 0 also 0 */
	SLOTS_BCC_LOG2, /* BCC's bpf_log2l: slot 0 holds 0, slot k holds [2^(k-1), 2^k) */
	SLOTS_EXP2,     /* ebpf_exporter exp2: slot k holds values up to 2^k */
	SLOTS_EXP2ZERO, /* exp2 with slot 0 for 0: slot k (k >= 1) up to 2^(k-1) */
	SLOTS_LINEAR,   /* bpftrace lhist: slot 0 below MIN, slot k [MIN + (k-1) W, MIN + k W), then above */
	SLOTS_FIXED,    /* slot k holds (bounds[k-1], bounds[k]] (the last: everything above) */
};

enum percpu_mode { PERCPU_SUM, PERCPU_LABEL };

struct program_view {
	enum program_view_kind kind;
	char map[PROGRAM_NAME_MAX];
	char type[PROGRAM_NAME_MAX];        /* collectd type; default by kind */
	char value_field[PROGRAM_NAME_MAX]; /* counters/gauges: a member of a struct value */
	struct program_label labels[PROGRAM_MAX_LABELS];
	int nlabels;
	char type_instance[128];            /* "%{label}" template; default: labels joined by "-" */
	uint32_t max_series;
	uint32_t reclaim_after;             /* reads without a change before a full view gives the
	                                     * series' place to a newcomer; 0: never */
	enum percpu_mode percpu;
	bool percpu_given;
	/* histograms */
	enum hist_layout layout;
	char slots_field[PROGRAM_NAME_MAX];
	char sum_field[PROGRAM_NAME_MAX];
	enum slot_convention buckets;
	double multiplier;
	double linear_min, linear_width;    /* Buckets "linear" MIN WIDTH COUNT (slot_map.h) */
	uint32_t linear_count;
	double fixed_bounds[PROGRAM_MAX_FIXED_BOUNDS];
	int nfixed_bounds;
	struct hist_config hist;            /* Precision */
	/* Layout "key" of ebpf_exporter's histograms (exporter_config.h): only buckets key_min to
	 * key_max are events; bucket key_max + 1 holds the sum, others are not read. */
	bool key_range;
	uint64_t key_min, key_max;
	/* ebpf_exporter's fixed buckets: only bucket values equal to one of fixed_bounds are
	 * events (it reads those keys and no other). */
	bool key_listed_only;
	/* A metric of ebpf_exporter's YAML: the family and help ebpf_exporter exposes it under
	 * ("ebpf_exporter_<name>", the YAML's help, cut to PROGRAM_HELP_MAX - 1 bytes); "" for
	 * a <Program>'s own map blocks. */
	char family[PROGRAM_NAME_MAX + 16];
	char help[PROGRAM_HELP_MAX];
};

struct program_config {
	char name[PROGRAM_NAME_MAX];        /* plugin_instance */
	char object[4096];
	char exporter_config[4096];         /* ExporterConfig: ebpf_exporter's YAML (exporter_config.h) */
	struct program_param params[PROGRAM_MAX_PARAMS];
	int nparams;
	struct program_probe probes[PROGRAM_MAX_PROBES];
	int nprobes;
	char skip[PROGRAM_MAX_SKIPS][PROGRAM_NAME_MAX];
	int nskip;
	char kaddrs[PROGRAM_MAX_KADDRS][PROGRAM_NAME_MAX]; /* KernelAddress: symbols for kaddr_<symbol> */
	int nkaddrs;
	struct cgroup_id_map_config cgroup_ids; /* CgroupIdMap (cgroup_id_map.h) */
	/* Set while ExporterConfig's YAML is read (it may be readable by root only): the
	 * messages of program_model_add_kaddr() and _set_cgroup_ids() do not quote its text. */
	bool text_hidden;
	struct program_perf_event perf_events[PROGRAM_MAX_PERF_EVENTS]; /* <PerfEvent>, perf_events: */
	int nperf_events;
	struct program_view views[PROGRAM_MAX_VIEWS];
	int nviews;
	struct object_policy policy;
	/* strings the policy points into */
	char policy_names[2 * POLICY_MAX_ALLOWED][PROGRAM_NAME_MAX];
};

/* Adds a KernelAddress symbol (checked: a name, once, within PROGRAM_MAX_KADDRS). 0, or -1
 * with err. */
int program_model_add_kaddr(struct program_config *c, const char *symbol, char *err, size_t errlen);
/* Sets the CgroupIdMap: map, type "hash" or "cgrp_storage", patterns. 0, or -1 with err. */
int program_model_set_cgroup_ids(struct program_config *c, const char *map, const char *type,
				 const char *const *patterns, int npatterns, char *err, size_t errlen);
/* Room for one more perf event: its slot, or NULL with err. */
struct program_perf_event *program_model_new_perf_event(struct program_config *c, char *err, size_t errlen);
void program_config_free(struct program_config *c);
/* A map block's view before its options are read: zeroed, then the defaults a <Histogram>,
 * <Counter> or <Gauge> (and an ExporterConfig metric) starts from. */
void program_view_init(struct program_view *v, enum program_view_kind kind);

/* "Histogram", "Counter" or "Gauge": the block a view of this kind is written in. */
const char *program_view_kind_name(enum program_view_kind k);

/* What a program must be whichever parsers filled it, checked once they all have (the
 * block, then the YAML its ExporterConfig names: program_module_config()): an Object, a
 * view at least, each view's MaxSeries within PROGRAM_VIEW_MAX_BYTES, one Precision for
 * its native histograms. 0, or -1 with err naming the program. */
int program_model_check(const struct program_config *c, char *err, size_t errlen);

/* "native", "log2", ... */
const char *slot_convention_name(enum slot_convention s);

/* What a view may keep in memory for its series at MaxSeries (bounded by memory, not only
 * by count: MaxSeries 1,000,000 of a histogram once meant 17 GB). */
#define PROGRAM_VIEW_MAX_BYTES (256u << 20)

/* The bytes one series of a view of this kind costs the reader at most (its name, index
 * slots, a histogram's slots and tracker). */
size_t program_reader_series_bytes(enum program_view_kind kind);

#endif
