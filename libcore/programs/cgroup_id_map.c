#include "libcore/programs/cgroup_id_map.h"

#include "libcore/decode/cgroup_paths.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/engine/module.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WALK_DEPTH_MAX 32 /* cgroup2 nests far less; a bound for the recursion */

struct cgroup_id_sync {
	int map_fd;
	bool storage;
	char map[64];
	char root[512];
	struct decoder_chain match; /* one regexps decoder: kept = a pattern matches */
	uint64_t *ids, *next;       /* hash: the ids put in the map (sorted), this walk's */
	uint32_t nids, nnext, cap;
	uint32_t unplaced;
};

/* The patterns as one regexps decoder: its checks and its matching, ebpf_exporter's. */
static int build_match(struct decoder_chain *chain, const struct cgroup_id_map_config *c, bool hidden, char *err,
		       size_t errlen)
{
	const char *args[CGROUP_ID_MAP_PATTERNS];

	decoder_chain_init(chain, "cgroup_id_map");
	chain->hidden = hidden;
	for (int i = 0; i < c->npatterns; i++)
		args[i] = c->patterns[i];
	return c->npatterns ? decoder_chain_add(chain, "regexps", args, c->npatterns, err, errlen) : 0;
}

int cgroup_id_map_check(const struct cgroup_id_map_config *c, bool hidden, char *err, size_t errlen)
{
	struct decoder_chain chain;
	int r = build_match(&chain, c, hidden, err, errlen);

	decoder_chain_free(&chain);
	return r;
}

static bool matches(struct cgroup_id_sync *s, const char *path)
{
	char out[DECODE_TEXT_MAX];

	return s->match.n && decoder_chain_decode_kept(&s->match, path, strlen(path), out, sizeof(out));
}

static void place(struct cgroup_id_sync *s, int fd, uint64_t id)
{
	uint64_t one = 1;

	if (s->storage) {
		int key = fd; /* cgrp_storage takes the cgroup's fd as its key */

		if (bpf_map_update_elem(s->map_fd, &key, &one, BPF_ANY))
			s->unplaced++;
		return;
	}
	if (s->nnext == s->cap || bpf_map_update_elem(s->map_fd, &id, &one, BPF_ANY)) {
		s->unplaced++;
		return;
	}
	s->next[s->nnext++] = id;
}

static void walk(struct cgroup_id_sync *s, int fd, char *path, size_t len, int depth)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (fstat(fd, &st) == 0 && matches(s, path))
		place(s, fd, (uint64_t)st.st_ino);
	if (depth == WALK_DEPTH_MAX || !(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		int child;

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || len + 1 + n >= 4096)
			continue;
		child = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child < 0)
			continue; /* removed meanwhile */
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		walk(s, child, path, len + 1 + n, depth + 1);
		path[len] = '\0';
	}
	closedir(d);
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void cgroup_id_sync_run(struct cgroup_id_sync *s)
{
	char path[4096];
	int fd = open(s->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint64_t *t;

	s->nnext = 0;
	s->unplaced = 0;
	if (fd >= 0) {
		snprintf(path, sizeof(path), "%s", s->root);
		walk(s, fd, path, strlen(path), 0);
	}
	if (!s->storage) {
		/* the ids of cgroups gone since the last walk leave the map (ebpf_exporter's removal) */
		qsort(s->next, s->nnext, sizeof(*s->next), by_id);
		for (uint32_t i = 0; i < s->nids; i++)
			if (!bsearch(&s->ids[i], s->next, s->nnext, sizeof(*s->next), by_id))
				bpf_map_delete_elem(s->map_fd, &s->ids[i]);
		t = s->ids;
		s->ids = s->next;
		s->next = t;
		s->nids = s->nnext;
	}
}

void cgroup_id_sync_send(const struct cgroup_id_sync *s, const struct metric_sink *sink)
{
	if (!sink->gauge)
		return;
	if (!s->storage)
		sink->gauge(sink->ctx, METRIC("cgroup_ids"), s->map, s->nids);
	sink->gauge(sink->ctx, METRIC("cgroup_ids_unplaced"), s->map, s->unplaced);
}

struct cgroup_id_sync *cgroup_id_sync_new(const struct cgroup_id_map_config *c, int map_fd, uint32_t max_entries,
					  const char *root, char *err, size_t errlen)
{
	struct cgroup_id_sync *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->map_fd = map_fd;
	s->storage = c->cgrp_storage;
	snprintf(s->map, sizeof(s->map), "%s", c->map);
	s->cap = max_entries ? max_entries : 1;
	s->ids = calloc(s->cap, sizeof(*s->ids));
	s->next = calloc(s->cap, sizeof(*s->next));
	if (!s->ids || !s->next || build_match(&s->match, c, false, err, errlen) ||
	    (root ? (snprintf(s->root, sizeof(s->root), "%s", root), 0) : cgroup2_mount(s->root, sizeof(s->root), err, errlen))) {
		if (!s->ids || !s->next)
			snprintf(err, errlen, "out of memory");
		cgroup_id_sync_free(s);
		return NULL;
	}
	return s;
}

void cgroup_id_sync_free(struct cgroup_id_sync *s)
{
	if (!s)
		return;
	decoder_chain_free(&s->match);
	free(s->ids);
	free(s->next);
	free(s);
}
