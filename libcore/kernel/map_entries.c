#include "libcore/kernel/map_entries.h"

#include "libcore/kernel/map_dump.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

/* Entries asked for per batch call; the walker doubles it when one hash bucket holds more. */
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

static int count_chunk(void *ctx, const uint8_t *keys, const uint8_t *values, uint32_t n)
{
	(void)keys;
	(void)values;
	*(uint32_t *)ctx += n;
	return 0;
}

/* Counts by the one map walker (map_dump.h), a chunk at a time so that a big per-CPU hash
 * is not copied whole for a count; keys only where it walks entry by entry. */
static int count_entries(int fd, uint32_t key_size, size_t value_size, uint32_t max_entries, bool batch,
			 uint32_t *entries)
{
	struct map_dump d;
	uint32_t total = 0;
	int r = map_dump_init_chunked(&d, fd, true, key_size, value_size, max_entries, BATCH_FIRST_CHUNK);

	if (r)
		return r;
	d.keys_only = true;
	d.no_batch = !batch;
	r = map_dump_each(&d, count_chunk, &total);
	map_dump_free(&d);
	if (!r)
		*entries = total;
	return r;
}

int map_entries_count_walk(int fd, uint32_t key_size, uint32_t max_entries, uint32_t *entries)
{
	return count_entries(fd, key_size, 1 /* no value is looked up */, max_entries, false, entries);
}

int map_entries_count(int fd, uint32_t *entries)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	return count_entries(fd, info.key_size, value_bytes(&info), info.max_entries, true, entries);
}
