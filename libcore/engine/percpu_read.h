/* One pass over a per-CPU array map per read: every row, summed over the CPUs. A map that
 * map_layout.h made shared (one copy for all CPUs) is read the same way, with one copy.
 *
 * Values must be made of u64 words (all our map values are). The rows are read by
 * map_dump.h: the kernel's batch lookup (5.6+) copies all rows in one syscall; older kernels
 * fall back to one lookup per row. Nothing is ever deleted or zeroed: the maps stay
 * cumulative. */
#ifndef EBPF_CORE_PERCPU_READ_H
#define EBPF_CORE_PERCPU_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/kernel/map_dump.h"

struct percpu_reader {
	struct map_dump dump;
	uint32_t nrows;
	size_t words;     /* u64 words per row in the map */
	size_t out_words; /* u64 words per row in the output: >= words (prefix reads) */
	int ncpus;        /* copies per row: the possible CPUs for a per-CPU map, 1 for a shared one */
	uint64_t *raw;    /* the last read: nrows * ncpus * words, in the order of dump.keys */
};

/* For a map whose value is value_size bytes, the first value_size bytes of each out_size
 * output row: out_size is the map's value size, or bigger where the value is the prefix of a
 * bigger struct (a histogram row sized for its precision, hist_row.h); the rest of out is
 * never written (zero it once). 0, or -errno. */
int percpu_reader_init(struct percpu_reader *r, int map_fd, uint32_t nrows, size_t value_size, size_t out_size);
/* Fills out[nrows * out_words] with the per-CPU sums. 0, or -errno. */
int percpu_reader_read(struct percpu_reader *r, uint64_t *out);
void percpu_reader_free(struct percpu_reader *r);

#endif
