#include "libcore/engine/percpu_read.h"

#include "libcore/engine/map_layout.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>

int percpu_reader_init(struct percpu_reader *r, int map_fd, uint32_t nrows, size_t value_size,
			      size_t out_size)
{
	int e;

	memset(r, 0, sizeof(*r));
	if (value_size % 8 || out_size % 8 || out_size < value_size)
		return -EINVAL;
	r->nrows = nrows;
	r->words = value_size / 8;
	r->out_words = out_size / 8;
	/* A per-CPU map gives one value per possible CPU, a shared one (map_layout.h) one. */
	r->ncpus = map_value_copies(map_fd);
	if (r->ncpus <= 0)
		return r->ncpus ? r->ncpus : -EINVAL;
	e = map_dump_init(&r->dump, map_fd, false, sizeof(uint32_t), (size_t)r->ncpus * value_size, nrows);
	r->raw = (uint64_t *)r->dump.values;
	return e;
}

int percpu_reader_read(struct percpu_reader *r, uint64_t *out)
{
	int err = map_dump_read(&r->dump);

	if (err)
		return err;
	if (r->dump.count != r->nrows)
		return -EIO; /* an array has every row */
	for (uint32_t i = 0; i < r->nrows; i++)
		memset(out + (size_t)i * r->out_words, 0, r->words * sizeof(uint64_t));
	for (uint32_t i = 0; i < r->dump.count; i++) {
		uint32_t row;
		const uint64_t *src = r->raw + (size_t)i * r->ncpus * r->words;
		uint64_t *dst;

		memcpy(&row, r->dump.keys + (size_t)i * sizeof(row), sizeof(row)); /* batches come with their keys */
		if (row >= r->nrows)
			continue;
		dst = out + (size_t)row * r->out_words;
		for (int cpu = 0; cpu < r->ncpus; cpu++)
			for (size_t w = 0; w < r->words; w++)
				dst[w] += src[(size_t)cpu * r->words + w];
	}
	return 0;
}

void percpu_reader_free(struct percpu_reader *r)
{
	map_dump_free(&r->dump);
	r->raw = NULL;
}
