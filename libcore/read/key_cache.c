#include "libcore/read/key_cache.h"
#include "libcore/read/lazy_array.h"
#include "base/text_hash.h"

#include <stdlib.h>
#include <string.h>

struct key_slot {
	uint32_t hash;
	uint32_t value; /* 0: free */
};

struct key_cache {
	uint32_t key_size;
	uint32_t capacity;     /* a power of two */
	uint32_t count;
	uint32_t reads;
	struct key_slot *slots;
	uint8_t *keys;         /* capacity * key_size */
	struct lazy_array slots_mem, keys_mem; /* what they lie in: twice a map's entries */
	/* the last get: where its key is or goes */
	uint32_t last_slot, last_hash;
	const void *last_key;
};

struct key_cache *key_cache_new(uint32_t key_size, uint32_t max_keys)
{
	struct key_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->key_size = key_size;
	c->capacity = 16;
	while (c->capacity < 2 * (uint64_t)max_keys)
		c->capacity *= 2;
	c->slots = lazy_array_alloc(&c->slots_mem, c->capacity, sizeof(*c->slots));
	c->keys = lazy_array_alloc(&c->keys_mem, c->capacity, key_size ? key_size : 1);
	if (!c->slots || !c->keys) {
		key_cache_free(c);
		return NULL;
	}
	return c;
}

void key_cache_clear(struct key_cache *c)
{
	memset(c->slots, 0, (size_t)c->capacity * sizeof(*c->slots));
	c->count = 0;
}

void key_cache_next_read(struct key_cache *c)
{
	c->reads++;
	if (c->count >= c->capacity / 2) /* keys churned: start over, stay bounded */
		key_cache_clear(c);
}

uint32_t key_cache_get(struct key_cache *c, const void *key)
{
	uint32_t h = bytes_hash32(key, c->key_size), i = h & (c->capacity - 1);

	for (;; i = (i + 1) & (c->capacity - 1)) {
		struct key_slot *s = &c->slots[i];

		if (!s->value || (s->hash == h && !memcmp(c->keys + (size_t)i * c->key_size, key, c->key_size)))
			break;
	}
	c->last_slot = i;
	c->last_hash = h;
	c->last_key = key;
	if (!c->slots[i].value || (i + c->reads) % KEY_CACHE_REFRESH == 0)
		return 0;
	return c->slots[i].value;
}

void key_cache_put(struct key_cache *c, uint32_t value)
{
	struct key_slot *s = &c->slots[c->last_slot];

	if (!s->value) {
		if (c->count + 1 >= c->capacity)
			return; /* full until the next read starts over */
		c->count++;
		memcpy(c->keys + (size_t)c->last_slot * c->key_size, c->last_key, c->key_size);
	}
	s->hash = c->last_hash;
	s->value = value;
}

void key_cache_free(struct key_cache *c)
{
	if (!c)
		return;
	lazy_array_free(&c->slots_mem);
	lazy_array_free(&c->keys_mem);
	free(c);
}
