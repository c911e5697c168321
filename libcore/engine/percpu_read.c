#include "libcore/engine/percpu_read.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's own ENOTSUPP, which 5.10 returns for batch ops on arrays; errno.h has no
 * name for it (ENOTSUP is 95). */
#define KERNEL_ENOTSUPP 524

int percpu_reader_init(struct percpu_reader *r, int map_fd, uint32_t nrows, size_t value_size)
{
	return percpu_reader_init_prefix(r, map_fd, nrows, value_size, value_size);
}

int percpu_reader_init_prefix(struct percpu_reader *r, int map_fd, uint32_t nrows, size_t value_size,
			      size_t out_size)
{
	memset(r, 0, sizeof(*r));
	if (value_size % 8 || out_size % 8 || out_size < value_size)
		return -EINVAL;
	r->fd = map_fd;
	r->nrows = nrows;
	r->words = value_size / 8;
	r->out_words = out_size / 8;
	r->ncpus = libbpf_num_possible_cpus();
	if (r->ncpus <= 0)
		return r->ncpus ? r->ncpus : -EINVAL;
	r->raw = calloc((size_t)nrows * r->ncpus * r->words, sizeof(uint64_t));
	r->keys = calloc(nrows, sizeof(uint32_t));
	if (!r->raw || !r->keys) {
		percpu_reader_free(r);
		return -ENOMEM;
	}
	return 0;
}

static int read_batch(struct percpu_reader *r)
{
	uint32_t out_batch, got = 0;
	void *in = NULL;

	/* Array maps hand out every row in order; ENOENT marks the end, not an error. */
	while (got < r->nrows) {
		uint32_t count = r->nrows - got;
		int err = bpf_map_lookup_batch(r->fd, in, &out_batch, r->keys + got,
					       r->raw + (size_t)got * r->ncpus * r->words, &count, NULL);

		got += count;
		if (err) {
			if (errno == ENOENT)
				break;
			return -errno;
		}
		in = &out_batch;
	}
	return got == r->nrows ? 0 : -EIO;
}

static int read_per_row(struct percpu_reader *r)
{
	for (uint32_t k = 0; k < r->nrows; k++) {
		r->keys[k] = k;
		if (bpf_map_lookup_elem(r->fd, &k, r->raw + (size_t)k * r->ncpus * r->words))
			return -errno;
	}
	return 0;
}

int percpu_reader_read(struct percpu_reader *r, uint64_t *out)
{
	int err = -EINVAL;

	if (!r->no_batch) {
		err = read_batch(r);
		if (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP || err == -ENOSYS ||
		    err == -KERNEL_ENOTSUPP)
			r->no_batch = true; /* kernel without batch ops for arrays */
	}
	if (r->no_batch)
		err = read_per_row(r);
	if (err)
		return err;

	for (uint32_t i = 0; i < r->nrows; i++)
		memset(out + (size_t)i * r->out_words, 0, r->words * sizeof(uint64_t));
	for (uint32_t i = 0; i < r->nrows; i++) {
		uint32_t row = r->keys[i]; /* batch results come with their keys */
		const uint64_t *src = r->raw + (size_t)i * r->ncpus * r->words;
		uint64_t *dst = out + (size_t)row * r->out_words;

		if (row >= r->nrows)
			continue;
		for (int cpu = 0; cpu < r->ncpus; cpu++)
			for (size_t w = 0; w < r->words; w++)
				dst[w] += src[(size_t)cpu * r->words + w];
	}
	return 0;
}

void percpu_reader_free(struct percpu_reader *r)
{
	free(r->raw);
	free(r->keys);
	r->raw = NULL;
	r->keys = NULL;
}
