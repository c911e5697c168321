/* FNV-1a hashes of a NUL-terminated text: the one function behind every '~hash' a cut name
 * ends with (label_value.h, series_name.h) and the indexes of names (series places, cgroup
 * places), so that a name hashes the same wherever it is cut or looked up; and of n bytes,
 * for the indexes of map keys (the key cache in series_places.c, a program reader's
 * previous entries). */
#ifndef EBPF_BASE_TEXT_HASH_H
#define EBPF_BASE_TEXT_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t text_hash32(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static inline uint32_t bytes_hash32(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static inline uint64_t text_hash64(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

#endif
