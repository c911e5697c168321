/* libFuzzer target for the MIB tree (snmp/mib_tree.c), built with ASan and UBSan: the input
 * is a snapshot file; whatever the parser accepts is served under a base OID whose length
 * the input also picks (so the room below it varies). Then a whole walk must pass
 * mib_walk_all's checks (each GETNEXT strictly after the request, within the room, GETable
 * with the same value), and so must GETNEXT and GET on OIDs made of the input's own bytes
 * under every column (index decoding of names that almost match). */
#include "snmp/mib_tree.h"
#include "tests/support/mib_walk.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column prefixes, 0-terminated: the host-wide tables' 4 arcs, the per-cgroup tables' 5. */
static const uint32_t prefixes[][6] = {
	{ 1, 1, 1 }, { 1, 2, 1, 2 }, { 1, 2, 1, 5 }, { 1, 3, 1, 3 }, { 1, 3, 1, 4 }, { 1, 3, 1, 5 },
	{ 1, 4, 1, 3 }, { 1, 4, 1, 13 }, { 1, 4, 1, 14 }, { 1, 5, 1, 2 }, { 1, 5, 1, 5 }, { 1, 5, 1, 6 },
	{ 1, 6, 1, 5 }, { 1, 8, 1, 1, 3 }, { 1, 8, 1, 1, 5 }, { 1, 8, 2, 1, 14 }, { 1, 8, 3, 1, 2 },
	{ 1, 8, 3, 1, 5 }, { 1, 8, 4, 1, 4 },
};

static void die(const char *why, const uint32_t *oid, size_t len)
{
	fprintf(stderr, "%s; request:", why);
	for (size_t i = 0; i < len; i++)
		fprintf(stderr, ".%u", oid[i]);
	fprintf(stderr, "\n");
	abort();
}

static int after(const uint32_t *a, size_t alen, const uint32_t *b, size_t blen)
{
	for (size_t i = 0; i < alen && i < blen; i++)
		if (a[i] != b[i])
			return b[i] > a[i];
	return blen > alen;
}

/* GETNEXT from oid (both ways) and GET of the answer. */
static void probe(const struct mib_tree *v, const struct mib_env *env, const uint32_t *oid, size_t len)
{
	uint32_t next[MIB_MAX_SUFFIX];
	size_t next_len;
	struct mib_value val, again;

	for (int inclusive = 0; inclusive < 2; inclusive++) {
		if (mib_tree_next(v, env, oid, len, inclusive, next, &next_len, &val) != MIB_FOUND)
			continue;
		if (next_len == 0 || next_len > v->room)
			die("GETNEXT answer longer than the room", oid, len);
		if (!after(oid, len, next, next_len) &&
		    !(inclusive && next_len == len && !memcmp(oid, next, len * sizeof(*oid))))
			die("GETNEXT answer not after the request", oid, len);
		if (mib_tree_get(v, env, next, next_len, &again) != MIB_FOUND || again.num != val.num)
			die("GETNEXT answer not GETable with its value", oid, len);
	}
	(void)mib_tree_get(v, env, oid, len, &val);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct mib_env env = { .uptime_cs = 12345, .now_us = 1000000005000000 };
	struct snapshot snap;
	struct mib_tree view;
	struct mib_walk w;
	const char *why;
	uint32_t oid[MIB_MAX_SUFFIX];
	char err[ERR_MAX];
	FILE *f;
	int r;

	if (size == 0 || !(f = fmemopen((void *)data, size, "r")))
		return 0;
	r = snapshot_parse(f, &snap, err, sizeof(err));
	fclose(f);
	if (r)
		return 0;
	/* a base of 2 to 33 arcs, from the input's length */
	if (mib_tree_build(&view, &snap, MIB_SNAPSHOT_OK, "", MIB_MAX_OID - 2 - size % 32))
		abort();
	why = mib_walk_all(&view, &env, 100000, &w);
	if (why)
		die(why, NULL, 0);
	/* Requests: a column prefix, then up to the room's worth of the input's bytes from a
	 * few offsets (names in indexes are one arc per byte). */
	for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
		for (size_t off = 0; off < size; off += 1 + size / 8) {
			size_t n = 0, len;

			while (n < 6 && prefixes[p][n])
				n++;
			len = n;

			memcpy(oid, prefixes[p], n * sizeof(*oid));
			for (size_t i = off; i < size && len < MIB_MAX_SUFFIX && len < n + 1 + (data[off] & 0x7f); i++)
				oid[len++] = data[i];
			probe(&view, &env, oid, len);
		}
	}
	mib_tree_free(&view);
	snapshot_free(&snap);
	return 0;
}
