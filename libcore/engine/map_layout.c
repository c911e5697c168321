#include "libcore/engine/map_layout.h"

#include "libcore/engine/module.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool has_histograms(const struct map_view *v)
{
	for (int i = 0; i < v->nfields; i++)
		if (v->fields[i].kind == VALUE_HISTOGRAM)
			return true;
	return false;
}

static uint64_t round8(uint64_t n)
{
	return (n + 7) & ~7ull;
}

/* Whether the view's map keeps its per-CPU copies (map_layout.h, the rule). */
static bool stays_percpu(const struct map_view *v, const struct bpf_map *map, int ncpus)
{
	if (v->per_cpu_feature)
		return true;
	if (has_histograms(v))
		return false;
	return round8(bpf_map__value_size(map)) * bpf_map__max_entries(map) * (uint64_t)ncpus <=
	       (v->hot ? MAP_LAYOUT_HOT_PERCPU_MAX_BYTES : MAP_LAYOUT_PERCPU_MAX_BYTES);
}

int map_layout_possible_cpus(const struct module *m)
{
	return m->layout.possible_cpus > 0 ? m->layout.possible_cpus : libbpf_num_possible_cpus();
}

int map_layout_plan(struct module *m, struct bpf_object *obj)
{
	int ncpus = map_layout_possible_cpus(m);

	if (m->layout.as_declared)
		return 0;
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	for (int i = 0; i < m->ops->nviews; i++) {
		const struct map_view *v = &m->ops->views[i];
		struct bpf_map *map;
		int e;

		/* Every view's map, read or not: a map the configuration does not use (syscalls'
		 * latency without Latency) is still created. */
		if (v->shape != VIEW_PERCPU_ARRAY)
			continue;
		map = bpf_object__find_map_by_name(obj, v->map);
		if (!map || bpf_map__type(map) != BPF_MAP_TYPE_PERCPU_ARRAY || stays_percpu(v, map, ncpus))
			continue;
		e = bpf_map__set_type(map, BPF_MAP_TYPE_ARRAY);
		if (e)
			return e;
	}
	return 0;
}

/* Sizes of the kernel's own structures, for the estimate only: as 6.18 on x86_64 charges
 * them (tests/engine/test_kernel_memory prints plan and charge side by side). */
#define KERNEL_ARRAY_HEADER 312u   /* struct bpf_array up to its value[] */
#define KERNEL_HTAB_HEADER 832u    /* struct bpf_htab */
#define KERNEL_STORAGE_MAP 480u    /* a task storage map before any task has an element */
#define KERNEL_RINGBUF_EXTRA 12872u /* a ring buffer's header pages and page pointers */
#define KERNEL_HTAB_ELEM 48u       /* struct htab_elem before the key */
#define KERNEL_HTAB_BUCKET 16u
#define KERNEL_HTAB_LOCKS 8u       /* HASHTAB_MAP_LOCK_COUNT ints per CPU */

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static uint64_t hash_bytes(enum bpf_map_type type, uint64_t entries, uint64_t key, uint64_t value, bool prealloc,
			   uint64_t ncpus)
{
	bool percpu = type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	bool lru = type == BPF_MAP_TYPE_LRU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	uint64_t elem = KERNEL_HTAB_ELEM + round8(key) + (percpu ? 8 : round8(value));
	uint64_t bytes = KERNEL_HTAB_HEADER + KERNEL_HTAB_BUCKET * pow2_at_least(entries) +
			 4ull * KERNEL_HTAB_LOCKS * ncpus;

	if (!prealloc)
		return bytes; /* elements are charged as they are made: none yet */
	/* A preallocated hash that is neither per-CPU nor LRU keeps one extra element per
	 * possible CPU (htab_has_extra_elems). */
	if (!percpu && !lru)
		entries += ncpus;
	bytes += elem * entries;
	if (percpu)
		bytes += round8(value) * ncpus * entries;
	else if (!lru)
		bytes += 8 * ncpus;
	return bytes;
}

uint64_t map_planned_bytes(const struct bpf_map *map, int possible_cpus)
{
	enum bpf_map_type type = bpf_map__type(map);
	uint64_t entries = bpf_map__max_entries(map), value = bpf_map__value_size(map), ncpus;

	ncpus = possible_cpus > 0 ? (uint64_t)possible_cpus : 1;
	switch (type) {
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return KERNEL_ARRAY_HEADER + 8 * entries + round8(value) * entries * ncpus;
	case BPF_MAP_TYPE_ARRAY:
		if (bpf_map__map_flags(map) & BPF_F_MMAPABLE)
			return 4096 + ((round8(value) * entries + 4095) & ~4095ull);
		return KERNEL_ARRAY_HEADER + round8(value) * entries;
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return hash_bytes(type, entries, bpf_map__key_size(map), value,
				  !(bpf_map__map_flags(map) & BPF_F_NO_PREALLOC), ncpus);
	case BPF_MAP_TYPE_RINGBUF:
		return entries + KERNEL_RINGBUF_EXTRA;
	default: /* task storage and the like: elements live with the tasks */
		return KERNEL_STORAGE_MAP;
	}
}

int map_charged_bytes(int fd, uint64_t *bytes)
{
	char path[64], line[256];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "memlock: %llu", &v) == 1) {
			*bytes = v;
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}
