#include "libcore/engine/map_dump.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's own ENOTSUPP, which 5.10 returns for batch ops on arrays; errno.h has no
 * name for it (ENOTSUP is 95). */
#define KERNEL_ENOTSUPP 524

int map_dump_init(struct map_dump *d, int fd, bool hash, uint32_t key_size, size_t value_size, uint32_t max_entries)
{
	memset(d, 0, sizeof(*d));
	d->fd = fd;
	d->hash = hash;
	d->key_size = key_size;
	d->value_size = value_size;
	d->max_entries = max_entries;
	d->keys = calloc(max_entries ? max_entries : 1, key_size);
	d->values = calloc(max_entries ? max_entries : 1, value_size);
	if (!d->keys || !d->values) {
		map_dump_free(d);
		return -ENOMEM;
	}
	return 0;
}

static bool batch_unsupported(int e)
{
	return e == -EINVAL || e == -ENOTSUP || e == -EOPNOTSUPP || e == -ENOSYS || e == -KERNEL_ENOTSUPP;
}

/* Batches until the kernel says ENOENT (no more entries). The cursor is the kernel's own
 * (a bucket for hashes, an index for arrays): at most 8 bytes. */
static int read_batch(struct map_dump *d)
{
	uint64_t cursor = 0;
	void *in = NULL;

	d->count = 0;
	while (d->count < d->max_entries) {
		uint32_t n = d->max_entries - d->count;
		int e = bpf_map_lookup_batch(d->fd, in, &cursor, d->keys + (size_t)d->count * d->key_size,
					     d->values + (size_t)d->count * d->value_size, &n, NULL);

		d->syscalls++;
		d->count += n;
		/* ENOENT: the last batch. ENOSPC: a bucket holds more entries than the room left,
		 * which only entries added during this read can make: they wait for the next. */
		if (e)
			return errno == ENOENT || (errno == ENOSPC && d->count) ? 0 : -errno;
		in = &cursor;
	}
	return 0;
}

/* Hash: the keys in the kernel's order, each looked up; an entry deleted between the two
 * calls is left out (its events are gone from the map), and the walk goes on from its key
 * (the kernel restarts a walk from a key it no longer has). Array: every index. */
static int read_per_entry(struct map_dump *d)
{
	uint8_t *prev = NULL;

	d->count = 0;
	while (d->count < d->max_entries) {
		uint8_t *key = d->keys + (size_t)d->count * d->key_size;
		uint8_t *value = d->values + (size_t)d->count * d->value_size;

		if (d->hash) {
			d->syscalls++;
			if (bpf_map_get_next_key(d->fd, prev, key)) /* prev may be key: copied in first */
				return errno == ENOENT ? 0 : -errno;
		} else {
			uint32_t index = d->count;

			memset(key, 0, d->key_size);
			memcpy(key, &index, d->key_size < 4 ? d->key_size : 4);
		}
		prev = key;
		d->syscalls++;
		if (bpf_map_lookup_elem(d->fd, key, value)) {
			if (d->hash && errno == ENOENT)
				continue; /* this slot is taken by the next key */
			return -errno;
		}
		d->count++;
	}
	return 0;
}

int map_dump_read(struct map_dump *d)
{
	int e = -EINVAL;

	d->syscalls = 0;
	if (!d->no_batch) {
		e = read_batch(d);
		if (batch_unsupported(e))
			d->no_batch = true;
	}
	if (d->no_batch)
		e = read_per_entry(d);
	return e;
}

void map_dump_free(struct map_dump *d)
{
	free(d->keys);
	free(d->values);
	d->keys = NULL;
	d->values = NULL;
}
