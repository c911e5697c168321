/* The places' index by key (in series_places.c, beside the index by name). What a map key
 * was decoded to, by the key's raw bytes: a reader that meets a key again
 * skips its decoders and its series lookup (10,000 keys: the bulk of a read's CPU time).
 *
 * Bounded: room for twice the map's entries; when a map's keys churn (an LRU map, a program
 * that deletes) and the cache is half full, it starts over. Fresh: decoders that ask the
 * system (majorminor, ksym, cgroup) may answer differently later, so each entry is due again
 * once every KEY_CACHE_REFRESH reads (spread: about 1/KEY_CACHE_REFRESH of the keys per read),
 * and the caller decodes it anew. */
#ifndef EBPF_READ_KEY_CACHE_H
#define EBPF_READ_KEY_CACHE_H

#include <stdint.h>

#define KEY_CACHE_REFRESH 30

struct key_cache;

/* NULL on out of memory. */
struct key_cache *key_cache_new(uint32_t key_size, uint32_t max_keys);
/* The value put for this key (non-zero), or 0: not known, or due for a refresh this read. */
uint32_t key_cache_get(struct key_cache *c, const void *key);
/* Remembers value (non-zero) for the key of the last key_cache_get(). */
void key_cache_put(struct key_cache *c, uint32_t value);
/* Forgets every key (the values they were put with mean something else now). */
void key_cache_clear(struct key_cache *c);
/* Called once per read, before its first get. */
void key_cache_next_read(struct key_cache *c);
void key_cache_free(struct key_cache *c);

#endif
