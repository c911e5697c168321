/* One read of a map, the one way every view reaches its values: every entry through the map
 * walker (map_dump.h: batches where the kernel has them), each value as the kernel copies
 * it: one copy per possible CPU for a per-CPU map, one for a shared one (map_layout.h).
 * The series reader (series_read.c) reads it through map_dump_read(&r->dump), and adds up
 * the copies of u64 words itself or walks them one by one (fields narrower than a word).
 * Nothing is zeroed: the maps stay cumulative. The one deletion is map_read_take's, of an
 * entry whose value its reader carries on (a group's, series_view.h SERIES_CARRY). */
#ifndef EBPF_READ_MAP_READ_H
#define EBPF_READ_MAP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "libcore/kernel/map_dump.h"

struct map_read {
	struct map_dump dump;
	int copies;         /* values per entry: the possible CPUs for a per-CPU map, else 1 */
	size_t copy_size;   /* bytes of one copy as the kernel lays them out */
	bool no_take_op;    /* the kernel has no lookup-and-delete for the map (before 5.14) */
};

/* The reader of map fd whose values are value_size bytes (one copy); the copies follow the
 * map's type. 0, or -errno. */
int map_read_init(struct map_read *r, int fd, bool hash, uint32_t key_size, size_t value_size,
		  uint32_t max_entries);
/* A read (map_dump_read(&r->dump)) leaves entry i's key at dump.keys + i * dump.key_size,
 * its copies (copy c of a per-CPU map at c * copy_size) at dump.values + i * dump.value_size. */

/* The whole number of width bytes (1, 2, 4 or 8) at p: a field of a user's map value. */
static inline uint64_t map_read_uint(const void *p, uint32_t width)
{
	if (width == 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	if (width == 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	if (width == 2) {
		uint16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	return *(const uint8_t *)p;
}

/* Entry i of the last read looked up again and deleted, its value in the read replaced by
 * the kernel's now: what events added since the read is in it, so a reader that carries
 * the value on loses none of them. One lookup-and-delete where the kernel has it for the
 * map (hashes since 5.14): no event can come between; else a lookup and a delete, between
 * which an event (microseconds) is lost. 0, or -errno: -ENOENT, gone (the value is the
 * read's); another, the entry is left as it was. */
int map_read_take(struct map_read *r, uint32_t i);
void map_read_free(struct map_read *r);

/* Whether the kernel keeps a value per possible CPU in the map behind fd (a module's map
 * may have been made shared by engine/map_layout.c): 1 or 0, or -errno. */
int map_is_percpu(int fd);

#endif
