/* The one way this project walks a BPF map: every entry of the map in one pass, the map
 * left as it is: nothing is deleted or zeroed (the maps stay cumulative, DESIGN.md 3).
 * Modules, programs and the fill self-metric all read their maps through it.
 *
 * The kernel's batch lookup (BPF_MAP_LOOKUP_BATCH, 5.6+ for hash, LRU hash and array maps,
 * per-CPU ones included) copies many entries per syscall; where the kernel has none for the
 * map (map_dump_no_batch_here says which answers mean that), one get_next_key + lookup per
 * entry (hash) or one lookup per index (array). A read of a 10,000-entry hash is then a few
 * syscalls instead of 20,000.
 *
 * Two shapes of the same walk:
 *   map_dump_read: the whole map into keys/values (room = max_entries), for readers that go
 *                  over the entries more than once or keep them (programs, per-CPU arrays);
 *   map_dump_each: the map a room-full at a time, each handed to a visitor, for walks that
 *                  only look once (counting entries) and need not hold a big map in memory. */
#ifndef EBPF_CORE_MAP_DUMP_H
#define EBPF_CORE_MAP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_dump {
	int fd;
	bool hash;              /* open key set (hash, LRU hash), else array: keys are indexes */
	uint32_t key_size;
	size_t value_size;      /* bytes per entry as the kernel copies it (per-CPU: every CPU's) */
	uint32_t max_entries;
	uint32_t room;          /* entries keys/values hold: max_entries, or a chunk (map_dump_each) */
	uint8_t *keys;          /* room keys, then values, of the last read (map_dump_each: chunk) */
	uint8_t *values;
	uint32_t count;         /* entries in keys/values */
	uint32_t syscalls;      /* bpf() calls the last read took */
	bool keys_only;         /* one entry at a time, only the keys are walked (no lookup): values
	                         * are then left as they were. Batches copy values anyway. */
	bool no_batch;          /* the kernel refused a batch lookup, or the caller turned it off
	                         * (the per-entry walk, as on a kernel without batch lookups) */
};

/* Whether err (-errno of a batch lookup) means "this kernel has no batch lookup for this
 * map", so that the entry-by-entry walk must be used. The one rule for every walk. */
bool map_dump_no_batch_here(int err);

/* The whole map: room for max_entries. 0, or -errno (memory). */
int map_dump_init(struct map_dump *d, int fd, bool hash, uint32_t key_size, size_t value_size, uint32_t max_entries);
/* Room for `room` entries at a time (at least 1, at most max_entries), grown when one hash
 * bucket holds more (map_dump_each only). 0, or -errno (memory). */
int map_dump_init_chunked(struct map_dump *d, int fd, bool hash, uint32_t key_size, size_t value_size,
			  uint32_t max_entries, uint32_t room);
/* Reads every entry into d->keys/d->values (d->count of them). 0, or -errno. */
int map_dump_read(struct map_dump *d);

/* Gets n entries (keys, then values, value_size apart) of the walk. 0 to go on, else the
 * walk stops and returns it. */
typedef int (*map_dump_visit)(void *ctx, const uint8_t *keys, const uint8_t *values, uint32_t n);
/* Walks every entry, at most max_entries in all, handing them to visit a room-full at a
 * time. 0, visit's non-zero, or -errno. */
int map_dump_each(struct map_dump *d, map_dump_visit visit, void *ctx);
void map_dump_free(struct map_dump *d);

#endif
