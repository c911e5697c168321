#define _GNU_SOURCE /* open_by_handle_at */
#include "libcore/decode/cgroup_paths.h"

#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILEID_KERNFS 0xfe /* include/linux/exportfs.h: a kernfs node by its 64-bit id */
_Static_assert(CGROUP_CACHE_SLOTS == 1 << 10, "cgroup_path() hashes ids to 10 bits");

int cgroup2_mount(char *out, size_t len, char *err, size_t errlen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = -1;

	if (!f) {
		snprintf(err, errlen, "cannot read /proc/self/mountinfo: %m");
		return -1;
	}
	/* "36 25 0:31 / /sys/fs/cgroup rw,... shared:9 - cgroup2 cgroup2 rw": the mount point is
	 * field 5, the type follows " - ". */
	while (found && fgets(line, sizeof(line), f)) {
		char mnt[512], type[64];
		const char *dash = strstr(line, " - ");

		if (dash && sscanf(dash, " - %63s", type) == 1 && !strcmp(type, "cgroup2") &&
		    sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1 && strlen(mnt) < len) {
			strcpy(out, mnt);
			found = 0;
		}
	}
	fclose(f);
	if (found)
		snprintf(err, errlen, "no cgroup2 file system is mounted (cgroup ids are cgroup2 ids): mount one, "
			 "beside the v1 hierarchies, e.g. mkdir -p /sys/fs/cgroup/unified && "
			 "mount -t cgroup2 none /sys/fs/cgroup/unified (the hybrid layout)");
	return found;
}

int cgroup_paths_init(struct cgroup_paths *c, const char *root, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->root_fd = -1;
	if (root)
		snprintf(c->root, sizeof(c->root), "%s", root);
	else if (cgroup2_mount(c->root, sizeof(c->root), err, errlen))
		return -1;
	c->root_fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->root_fd < 0) {
		snprintf(err, errlen, "cannot open the cgroup2 mount %s: %m", c->root);
		return -1;
	}
	return 0;
}

/* The path below root of an absolute path ("/sys/fs/cgroup/a/b" -> "/a/b"), NULL if it is
 * not under root. */
static char *below_root(const struct cgroup_paths *c, const char *abs)
{
	size_t n = strlen(c->root);

	while (n > 1 && c->root[n - 1] == '/')
		n--;
	if (n == 1 && c->root[0] == '/')
		return strdup(abs);
	if (strncmp(abs, c->root, n) || (abs[n] != '/' && abs[n] != '\0'))
		return NULL;
	return strdup(abs[n] ? abs + n : "/");
}

static char *by_handle(const struct cgroup_paths *c, uint64_t id, int *unsupported)
{
	struct {
		struct file_handle h;
		uint64_t id;
	} fh = { .h = { .handle_bytes = sizeof(uint64_t), .handle_type = FILEID_KERNFS }, .id = id };
	char link[64], abs[4096];
	ssize_t n;
	int fd;

	fd = open_by_handle_at(c->root_fd, &fh.h, O_RDONLY | O_CLOEXEC | O_PATH);
	if (fd < 0) {
		*unsupported = errno == EPERM || errno == ENOSYS || errno == EOPNOTSUPP;
		return NULL;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, abs, sizeof(abs) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	abs[n] = '\0';
	return below_root(c, abs);
}

static int64_t monotonic_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static uint32_t index_slot(uint64_t id, uint32_t cap)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static void index_add(struct cgroup_paths *c, uint32_t entry)
{
	uint32_t i = index_slot(c->walked[entry].id, c->index_cap);

	while (c->index[i])
		i = (i + 1) & (c->index_cap - 1);
	c->index[i] = entry + 1;
}

/* The walked entry of id, -1 if the last walk did not meet it. */
static int64_t walked_entry(const struct cgroup_paths *c, uint64_t id)
{
	if (!c->index_cap)
		return -1;
	for (uint32_t i = index_slot(id, c->index_cap); c->index[i]; i = (i + 1) & (c->index_cap - 1))
		if (c->walked[c->index[i] - 1].id == id)
			return c->index[i] - 1;
	return -1;
}

/* The path below root of walked entry e ("/" for the root) into out; false if it does not fit. */
static bool walked_path(const struct cgroup_paths *c, uint32_t e, char *out, size_t len)
{
	uint32_t chain[CGROUP_WALK_DEPTH_MAX + 1];
	size_t n = 0, used = 0;

	for (; e; e = c->walked[e].parent)
		chain[n++] = e;
	if (!n)
		return snprintf(out, len, "/") < (int)len;
	while (n--) {
		int w = snprintf(out + used, len - used, "/%s", c->names + c->walked[chain[n]].name);

		if (w < 0 || (size_t)w >= len - used)
			return false;
		used += (size_t)w;
	}
	return true;
}

/* Appends a cgroup to the walk: false when a bound (entries, name bytes) is reached. */
static bool walk_add(struct cgroup_paths *c, uint64_t id, uint32_t parent, uint32_t depth, const char *name)
{
	size_t nlen = strlen(name) + 1;

	if (c->nwalked >= CGROUP_WALK_MAX || c->names_len + nlen > CGROUP_WALK_NAME_BYTES)
		return false;
	if (c->nwalked == c->walked_cap) {
		uint32_t cap = c->walked_cap ? 2 * c->walked_cap : 256;
		struct cgroup_walked *w = realloc(c->walked, cap * sizeof(*w));

		if (!w)
			return false;
		c->walked = w;
		c->walked_cap = cap;
	}
	if (c->names_len + nlen > c->names_cap) {
		size_t cap = c->names_cap ? 2 * c->names_cap : 4096;
		char *n;

		while (cap < c->names_len + nlen)
			cap *= 2;
		if (!(n = realloc(c->names, cap)))
			return false;
		c->names = n;
		c->names_cap = cap;
	}
	if (2 * (c->nwalked + 1) > c->index_cap) {
		uint32_t cap = c->index_cap ? 2 * c->index_cap : 512;
		uint32_t *ix = calloc(cap, sizeof(*ix));

		if (!ix)
			return false;
		free(c->index);
		c->index = ix;
		c->index_cap = cap;
		for (uint32_t i = 0; i < c->nwalked; i++)
			index_add(c, i);
	}
	memcpy(c->names + c->names_len, name, nlen);
	c->walked[c->nwalked] = (struct cgroup_walked){ .id = id, .parent = parent, .name = (uint32_t)c->names_len,
							.depth = depth };
	c->names_len += nlen;
	index_add(c, c->nwalked++);
	return true;
}

/* Appends the subdirectories of walked entry e; false when a bound is reached. The directory
 * entry's inode number is the cgroup's id (kernfs): no stat per cgroup. */
static bool walk_children(struct cgroup_paths *c, uint32_t e)
{
	char rel[4096];
	struct dirent *d;
	bool room = true;
	DIR *dir;
	int fd;

	if (!walked_path(c, e, rel, sizeof(rel)))
		return true; /* too long a path to open: its subtree stays unnamed */
	fd = openat(c->root_fd, rel[1] ? rel + 1 : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return true; /* removed meanwhile, or not ours to read */
	if (!(dir = fdopendir(fd))) {
		close(fd);
		return true;
	}
	while (room && (d = readdir(dir))) {
		struct stat st;
		uint64_t id = d->d_ino;

		if (d->d_name[0] == '.' && (!d->d_name[1] || (d->d_name[1] == '.' && !d->d_name[2])))
			continue;
		if (d->d_type == DT_UNKNOWN) {
			if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
				continue;
			id = st.st_ino;
		} else if (d->d_type != DT_DIR) {
			continue;
		}
		room = walk_add(c, id, e, c->walked[e].depth + 1, d->d_name);
	}
	closedir(dir);
	return room;
}

/* One walk, breadth first (the shallower cgroups, where services are, named first), bounded
 * in levels, cgroups, name bytes and time; the cgroups it meets replace the last walk's. */
static void walk(struct cgroup_paths *c)
{
	uint32_t depth = c->walk_depth && c->walk_depth < CGROUP_WALK_DEPTH_MAX ? c->walk_depth : CGROUP_WALK_DEPTH_MAX;
	int64_t start = monotonic_ms();
	struct stat st;
	uint32_t e;

	if (!c->walks++)
		ebpf_log(EBPF_LOG_INFO,
			 "cgroup names: opening a cgroup by its id is refused (no CAP_DAC_READ_SEARCH): cgroups are "
			 "named by walking %s instead, %u levels down, at most once a second and %d cgroups or %d ms a "
			 "walk",
			 c->root, depth, CGROUP_WALK_MAX, CGROUP_WALK_MS);
	c->nwalked = 0;
	c->names_len = 0;
	c->walk_cut = false;
	if (c->index_cap)
		memset(c->index, 0, c->index_cap * sizeof(*c->index));
	if (fstat(c->root_fd, &st) || !walk_add(c, st.st_ino, 0, 0, "")) {
		c->walked_at_ms = monotonic_ms();
		return;
	}
	for (e = 0; e < c->nwalked; e++) {
		if (c->walked[e].depth >= depth)
			continue;
		if (!walk_children(c, e) || ((e & 15) == 15 && monotonic_ms() - start >= CGROUP_WALK_MS)) {
			c->walk_cut = true;
			break;
		}
	}
	c->walked_at_ms = monotonic_ms();
	if (c->walk_cut && !c->cut_logged) {
		c->cut_logged = true;
		ebpf_log(EBPF_LOG_WARNING,
			 "cgroup names: without CAP_DAC_READ_SEARCH cgroups are named by walking %s once a second, and "
			 "this walk stopped at its bound (%u cgroups, %u of them read, %lld ms; at most %d cgroups, %d ms): "
			 "the cgroups it did not reach have no name for now (their values go to `other`). Grant "
			 "collectd CAP_DAC_READ_SEARCH to name each cgroup by its id instead (README.md, Requirements)",
			 c->root, c->nwalked, e, (long long)(c->walked_at_ms - start), CGROUP_WALK_MAX, CGROUP_WALK_MS);
	}
}

/* Without file handles: the last walk's name for id, after a walk if that one is older than
 * CGROUP_WALK_SECONDS. */
static char *by_walk(struct cgroup_paths *c, uint64_t id)
{
	char path[4096];
	int64_t e;

	if (!c->walked_at_ms || monotonic_ms() - c->walked_at_ms >= CGROUP_WALK_SECONDS * 1000)
		walk(c);
	e = walked_entry(c, id);
	if (e < 0) {
		c->unnamed += c->walk_cut;
		return NULL;
	}
	return walked_path(c, (uint32_t)e, path, sizeof(path)) ? strdup(path) : NULL;
}

const char *cgroup_path(struct cgroup_paths *c, uint64_t id)
{
	struct cgroup_slot *s = &c->slots[(id * 0x9e3779b97f4a7c15ull) >> 54]; /* 10 bits: 1024 slots */
	struct timespec now;
	int unsupported = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (id && s->id == id && (s->path || now.tv_sec < s->retry_at))
		return s->path;
	free(s->path);
	s->id = id;
	s->path = NULL;
	if (!id)
		return NULL;
	c->lookups++;
	if (c->walk_only)
		unsupported = 1;
	else
		s->path = by_handle(c, id, &unsupported);
	if (!s->path && unsupported) {
		s->path = by_walk(c, id);
		if (!s->path)
			s->retry_at = now.tv_sec + CGROUP_WALK_SECONDS;
	} else if (!s->path) {
		s->retry_at = now.tv_sec + CGROUP_RETRY_SECONDS;
	}
	return s->path;
}

bool cgroup_alive(const struct cgroup_paths *c, uint64_t id, const char *path)
{
	struct stat st;

	while (*path == '/')
		path++;
	return !fstatat(c->root_fd, *path ? path : ".", &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode) &&
	       (uint64_t)st.st_ino == id;
}

void cgroup_paths_free(struct cgroup_paths *c)
{
	for (int i = 0; i < CGROUP_CACHE_SLOTS; i++)
		free(c->slots[i].path);
	free(c->walked);
	free(c->index);
	free(c->names);
	if (c->root_fd >= 0)
		close(c->root_fd);
	memset(c, 0, sizeof(*c));
	c->root_fd = -1;
}
