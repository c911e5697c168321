/* How many entries a hash map holds now: what the fill self-metric (entries / max_entries)
 * needs, without reading the whole map into the module.
 *
 * The kernel keeps no entry count a program or user space can read (5.10-6.x: the count
 * exists only for the kernel's own use in some map types), so the keys are walked. Batch
 * lookup (5.6+ for hash maps) takes one system call per chunk of entries; where it is
 * refused, get_next_key takes one per entry. Cost on a full 10,000-entry u32 -> u64 hash,
 * measured by tests/engine/test_map_fill: see README (Self-metrics).
 *
 * The map changes while it is walked, so the count is a moment's approximation: an entry
 * added or deleted during the walk may be counted or not. Good enough for a fill level.
 */
#ifndef EBPF_CORE_MAP_ENTRIES_H
#define EBPF_CORE_MAP_ENTRIES_H

#include <stdbool.h>
#include <stdint.h>

/* The map types whose max_entries is a cap that can fill (hash, per-CPU hash, LRU). Arrays
 * cannot fill; task storage, ring buffers and others have no entry cap of that kind. */
bool map_type_can_fill(uint32_t type);

struct bpf_map;
/* Whether the object's load created the map. Its fd alone does not say: from libbpf 1.3 on
 * (Debian 13's 1.5) a map left out with bpf_map__set_autocreate(false) keeps the placeholder
 * fd it got at open; libbpf 1.1 (Debian 12) gives it -1. */
bool map_created(const struct bpf_map *map);

/* Entries of hash map fd, by batch lookup, else by walking keys. 0 or -errno. */
int map_entries_count(int fd, uint32_t *entries);
/* The walk alone (one get_next_key per entry): the fallback, and the baseline the cost
 * measurement compares batch lookup with. 0 or -errno. */
int map_entries_count_walk(int fd, uint32_t key_size, uint32_t max_entries, uint32_t *entries);

#endif
