#include "plugin/series_seen.h"

#include <stdlib.h>

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t name_hash(const char *type, const char *type_instance)
{
	uint64_t h = fnv1a(14695981039346656037ull, type);

	h = fnv1a((h ^ '/') * 1099511628211ull, type_instance); /* "a" "/b" and "a/" "b" differ: no '/' in a type */
	return h ? h : 1;
}

/* Inserts h into slots of cap (a power of two) entries; true if it was new. */
static bool insert(uint64_t *slots, uint32_t cap, uint64_t h)
{
	for (uint32_t i = (uint32_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
		if (slots[i] == h)
			return false;
		if (!slots[i]) {
			slots[i] = h;
			return true;
		}
	}
}

static int grow(struct series_seen *s)
{
	uint32_t cap = s->cap ? s->cap * 2 : 64;
	uint64_t *slots = cap > s->cap ? calloc(cap, sizeof(*slots)) : NULL;

	if (!slots)
		return -1;
	for (uint32_t i = 0; i < s->cap; i++)
		if (s->slots[i])
			insert(slots, cap, s->slots[i]);
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

bool series_seen_add(struct series_seen *s, const char *type, const char *type_instance)
{
	uint64_t h = name_hash(type, type_instance);

	if ((s->n + 1) * 2 > s->cap && grow(s)) /* at most half full: short probes */
		return false;
	if (!insert(s->slots, s->cap, h))
		return false;
	s->n++;
	return true;
}

void series_seen_free(struct series_seen *s)
{
	free(s->slots);
	*s = (struct series_seen){ 0 };
}
