#include "base/safe_file.h"

#include "base/safe_dirs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_all(const struct safe_file_kind *k, int fd, size_t len, void **data, const char *path, char *err,
		    size_t errlen)
{
	size_t got = 0;
	char *buf = malloc(len + 1);

	if (!buf) {
		snprintf(err, errlen, "cannot read %s \"%s\": out of memory for %zu bytes", k->what, path, len);
		return -1;
	}
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "cannot read %s \"%s\": %s", k->what, path,
				 n ? strerror(errno) : "file shrank while read");
			free(buf);
			return -1;
		}
		got += (size_t)n;
	}
	buf[len] = '\0';
	*data = buf;
	return 0;
}

/* path opened for reading, in its directory as safe_dirs walked and checked it: every
 * directory from "/" down (safe_dirs.h), and the file looked at there before it is opened.
 * The fd, or -1. */
static int open_in_checked_dir(const struct safe_file_kind *k, const char *path, uid_t allowed_uid, char *err,
			       size_t errlen)
{
	struct stat lst;
	const char *base;
	int dirfd, fd;

	dirfd = safe_dirs_open_parent(path, allowed_uid, k->risk, &base, err, errlen);
	if (dirfd < 0)
		return -1;
	if (fstatat(dirfd, base, &lst, AT_SYMLINK_NOFOLLOW)) {
		snprintf(err, errlen, "cannot use %s \"%s\": %s", k->what, path, strerror(errno));
		close(dirfd);
		return -1;
	}
	if (S_ISLNK(lst.st_mode)) {
		snprintf(err, errlen,
			 "%s \"%s\" is a symbolic link: name the file itself, so that what is checked is what is "
			 "loaded", k->what, path);
		close(dirfd);
		return -1;
	}
	/* O_NONBLOCK: a FIFO put there must not hang collectd's start; O_NOFOLLOW: a link
	 * swapped in after fstatat() is refused too. */
	fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dirfd);
	if (fd < 0)
		snprintf(err, errlen, "cannot open %s \"%s\": %s", k->what, path, strerror(errno));
	return fd;
}

/* The opened file as it is, not as its name said: a regular file of sensible size that
 * only root or collectd's user can change. 0, or -1 saying which it is not. */
static int check_opened(const struct safe_file_kind *k, int fd, const char *path, uid_t allowed_uid, struct stat *st,
			char *err, size_t errlen)
{
	if (fstat(fd, st)) {
		snprintf(err, errlen, "cannot check %s \"%s\": %s", k->what, path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s \"%s\" is not a regular file", k->what, path);
		return -1;
	}
	if (!safe_owner(st, allowed_uid)) {
		safe_explain_owner(k->what, path, st, k->risk, err, errlen);
		return -1;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		safe_explain_mode(k->what, path, st, k->risk, err, errlen);
		return -1;
	}
	if ((unsigned long long)st->st_size > k->max_bytes) {
		snprintf(err, errlen, "%s \"%s\" is %lld bytes, more than %s", k->what, path, (long long)st->st_size,
			 k->max_text);
		return -1;
	}
	return 0;
}

int safe_file_read(const struct safe_file_kind *kind, const char *path, uid_t allowed_uid, void **data, size_t *len,
		   char *err, size_t errlen)
{
	struct stat st;
	int fd, r;

	*data = NULL;
	*len = 0;
	fd = open_in_checked_dir(kind, path, allowed_uid, err, errlen);
	if (fd < 0)
		return -1;
	r = check_opened(kind, fd, path, allowed_uid, &st, err, errlen);
	if (!r)
		r = read_all(kind, fd, (size_t)st.st_size, data, path, err, errlen);
	if (!r)
		*len = (size_t)st.st_size;
	close(fd);
	return r;
}
