#include "libcore/kernel/tracepoint_btf.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Skips typedefs and const/volatile/restrict down to the type that has a shape. */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

int tracepoint_btf_args(const char *name, struct tracepoint_args *out)
{
	const struct btf_type *t;
	const struct btf_param *params;
	struct btf *btf;
	char tname[128];
	int id, vlen;

	memset(out, 0, sizeof(*out));
	out->nargs = -1;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return -errno;
	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	/* typedef -> pointer -> func_proto(void *__data, args...) */
	t = id > 0 ? skip_mods(btf, id) : NULL;
	if (t && btf_is_ptr(t))
		t = skip_mods(btf, t->type);
	if (t && btf_is_func_proto(t)) {
		vlen = btf_vlen(t);
		params = btf_params(t);
		out->nargs = vlen > 0 ? vlen - 1 : 0;
		for (int i = 1; i < vlen && i - 1 < (int)(sizeof(out->is_pointer) / sizeof(out->is_pointer[0])); i++) {
			const struct btf_type *a = skip_mods(btf, params[i].type);

			out->is_pointer[i - 1] = a && btf_is_ptr(a);
		}
	}
	btf__free(btf);
	return 0;
}
