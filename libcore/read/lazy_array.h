/* Zeroed arrays sized for the most a map can hold (a per-cgroup table's room is a series
 * place and two key-cache slots per kernel entry) that cost memory only as they are
 * written. A large one is an anonymous mapping: calloc may instead hand back freed heap
 * memory, which it clears, and each page it clears is resident from start. A small one
 * comes from calloc (a mapping would take a page each). Either is aligned to a cache line. */
#ifndef EBPF_READ_LAZY_ARRAY_H
#define EBPF_READ_LAZY_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

#define LAZY_ARRAY_MIN (64 * 1024) /* bytes from which an array is a mapping */

struct lazy_array {
	void *raw;   /* what to give back */
	size_t bytes;
	bool mapped; /* an anonymous mapping, else calloc's */
};

/* n x size zeroed bytes; NULL: out of memory. */
void *lazy_array_alloc(struct lazy_array *a, size_t n, size_t size);
/* Gives it back (also one that failed or was never made). */
void lazy_array_free(struct lazy_array *a);

#endif
