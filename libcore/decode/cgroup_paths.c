#define _GNU_SOURCE /* open_by_handle_at */
#include "libcore/decode/cgroup_paths.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

/* nftw has no user argument: the walk's target and result. One walk at a time. */
static __thread uint64_t walk_id;
static __thread char walk_found[4096];

static int walk_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_D && (uint64_t)st->st_ino == walk_id) {
		snprintf(walk_found, sizeof(walk_found), "%s", path);
		return 1;
	}
	return 0;
}

static char *by_walk(const struct cgroup_paths *c, uint64_t id)
{
	walk_id = id;
	walk_found[0] = '\0';
	if (nftw(c->root, walk_visit, 32, FTW_PHYS | FTW_MOUNT) != 1)
		return NULL;
	return below_root(c, walk_found);
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
		c->walks++;
		s->path = by_walk(c, id);
	}
	if (!s->path)
		s->retry_at = now.tv_sec + CGROUP_RETRY_SECONDS;
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
	if (c->root_fd >= 0)
		close(c->root_fd);
	memset(c, 0, sizeof(*c));
	c->root_fd = -1;
}
