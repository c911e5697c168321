#include "tests/support/mib_walk.h"

#include <string.h>

/* 1 if b is strictly after a in OID order. */
static int after(const uint32_t *a, size_t alen, const uint32_t *b, size_t blen)
{
	for (size_t i = 0; i < alen && i < blen; i++)
		if (a[i] != b[i])
			return b[i] > a[i];
	return blen > alen;
}

const char *mib_walk_all(const struct mib_tree *v, const struct mib_env *env, size_t max_steps,
			 struct mib_walk *out)
{
	uint32_t cur[MIB_MAX_SUFFIX] = { 0 }, next[MIB_MAX_SUFFIX];
	size_t cur_len = 0, next_len;
	struct mib_value val, again;
	bool inclusive = true;

	memset(out, 0, sizeof(*out));
	while (out->count < max_steps &&
	       mib_tree_next(v, env, cur, cur_len, inclusive, next, &next_len, &val) == MIB_FOUND) {
		if (next_len == 0 || next_len > v->room)
			return "GETNEXT returned an OID longer than the room below the base";
		if (cur_len && !after(cur, cur_len, next, next_len))
			return "GETNEXT returned an OID not after the one asked for";
		if (mib_tree_get(v, env, next, next_len, &again) != MIB_FOUND)
			return "GET of an OID that GETNEXT returned found nothing";
		if (again.type != val.type || again.num != val.num ||
		    (val.type == MIB_STRING && strcmp(again.str, val.str)))
			return "GET of an OID that GETNEXT returned gave another value";
		if (next_len > 2 && next[1] == 8)
			out->per_cgroup_table[next[2] < 5 ? next[2] : 0]++;
		else
			out->per_table[next_len > 1 && next[1] < 7 ? next[1] : 0]++;
		out->count++;
		memcpy(cur, next, next_len * sizeof(*cur));
		cur_len = next_len;
		inclusive = false;
	}
	return NULL;
}
