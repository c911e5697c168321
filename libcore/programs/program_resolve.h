/* A `<Program>` configuration checked against its BPF object's BTF, before anything loads:
 * every named map, program, member and global exists; label sizes add up to the key; the
 * value matches the declared layout; decoders get the sizes they need; params have a type
 * their value fits. What it finds (offsets, sizes, slot counts) is what the reader uses.
 * Every error names the map, label or param, the sizes expected and found, and the fix, so
 * `collectd -T` tells a user all they need. */
#ifndef EBPF_PROGRAMS_PROGRAM_RESOLVE_H
#define EBPF_PROGRAMS_PROGRAM_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/programs/program_model.h"

struct bpf_object;

/* Where a view's numbers are, per map entry (per CPU for per-CPU maps). */
struct view_layout {
	uint32_t key_size, value_size;
	uint32_t max_entries;
	bool hash;                     /* open key set (hash, LRU hash), else array */
	bool percpu;
	/* counters and gauges: the u64/u32 at value_offset */
	uint32_t value_offset, value_width;
	/* histograms */
	uint32_t nslots;               /* Layout "value": the slot array's length; "key": max index + 1 */
	uint32_t slots_offset, slot_width;
	bool has_sum;
	uint32_t sum_offset;
	uint32_t bucket_offset, bucket_width; /* Layout "key": the bucket index in the key */
};

struct program_layout {
	struct view_layout views[PROGRAM_MAX_VIEWS];
};

/* Checks c against obj (opened, not loaded), fills the labels' offsets and out, writes the
 * params into the object's globals and turns autoload off for the Skip programs. 0, or -1
 * with err. */
int program_resolve(struct program_config *c, struct bpf_object *obj, struct program_layout *out, char *err,
		    size_t errlen);

#endif
