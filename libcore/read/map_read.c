#include "libcore/read/map_read.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>

int map_is_percpu(int fd)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	return info.type == BPF_MAP_TYPE_PERCPU_ARRAY || info.type == BPF_MAP_TYPE_PERCPU_HASH ||
	       info.type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

int map_read_init(struct map_read *r, int fd, bool hash, uint32_t key_size, size_t value_size,
		  uint32_t max_entries)
{
	int percpu = fd < 0 ? -EBADF : map_is_percpu(fd);

	memset(r, 0, sizeof(*r));
	if (percpu < 0)
		return percpu;
	r->copies = percpu ? libbpf_num_possible_cpus() : 1;
	if (r->copies <= 0)
		return r->copies ? r->copies : -EINVAL;
	/* The kernel lays a per-CPU value's copies 8 bytes apart. */
	r->copy_size = percpu ? (value_size + 7) & ~(size_t)7 : value_size;
	return map_dump_init(&r->dump, fd, hash, key_size, (size_t)r->copies * r->copy_size, max_entries);
}

int map_read_take(struct map_read *r, uint32_t i)
{
	const void *key = r->dump.keys + (size_t)i * r->dump.key_size;
	void *value = r->dump.values + (size_t)i * r->dump.value_size;

	if (!r->no_take_op) {
		int e = bpf_map_lookup_and_delete_elem(r->dump.fd, key, value) ? -errno : 0;

		if (!map_dump_no_batch_here(e)) /* the same answers say that an op is missing */
			return e;
		r->no_take_op = true; /* 5.10's hashes: ENOTSUPP (524) */
	}
	if (bpf_map_lookup_elem(r->dump.fd, key, value))
		return -errno;
	return bpf_map_delete_elem(r->dump.fd, key) ? -errno : 0;
}

void map_read_free(struct map_read *r)
{
	map_dump_free(&r->dump);
}
