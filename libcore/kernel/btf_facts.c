#include "libcore/kernel/btf_facts.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>

struct btf *btf_facts_open(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf) /* libbpf 1.x returns NULL with errno set */
		return NULL;
	return btf;
}

void btf_facts_close(struct btf *btf)
{
	btf__free(btf);
}

int btf_tracepoint_nargs(const struct btf *btf, const char *name)
{
	char tname[128];
	const struct btf_type *t;
	int id;

	if (snprintf(tname, sizeof(tname), "btf_trace_%s", name) >= (int)sizeof(tname))
		return -1;
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	/* typedef void (*btf_trace_X)(void *, args...): typedef -> pointer -> func proto */
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -1;
	return btf_vlen(t) - 1;
}

bool btf_has_struct(const struct btf *btf, const char *name)
{
	return btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT) > 0;
}

bool btf_enum_value(const struct btf *btf, const char *name, long long *value)
{
	unsigned int n = btf__type_cnt(btf);

	for (unsigned int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (int i = 0; i < btf_vlen(t); i++, e++) {
				if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
					*value = e->val;
					return true;
				}
			}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (int i = 0; i < btf_vlen(t); i++, e++) {
				if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
					*value = (long long)btf_enum64_value(e);
					return true;
				}
			}
		}
	}
	return false;
}
