/* Every entry of a BPF map in one pass, the map left as it is: nothing is deleted or zeroed
 * (the maps stay cumulative, DESIGN.md 3).
 *
 * The kernel's batch lookup (BPF_MAP_LOOKUP_BATCH, 5.6+ for hash, LRU hash and array maps,
 * per-CPU ones included) copies many entries per syscall; where the kernel refuses it (5.10
 * for arrays, older kernels for all), one get_next_key + lookup per entry (hash) or one lookup
 * per index (array). A read of a 10,000-entry hash is then a few syscalls instead of 20,000. */
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
	uint8_t *keys;          /* max_entries keys, then values, of the last read */
	uint8_t *values;
	uint32_t count;         /* entries in keys/values */
	uint32_t syscalls;      /* bpf() calls the last read took */
	bool no_batch;          /* the kernel refused a batch lookup, or the caller turned it off */
};

/* 0, or -errno (memory). */
int map_dump_init(struct map_dump *d, int fd, bool hash, uint32_t key_size, size_t value_size, uint32_t max_entries);
/* Reads every entry into d->keys/d->values (d->count of them). 0, or -errno. */
int map_dump_read(struct map_dump *d);
void map_dump_free(struct map_dump *d);

#endif
