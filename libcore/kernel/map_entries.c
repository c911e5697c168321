#include "libcore/kernel/map_entries.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

/* Entries asked for per batch call; doubled when one hash bucket holds more (ENOSPC). */
#define BATCH_FIRST_CHUNK 256u

bool map_type_can_fill(uint32_t type)
{
	return type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_HASH ||
	       type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

bool map_created(const struct bpf_map *map)
{
	return bpf_map__autocreate(map) && bpf_map__fd(map) >= 0;
}

static bool is_percpu(uint32_t type)
{
	return type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

/* Bytes one entry's value takes in a lookup's buffer: per-CPU values come one per possible
 * CPU, each rounded up to 8 bytes. */
static size_t value_bytes(const struct bpf_map_info *info)
{
	int ncpus;

	if (!is_percpu(info->type))
		return info->value_size;
	ncpus = libbpf_num_possible_cpus();
	return (size_t)((info->value_size + 7) & ~7u) * (ncpus > 0 ? (size_t)ncpus : 1);
}

/* -EINVAL / -ENOTSUPP (524) / -EOPNOTSUPP: this kernel has no batch lookup for the map. */
static int count_batch(int fd, const struct bpf_map_info *info, uint32_t *entries)
{
	size_t vbytes = value_bytes(info);
	uint32_t chunk = BATCH_FIRST_CHUNK, total = 0;
	uint64_t in_batch = 0, out_batch = 0; /* a hash's batch token is a u32 bucket index */
	void *keys = NULL, *values = NULL;
	bool first = true;
	int r;

	if (chunk > info->max_entries)
		chunk = info->max_entries ? info->max_entries : 1;
	for (;;) {
		__u32 count = chunk;

		if (!keys) {
			keys = malloc((size_t)chunk * info->key_size);
			values = malloc((size_t)chunk * vbytes);
			if (!keys || !values) {
				r = -ENOMEM;
				break;
			}
		}
		r = bpf_map_lookup_batch(fd, first ? NULL : &in_batch, &out_batch, keys, values, &count, NULL);
		if (r == -ENOSPC && count == 0) { /* one bucket holds more than a chunk */
			chunk *= 2;
			free(keys);
			free(values);
			keys = values = NULL;
			continue;
		}
		if (r && r != -ENOENT)
			break;
		total += count;
		if (r == -ENOENT) { /* the last chunk */
			r = 0;
			break;
		}
		in_batch = out_batch;
		first = false;
	}
	free(keys);
	free(values);
	if (!r)
		*entries = total;
	return r;
}

int map_entries_count_walk(int fd, uint32_t key_size, uint32_t max_entries, uint32_t *entries)
{
	unsigned char *key = malloc(key_size), *next = malloc(key_size);
	uint32_t total = 0;
	int r;

	if (!key || !next) {
		free(key);
		free(next);
		return -ENOMEM;
	}
	r = bpf_map_get_next_key(fd, NULL, next);
	/* A key deleted under the walk sends get_next_key back to the first key: the cap
	 * keeps such a walk finite and the count within the map's size. */
	while (!r && total < max_entries) {
		total++;
		memcpy(key, next, key_size);
		r = bpf_map_get_next_key(fd, key, next);
	}
	free(key);
	free(next);
	if (r && r != -ENOENT)
		return r;
	*entries = total;
	return 0;
}

int map_entries_count(int fd, uint32_t *entries)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	int r;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	r = count_batch(fd, &info, entries);
	if (r == -EINVAL || r == -EOPNOTSUPP || r == -524 /* ENOTSUPP */)
		r = map_entries_count_walk(fd, info.key_size, info.max_entries, entries);
	return r;
}
