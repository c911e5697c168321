/* Zeroed arrays that cost memory only as they are written (lazy_array.h). */
#include "libcore/read/lazy_array.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

void *lazy_array_alloc(struct lazy_array *a, size_t n, size_t size)
{
	size_t bytes = n * size;

	a->bytes = bytes ? bytes : 1;
	a->mapped = a->bytes >= LAZY_ARRAY_MIN;
	if (a->mapped) {
		a->raw = mmap(NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a->raw == MAP_FAILED)
			a->raw = NULL;
		return a->raw;
	}
	a->raw = calloc(1, a->bytes + 63);
	return a->raw ? (void *)(((uintptr_t)a->raw + 63) & ~(uintptr_t)63) : NULL;
}

void lazy_array_free(struct lazy_array *a)
{
	if (a->raw && a->mapped)
		munmap(a->raw, a->bytes);
	else
		free(a->raw);
	a->raw = NULL;
}
