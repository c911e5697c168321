/* A BPF object's read-only globals by name, before load: the variable's place in the
 * .rodata section comes from the object's BTF (its DATASEC), and libbpf keeps the
 * section's initial image writable until load, which freezes it. So the engine needs no
 * skeleton struct at run time to set `filter_tgid`, nor a module's configure hook for its own
 * (whose names MODULE_RODATA checks against the skeleton when compiled: object_names.h). */
#include "libcore/engine/module.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <string.h>

/* The .rodata map: named "<object>.rodata", possibly truncated, so matched by suffix. */
static struct bpf_map *rodata_map(struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		size_t len = strlen(name);

		if (len >= 7 && !strcmp(name + len - 7, ".rodata"))
			return map;
	}
	return NULL;
}

void *module_rodata(struct bpf_object *obj, const char *name, size_t size)
{
	struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map = rodata_map(obj);
	const struct btf_type *sec;
	const struct btf_var_secinfo *vs;
	size_t image_size;
	char *image;
	int id;

	if (!btf || !map)
		return NULL;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (id < 0)
		return NULL;
	sec = btf__type_by_id(btf, id);
	/* Writable until load (libbpf keeps the image in memory of its own till then). */
	image = (char *)bpf_map__initial_value(map, &image_size);
	if (!image)
		return NULL;
	vs = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if ((size && vs->size != size) || vs->offset + vs->size > image_size)
			return NULL;
		return image + vs->offset;
	}
	return NULL;
}
