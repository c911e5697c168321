#include "plugin/snapshot_ownership.h"

#include "base/safe_dirs.h"
#include "base/err_max.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* /run is a tmpfs: the directory is gone after every boot, so the plugin creates it (in
 * its checked parent, without following a link), traversable by the snapshot group only
 * when one is set. */
static void make_directory(const struct snapshot_config *c, int parent, const char *name)
{
	if (mkdirat(parent, name, c->gid != (gid_t)-1 ? 0750 : 0755) == 0 && c->gid != (gid_t)-1)
		(void)fchownat(parent, name, (uid_t)-1, c->gid, AT_SYMLINK_NOFOLLOW);
}

/* What a user who could write the snapshot's directory could do. */
#define SNAPSHOT_RISK "replace the snapshot the SNMP subagent serves, or point its .lock file elsewhere"

int snapshot_dir_open(const struct snapshot_config *c, const char **base, char *err, size_t errlen)
{
	char dir[sizeof(c->path)];
	const char *slash = strrchr(c->path, '/'), *name;
	struct stat sb;
	int parent, fd;

	snprintf(dir, sizeof(dir), "%.*s", slash == c->path ? 1 : (int)(slash - c->path), c->path);
	*base = slash + 1;
	parent = safe_dirs_open_parent(dir, geteuid(), SNAPSHOT_RISK, &name, err, errlen);
	if (parent < 0)
		return -1;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		make_directory(c, parent, name);
		fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	close(parent);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the snapshot's directory \"%s\": %s%s", dir, strerror(errno),
			 errno == ELOOP || errno == ENOTDIR ? " (it is a symbolic link or not a directory: name the "
							      "directory itself)" : "");
		return -1;
	}
	if (fstat(fd, &sb)) {
		snprintf(err, errlen, "cannot check the snapshot's directory \"%s\": %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	if (!safe_owner(&sb, geteuid()))
		safe_explain_owner("the snapshot's directory", dir, &sb, SNAPSHOT_RISK, err, errlen);
	else if (sb.st_mode & (S_IWGRP | S_IWOTH))
		safe_explain_mode("the snapshot's directory", dir, &sb, SNAPSHOT_RISK, err, errlen);
	else
		return fd;
	close(fd);
	return -1;
}

int snapshot_lock_take(const struct snapshot_config *c, int *lock_fd, pid_t *owner, char *err, size_t errlen)
{
	char name[sizeof(c->path) + 8];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	const char *base;
	struct stat sb;
	int dirfd, fd;

	*owner = 0;
	if (*lock_fd >= 0)
		return 0;
	dirfd = snapshot_dir_open(c, &base, err, errlen);
	if (dirfd < 0)
		return -1;
	snprintf(name, sizeof(name), "%s.lock", base);
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	close(dirfd);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the snapshot's lock %s.lock: %s%s", c->path, strerror(errno),
			 errno == ELOOP ? " (it is a symbolic link, which collectd does not follow: remove it)" : "");
		return -1;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid()) {
		snprintf(err, errlen, "the snapshot's lock %s.lock is not a regular file of collectd's user: remove it",
			 c->path);
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETLK, &fl) == 0) {
		*lock_fd = fd;
		return 0;
	}
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
	if (fcntl(fd, F_GETLK, &fl) != 0 || fl.l_type == F_UNLCK)
		fl.l_pid = -1;
	close(fd);
	*owner = fl.l_pid ? fl.l_pid : -1;
	return 0;
}


void snapshot_lock_release(const struct snapshot_config *c, int lock_fd)
{
	char lock_name[sizeof(c->path) + 8], err[ERR_MAX];
	const char *base;
	int dirfd = snapshot_dir_open(c, &base, err, sizeof(err));

	if (dirfd >= 0) {
		snprintf(lock_name, sizeof(lock_name), "%s.lock", base);
		unlinkat(dirfd, base, 0);
		unlinkat(dirfd, lock_name, 0); /* a writer that opened it just before retries at its next read */
		close(dirfd);
	}
	close(lock_fd);
}
