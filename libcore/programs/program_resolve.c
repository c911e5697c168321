#include "libcore/programs/program_resolve.h"
#include "libcore/programs/kernel_addresses.h"

#include "bpf/include/hist_slot.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Appends ", name" (or the first name) to a list of what the object has, for messages that
 * say what there is instead; "..." when it does not fit. */
static void list_add(char *list, size_t len, const char *name)
{
	size_t used = strlen(list);

	if (used + strlen(name) + 6 >= len) {
		if (used + 5 < len && (used < 3 || strcmp(list + used - 3, "...")))
			snprintf(list + used, len - used, ", ...");
		return;
	}
	snprintf(list + used, len - used, "%s%s", used ? ", " : "", name);
}

static void list_maps(struct bpf_object *obj, char *list, size_t len)
{
	struct bpf_map *m;

	list[0] = '\0';
	bpf_object__for_each_map(m, obj)
		if (!bpf_map__is_internal(m))
			list_add(list, len, bpf_map__name(m));
}

static void list_programs(struct bpf_object *obj, char *list, size_t len)
{
	struct bpf_program *p;

	list[0] = '\0';
	bpf_object__for_each_program(p, obj)
		list_add(list, len, bpf_program__name(p));
}

/* The type behind typedefs, const and volatile. */
static const struct btf_type *resolved(const struct btf *btf, uint32_t id, uint32_t *out_id)
{
	int r = btf__resolve_type(btf, id);

	if (r < 0)
		return NULL;
	if (out_id)
		*out_id = (uint32_t)r;
	return btf__type_by_id(btf, (uint32_t)r);
}

/* Member `name` of the struct or union `type_id`: its byte offset and type. Bitfields are
 * refused: a label or a counter must be whole bytes. */
static int find_member(const struct btf *btf, uint32_t type_id, const char *name, uint32_t *offset,
		       uint32_t *member_type, char *why, size_t whylen)
{
	const struct btf_type *t = resolved(btf, type_id, NULL);
	const struct btf_member *m;

	if (!t || !(btf_is_struct(t) || btf_is_union(t))) {
		snprintf(why, whylen, "is not a struct, so it has no member \"%s\"", name);
		return -1;
	}
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), name))
			continue;
		if (btf_member_bitfield_size(t, i) || btf_member_bit_offset(t, i) % 8) {
			snprintf(why, whylen, "member \"%s\" is a bitfield", name);
			return -1;
		}
		*offset = btf_member_bit_offset(t, i) / 8;
		*member_type = m->type;
		return 0;
	}
	{
		char members[160] = "";

		m = btf_members(t);
		for (int i = 0; i < btf_vlen(t); i++, m++)
			list_add(members, sizeof(members), btf__name_by_offset(btf, m->name_off));
		snprintf(why, whylen, "%s has no member \"%s\" (its members: %s)",
			 btf__name_by_offset(btf, t->name_off)[0] ? btf__name_by_offset(btf, t->name_off) : "the struct",
			 name, members);
	}
	return -1;
}

/* An unsigned or signed integer of 4 or 8 bytes (a counter, a slot, a sum). */
static int integer_width(const struct btf *btf, uint32_t type_id)
{
	const struct btf_type *t = resolved(btf, type_id, NULL);

	if (!t || !btf_is_int(t))
		return 0;
	return (int)t->size;
}

/* For a key declared by key_size only (no BTF type): where its size comes from. */
static const char *key_size_note(uint32_t key_type)
{
	return key_type ? "" : " (its key_size; the labels' sizes and paddings must add up to it)";
}

/* CPUIndex on a per-CPU map: the label is each copy's CPU index, 2 bytes after the key (as
 * ebpf_exporter appends it), the last label, and the only CPU label. */
static int resolve_cpu_index(const struct program_view *v, struct program_label *l, char *err, size_t errlen)
{
	if (l != &v->labels[v->nlabels - 1] || l->field[0] || l->size != 2 || l->padding) {
		snprintf(err, errlen, "<Label \"%s\"> with CPUIndex is the CPU of each copy of the per-CPU map, which "
				      "ebpf_exporter appends to the key as 2 bytes: make it the last label, with Size 2 and "
				      "no Field or Padding", l->name);
		return -1;
	}
	if (v->percpu_given) {
		snprintf(err, errlen, "<Label \"%s\"> with CPUIndex names each CPU's copy already: leave out PerCPU",
			 l->name);
		return -1;
	}
	l->reads_cpu = true;
	l->offset = 0; /* not in the key: series_name() gives it the CPU's bytes */
	return decoder_chain_check(&l->decoders, l->size, err, errlen);
}

static int resolve_labels(struct program_view *v, const struct btf *btf, uint32_t key_type, uint32_t key_size,
			  bool percpu, uint32_t *end, char *err, size_t errlen)
{
	uint32_t at = 0;

	for (int i = 0; i < v->nlabels; i++) {
		struct program_label *l = &v->labels[i];
		char why[256];

		l->reads_cpu = false;
		if (l->cpu_index && percpu) {
			if (resolve_cpu_index(v, l, err, errlen))
				return -1;
			continue;
		}
		if (l->field[0]) {
			uint32_t mtype;
			int64_t size;

			if (!key_type) {
				snprintf(err, errlen, "<Label \"%s\">: Field \"%s\" needs the key's BTF type, and the map "
						      "declares its key by key_size only: give the label's Size instead, or "
						      "declare the key with __type(key, ...)", l->name, l->field);
				return -1;
			}
			if (find_member(btf, key_type, l->field, &l->offset, &mtype, why, sizeof(why))) {
				snprintf(err, errlen, "<Label \"%s\">: the key %s", l->name, why);
				return -1;
			}
			size = btf__resolve_size(btf, mtype);
			if (size <= 0) {
				snprintf(err, errlen, "<Label \"%s\">: member \"%s\" has no size", l->name, l->field);
				return -1;
			}
			l->size = (uint32_t)size;
		} else {
			l->offset = at;
		}
		if (l->offset < at) {
			snprintf(err, errlen, "<Label \"%s\"> starts at byte %u, inside the label before it: labels go in "
					      "key order", l->name, l->offset);
			return -1;
		}
		if (l->offset + l->size + l->padding > key_size) {
			snprintf(err, errlen, "<Label \"%s\"> covers bytes %u..%u%s, but the key has %u bytes%s", l->name,
				 l->offset, l->offset + l->size + l->padding - 1, l->padding ? " with its Padding" : "",
				 key_size, key_size_note(key_type));
			return -1;
		}
		if (decoder_chain_check(&l->decoders, l->size, err, errlen))
			return -1;
		at = l->offset + l->size + l->padding; /* Padding: bytes after the label, as ebpf_exporter */
	}
	*end = at;
	return 0;
}

/* "struct hist_row of 328 bytes", "an array of 160 bytes", "a 2-byte integer". */
static void describe_type(const struct btf *btf, uint32_t type_id, char *out, size_t len)
{
	const struct btf_type *t = resolved(btf, type_id, NULL);
	long long size = (long long)btf__resolve_size(btf, type_id);

	if (t && btf_is_int(t))
		snprintf(out, len, "a %lld-byte integer", size);
	else if (t && (btf_is_struct(t) || btf_is_union(t)))
		snprintf(out, len, "%s %s of %lld bytes", btf_is_struct(t) ? "struct" : "union",
			 btf__name_by_offset(btf, t->name_off)[0] ? btf__name_by_offset(btf, t->name_off) : "(anonymous)",
			 size);
	else
		snprintf(out, len, "%s of %lld bytes", t && btf_is_array(t) ? "an array" : "a type", size);
}

static int resolve_value_number(const struct program_view *v, const struct btf *btf, uint32_t value_type,
				struct view_layout *vl, char *err, size_t errlen)
{
	uint32_t type = value_type;
	char why[256];

	vl->value_offset = 0;
	if (!value_type) { /* declared by value_size: read as ebpf_exporter reads it, a whole number */
		if (v->value_field[0]) {
			snprintf(err, errlen, "ValueField \"%s\" needs the value's BTF type, and the map declares its "
					      "value by value_size only: declare it with __type(value, ...)", v->value_field);
			return -1;
		}
		if (vl->value_size != 8 && vl->value_size != 4) {
			snprintf(err, errlen, "the value has %u bytes (its value_size; the map has no BTF type for it), "
					      "not a 4- or 8-byte integer: a counter's value is a u64 (value_size 8)",
				 vl->value_size);
			return -1;
		}
		vl->value_width = vl->value_size;
		return 0;
	}
	if (v->value_field[0] &&
	    find_member(btf, value_type, v->value_field, &vl->value_offset, &type, why, sizeof(why))) {
		snprintf(err, errlen, "ValueField: the value %s", why);
		return -1;
	}
	vl->value_width = (uint32_t)integer_width(btf, type);
	if (vl->value_width != 8 && vl->value_width != 4) {
		char what[128];

		describe_type(btf, type, what, sizeof(what));
		snprintf(err, errlen, "the value%s%s is %s, not a 4- or 8-byte integer%s", v->value_field[0] ? " member " : "",
			 v->value_field, what, v->value_field[0] ? "" : "; name the member with ValueField \"count\"");
		return -1;
	}
	return 0;
}

static int resolve_hist_value(const struct program_view *v, const struct btf *btf, uint32_t value_type,
			      struct view_layout *vl, char *err, size_t errlen)
{
	const struct btf_type *t;
	uint32_t slots_type, sum_type;
	char why[256];

	if (!value_type) {
		snprintf(err, errlen, "SlotsField \"%s\" needs the value's BTF type, and the map declares its value by "
				      "value_size only: declare it with __type(value, ...)", v->slots_field);
		return -1;
	}
	if (find_member(btf, value_type, v->slots_field, &vl->slots_offset, &slots_type, why, sizeof(why))) {
		snprintf(err, errlen, "SlotsField: the value %s", why);
		return -1;
	}
	t = resolved(btf, slots_type, NULL);
	if (!t || !btf_is_array(t) || !btf_array(t)->nelems) {
		snprintf(err, errlen, "SlotsField \"%s\" is not an array of slot counts", v->slots_field);
		return -1;
	}
	vl->nslots = btf_array(t)->nelems;
	vl->slot_width = (uint32_t)integer_width(btf, btf_array(t)->type);
	if (vl->slot_width != 4 && vl->slot_width != 8) {
		snprintf(err, errlen, "SlotsField \"%s\": slots must be u32 or u64", v->slots_field);
		return -1;
	}
	if (v->sum_field[0]) {
		if (find_member(btf, value_type, v->sum_field, &vl->sum_offset, &sum_type, why, sizeof(why))) {
			snprintf(err, errlen, "SumField: the value %s", why);
			return -1;
		}
		if (integer_width(btf, sum_type) != 8) {
			snprintf(err, errlen, "SumField \"%s\" must be a u64 (the exact sum of the values)", v->sum_field);
			return -1;
		}
		vl->has_sum = true;
	}
	if (v->buckets == SLOTS_NATIVE && (vl->nslots != HIST_SLOTS || vl->slot_width != 8 || !vl->has_sum)) {
		snprintf(err, errlen,
			 "Buckets \"native\" is the plugin's struct hist_row (%u u64 slots and a u64 sum: record with "
			 "hist_record() from hist_row.bpf.h); \"%s\" has %u slots of %u bytes%s. Rebuild the program "
			 "with this plugin's collectd-ebpf-cc, or name its convention",
			 HIST_SLOTS, v->slots_field, vl->nslots, vl->slot_width, vl->has_sum ? "" : " and no SumField");
		return -1;
	}
	if (v->buckets == SLOTS_LINEAR && vl->nslots > v->linear_count + 2) {
		snprintf(err, errlen, "Buckets \"linear\" with COUNT %u has %u slots (below MIN, %u of WIDTH, the rest), "
			 "the map has %u: give the COUNT of the program's slots", v->linear_count, v->linear_count + 2,
			 v->linear_count, vl->nslots);
		return -1;
	}
	if (v->buckets == SLOTS_FIXED && vl->nslots > (uint32_t)v->nfixed_bounds + 1) {
		snprintf(err, errlen, "Buckets \"fixed\" names %d bounds, the map has %u slots (at most %d used)",
			 v->nfixed_bounds, vl->nslots, v->nfixed_bounds + 1);
		return -1;
	}
	return 0;
}

/* The map's kind into vl (per-CPU, hash); -1 for a kind collectd does not read. */
static int set_map_kind(const struct program_view *v, const struct bpf_map *map, struct view_layout *vl, char *err,
			size_t errlen)
{
	enum bpf_map_type mt = bpf_map__type(map);

	switch (mt) {
	case BPF_MAP_TYPE_ARRAY: break;
	case BPF_MAP_TYPE_PERCPU_ARRAY: vl->percpu = true; break;
	case BPF_MAP_TYPE_HASH: case BPF_MAP_TYPE_LRU_HASH: vl->hash = true; break;
	case BPF_MAP_TYPE_PERCPU_HASH: case BPF_MAP_TYPE_LRU_PERCPU_HASH: vl->hash = vl->percpu = true; break;
	default:
		snprintf(err, errlen, "map \"%s\" is a %s; collectd reads arrays and hashes (per-CPU or not, LRU too)",
			 v->map, libbpf_bpf_map_type_str(mt) ? libbpf_bpf_map_type_str(mt) : "map of another type");
		return -1;
	}
	return 0;
}

/* The view's map: its kind and sizes into vl, the BTF ids of its key and value. */
static int resolve_map(const struct program_view *v, struct bpf_object *obj, struct view_layout *vl,
		       uint32_t *key_type, uint32_t *value_type, char *err, size_t errlen)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map = bpf_object__find_map_by_name(obj, v->map);

	if (!map) {
		char maps[256];

		list_maps(obj, maps, sizeof(maps));
		snprintf(err, errlen, "the object has no map \"%s\" (its maps: %s)", v->map, maps[0] ? maps : "none");
		return -1;
	}
	if (set_map_kind(v, map, vl, err, errlen))
		return -1;
	/* 0 for a key or value declared by its size only (__uint(key_size, N), as ebpf_exporter's
	 * regexp example declares its map): labels then go by Size, a counter is the value's
	 * size (resolve_labels, resolve_value_number). */
	*key_type = btf ? bpf_map__btf_key_type_id(map) : 0;
	*value_type = btf ? bpf_map__btf_value_type_id(map) : 0;
	vl->key_size = bpf_map__key_size(map);
	vl->value_size = bpf_map__value_size(map);
	vl->max_entries = bpf_map__max_entries(map);
	if (v->percpu_given && !vl->percpu) {
		snprintf(err, errlen, "PerCPU: map \"%s\" is not a per-CPU map", v->map);
		return -1;
	}
	return 0;
}

/* Layout "key": the bucket index is the key's part after the labels, the value a count. */
static int resolve_key_buckets(const struct program_view *v, const struct btf *btf, uint32_t value_type,
			       uint32_t labels_end, struct view_layout *vl, char *err, size_t errlen)
{
	vl->bucket_offset = labels_end;
	vl->bucket_width = vl->key_size - labels_end;
	if (vl->bucket_width != 1 && vl->bucket_width != 2 && vl->bucket_width != 4 && vl->bucket_width != 8) {
		snprintf(err, errlen,
			 "Layout \"key\": after the labels (%u bytes) the key's last %u bytes should be the bucket "
			 "index (1, 2, 4 or 8 bytes); declare the key's other parts as labels (Size/Padding)",
			 labels_end, vl->bucket_width);
		return -1;
	}
	vl->nslots = vl->hash ? 0 : vl->max_entries;
	vl->has_sum = v->key_range; /* ebpf_exporter's sum is the bucket after key_max */
	return resolve_value_number(v, btf, value_type, vl, err, errlen);
}

static int resolve_view(struct program_view *v, struct bpf_object *obj, struct view_layout *vl, char *err,
			size_t errlen)
{
	const struct btf *btf = bpf_object__btf(obj);
	uint32_t key_type, value_type, labels_end;

	if (resolve_map(v, obj, vl, &key_type, &value_type, err, errlen))
		return -1;
	if (resolve_labels(v, btf, key_type, vl->key_size, vl->percpu, &labels_end, err, errlen))
		return -1;
	if (v->kind == VIEW_KIND_HISTOGRAM && v->layout == HIST_LAYOUT_KEY)
		return resolve_key_buckets(v, btf, value_type, labels_end, vl, err, errlen);
	/* An array's index is its key: without labels it is one series only if it has one row. */
	if (labels_end != vl->key_size && !(labels_end == 0 && !vl->hash && vl->max_entries == 1)) {
		snprintf(err, errlen,
			 "the labels cover %u of the key's %u bytes%s; describe the rest with <Label> (Field, or Size "
			 "and Padding for bytes to skip)", labels_end, vl->key_size,
			 key_size_note(key_type));
		return -1;
	}
	if (v->kind == VIEW_KIND_HISTOGRAM)
		return resolve_hist_value(v, btf, value_type, vl, err, errlen);
	return resolve_value_number(v, btf, value_type, vl, err, errlen);
}

/* Whether `name` is one of libbpf's own externs (`__kconfig` in .kconfig, `__ksym` in .ksyms):
 * libbpf fills them in from the running kernel at load, and which ones an object carries
 * depends on the libbpf headers it was built with (1.5's BPF_KSYSCALL adds
 * LINUX_HAS_SYSCALL_WRAPPER), so they are neither listed nor settable as a Param. */
static bool is_libbpf_section(const char *sec)
{
	return !strcmp(sec, ".kconfig") || !strcmp(sec, ".ksyms");
}

static const char *libbpf_extern_section(const struct btf *btf, const char *name)
{
	static const char *const secs[] = { ".kconfig", ".ksyms" };

	for (size_t s = 0; s < sizeof(secs) / sizeof(secs[0]); s++) {
		int id = btf__find_by_name_kind(btf, secs[s], BTF_KIND_DATASEC);
		const struct btf_var_secinfo *vs;
		const struct btf_type *ds;

		if (id < 0)
			continue;
		ds = btf__type_by_id(btf, (uint32_t)id);
		vs = btf_var_secinfos(ds);
		for (int i = 0; i < btf_vlen(ds); i++, vs++)
			if (!strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, vs->type)->name_off), name))
				return secs[s];
	}
	return NULL;
}

/* The global `name` in one of the object's data sections: its map and offset and type. When
 * it is not there, `names` lists the globals there are (libbpf's externs are not globals). */
static int find_global(struct bpf_object *obj, const char *name, struct bpf_map **map, uint32_t *offset,
		       uint32_t *type_id, uint32_t *size, char *names, size_t nameslen)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *m;

	names[0] = '\0';
	if (!btf)
		return -1;
	bpf_object__for_each_map(m, obj) {
		const char *mname = bpf_map__name(m), *sec = strrchr(mname, '.');
		const struct btf_var_secinfo *vs;
		const struct btf_type *ds;
		int id;

		if (!bpf_map__is_internal(m) || !sec || is_libbpf_section(sec))
			continue;
		id = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC);
		if (id < 0)
			continue;
		ds = btf__type_by_id(btf, (uint32_t)id);
		vs = btf_var_secinfos(ds);
		for (int i = 0; i < btf_vlen(ds); i++, vs++) {
			const struct btf_type *var = btf__type_by_id(btf, vs->type);

			if (strcmp(btf__name_by_offset(btf, var->name_off), name)) {
				list_add(names, nameslen, btf__name_by_offset(btf, var->name_off));
				continue;
			}
			*map = m;
			*offset = vs->offset;
			*type_id = var->type;
			*size = vs->size;
			return 0;
		}
	}
	return -1;
}

/* Where Param p's global is in its section's initial value (writable until load), with
 * its BTF type and size; NULL with err set when there is none to set. */
static char *param_global(const struct program_param *p, struct bpf_object *obj, uint32_t *type_id, uint32_t *size,
			  char *err, size_t errlen)
{
	const struct btf *btf = bpf_object__btf(obj);
	uint32_t offset;
	struct bpf_map *map;
	size_t data_size;
	char *data, globals[256];
	const char *extern_sec = btf ? libbpf_extern_section(btf, p->name) : NULL;

	if (extern_sec) {
		/* no global is named "": this only lists them */
		find_global(obj, "", &map, &offset, type_id, size, globals, sizeof(globals));
		snprintf(err, errlen, "Param \"%s\": that is an extern in %s, which libbpf sets from the running kernel "
				      "at load, not a global of the object (its globals: %s)", p->name, extern_sec,
			 globals[0] ? globals : "none");
		return NULL;
	}
	if (find_global(obj, p->name, &map, &offset, type_id, size, globals, sizeof(globals))) {
		snprintf(err, errlen, "Param \"%s\": the object has no global variable of that name (its globals: %s; "
				      "declare it as `const volatile` or a plain global)", p->name, globals[0] ? globals : "none");
		return NULL;
	}
	/* Writable until load (skeletons write their globals here too); libbpf 1.1 types it const. */
	data = (char *)bpf_map__initial_value(map, &data_size);
	if (!data || offset + *size > data_size) {
		snprintf(err, errlen, "Param \"%s\": its section cannot be set before load", p->name);
		return NULL;
	}
	return data + offset;
}

/* A number Param into an integer global that holds it. */
static int set_number_param(const struct program_param *p, const struct btf *btf, uint32_t type_id, char *dst,
			    char *err, size_t errlen)
{
	const struct btf_type *t = resolved(btf, type_id, NULL);
	bool is_signed;
	double v = p->number;

	if (!t || !btf_is_int(t) || (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)) {
		char what[128];

		describe_type(btf, type_id, what, sizeof(what));
		snprintf(err, errlen, "Param \"%s\" is a number, but the global is %s, not an integer%s", p->name, what,
			 t && btf_is_array(t) && integer_width(btf, btf_array(t)->type) == 1
				 ? " (a string: put the value in double quotes)" : "");
		return -1;
	}
	is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
	if (v != floor(v) || (!is_signed && v < 0) ||
	    fabs(v) >= ldexp(1.0, (int)(t->size * 8) - (is_signed ? 1 : 0))) {
		snprintf(err, errlen, "Param \"%s\" %g does not fit the global's %s%u-bit integer", p->name, v,
			 is_signed ? "signed " : "unsigned ", t->size * 8);
		return -1;
	}
	if (is_signed) {
		int64_t x = (int64_t)v;
		memcpy(dst, &x, t->size); /* little-endian: the low bytes first */
	} else {
		uint64_t x = (uint64_t)v;
		memcpy(dst, &x, t->size);
	}
	return 0;
}

/* A string Param into a char array global of size bytes, NUL included. */
static int set_text_param(const struct program_param *p, const struct btf *btf, uint32_t type_id, uint32_t size,
			  char *dst, char *err, size_t errlen)
{
	const struct btf_type *t = resolved(btf, type_id, NULL);

	if (!t || !btf_is_array(t) || integer_width(btf, btf_array(t)->type) != 1) {
		char what[128];

		describe_type(btf, type_id, what, sizeof(what));
		snprintf(err, errlen, "Param \"%s\" is a string, but the global is %s, not a char array%s", p->name, what,
			 t && btf_is_int(t) ? " (a number: write it without quotes)" : "");
		return -1;
	}
	if (strlen(p->text) + 1 > size) {
		snprintf(err, errlen, "Param \"%s\": \"%s\" needs %zu bytes with its NUL, the global has %u", p->name,
			 p->text, strlen(p->text) + 1, size);
		return -1;
	}
	memset(dst, 0, size);
	memcpy(dst, p->text, strlen(p->text));
	return 0;
}

static int set_param(const struct program_param *p, struct bpf_object *obj, char *err, size_t errlen)
{
	uint32_t type_id, size;
	char *dst = param_global(p, obj, &type_id, &size, err, errlen);

	if (!dst)
		return -1;
	if (p->is_number)
		return set_number_param(p, bpf_object__btf(obj), type_id, dst, err, errlen);
	return set_text_param(p, bpf_object__btf(obj), type_id, size, dst, err, errlen);
}

/* KernelAddress: each symbol's address into its `kaddr_<symbol>`, an 8-byte integer global,
 * as ebpf_exporter's kaddrs. */
static int set_kaddrs(const struct program_config *c, struct bpf_object *obj, char *err, size_t errlen)
{
	const char *names[PROGRAM_MAX_KADDRS];
	uint64_t addrs[PROGRAM_MAX_KADDRS];
	char why[512];

	if (!c->nkaddrs)
		return 0;
	for (int i = 0; i < c->nkaddrs; i++)
		names[i] = c->kaddrs[i];
	if (kernel_addresses_find("/proc/kallsyms", names, c->nkaddrs, addrs, why, sizeof(why))) {
		snprintf(err, errlen, "KernelAddress: %s", why);
		return -1;
	}
	for (int i = 0; i < c->nkaddrs; i++) {
		const struct btf *btf = bpf_object__btf(obj);
		const struct btf_type *t;
		uint32_t offset, type_id, size;
		struct bpf_map *map;
		size_t data_size;
		char *data, globals[256], global[PROGRAM_NAME_MAX + 8];

		snprintf(global, sizeof(global), "kaddr_%s", c->kaddrs[i]);
		if (find_global(obj, global, &map, &offset, &type_id, &size, globals, sizeof(globals))) {
			snprintf(err, errlen, "KernelAddress \"%s\": the object has no global %s (its globals: %s; declare "
					      "`const volatile u64 %s`)", c->kaddrs[i], global, globals[0] ? globals : "none",
				 global);
			return -1;
		}
		t = resolved(btf, type_id, NULL);
		data = (char *)bpf_map__initial_value(map, &data_size);
		if (!t || !btf_is_int(t) || t->size != 8 || size != 8) {
			snprintf(err, errlen, "KernelAddress \"%s\": %s must be an 8-byte integer (`const volatile u64 %s`)",
				 c->kaddrs[i], global, global);
			return -1;
		}
		if (!data || offset + 8 > data_size) {
			snprintf(err, errlen, "KernelAddress \"%s\": %s's section cannot be set before load", c->kaddrs[i],
				 global);
			return -1;
		}
		memcpy(data + offset, &addrs[i], 8);
	}
	return 0;
}

/* BPF_MAP_TYPE_CGRP_STORAGE (6.2), which Debian 12's headers do not name yet. */
#define MAP_TYPE_CGRP_STORAGE 32

/* CgroupIdMap: the map is there, of the type and sizes ebpf_exporter checks. */
static int check_cgroup_ids(const struct cgroup_id_map_config *g, struct bpf_object *obj, char *err, size_t errlen)
{
	struct bpf_map *map;
	enum bpf_map_type t;
	uint32_t key = g->cgrp_storage ? 4 : 8;

	if (!g->map[0])
		return 0;
	map = bpf_object__find_map_by_name(obj, g->map);
	if (!map) {
		snprintf(err, errlen, "cgroup id map \"%s\": the object has no map of that name", g->map);
		return -1;
	}
	t = bpf_map__type(map);
	if (g->cgrp_storage ? (int)t != MAP_TYPE_CGRP_STORAGE : (t != BPF_MAP_TYPE_HASH && t != BPF_MAP_TYPE_LRU_HASH)) {
		const char *type = libbpf_bpf_map_type_str(t);

		snprintf(err, errlen, "cgroup id map \"%s\" is of type %s: %s", g->map, type ? type : "unknown",
			 g->cgrp_storage ? "cgrp_storage takes a BPF_MAP_TYPE_CGRP_STORAGE"
					 : "hash takes a BPF_MAP_TYPE_HASH or LRU_HASH");
		return -1;
	}
	if (bpf_map__key_size(map) != key || bpf_map__value_size(map) != 8) {
		snprintf(err, errlen, "cgroup id map \"%s\" has a %u-byte key and a %u-byte value: type %s takes a %u-byte "
				      "key and a u64 value", g->map, bpf_map__key_size(map), bpf_map__value_size(map),
			 g->cgrp_storage ? "cgrp_storage" : "hash", key);
		return -1;
	}
	return 0;
}

int program_resolve(struct program_config *c, struct bpf_object *obj, struct program_layout *out, char *err,
		    size_t errlen)
{
	char why[768];

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < c->nprobes; i++)
		for (int j = 0; j < c->probes[i].nprograms; j++)
			if (!bpf_object__find_program_by_name(obj, c->probes[i].programs[j])) {
				list_programs(obj, why, sizeof(why));
				snprintf(err, errlen, "<Probe \"%s\">: the object has no program \"%s\" (its programs: %s)",
					 c->probes[i].name, c->probes[i].programs[j], why);
				return -1;
			}
	for (int i = 0; i < c->nskip; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(obj, c->skip[i]);

		if (!p) {
			list_programs(obj, why, sizeof(why));
			snprintf(err, errlen, "Skip \"%s\": the object has no such program (its programs: %s)", c->skip[i],
				 why);
			return -1;
		}
		bpf_program__set_autoload(p, false);
	}
	for (int i = 0; i < c->nparams; i++)
		if (set_param(&c->params[i], obj, err, errlen))
			return -1;
	if (set_kaddrs(c, obj, err, errlen) || check_cgroup_ids(&c->cgroup_ids, obj, err, errlen))
		return -1;
	for (int i = 0; i < c->nviews; i++)
		if (resolve_view(&c->views[i], obj, &out->views[i], why, sizeof(why))) {
			snprintf(err, errlen, "<%s \"%s\">: %s", program_view_kind_name(c->views[i].kind), c->views[i].map, why);
			return -1;
		}
	return 0;
}
