#include "libcore/programs/object_file.h"

#include "base/safe_dirs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a user who could write the object could do. */
#define OBJECT_RISK "change the BPF code collectd loads"

static int read_all(int fd, size_t len, struct object_bytes *out, const char *path, char *err, size_t errlen)
{
	size_t got = 0;

	out->data = malloc(len ? len : 1);
	if (!out->data) {
		snprintf(err, errlen, "cannot read \"%s\": out of memory for %zu bytes", path, len);
		return -1;
	}
	while (got < len) {
		ssize_t n = read(fd, (char *)out->data + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "cannot read \"%s\": %s", path, n ? strerror(errno) : "file shrank while read");
			object_bytes_free(out);
			return -1;
		}
		got += (size_t)n;
	}
	out->len = len;
	return 0;
}

/* path opened for reading, in its directory as safe_dirs walked and checked it: every
 * directory from "/" down (safe_dirs.h), and the file looked at there before it is opened.
 * The fd, or -1. */
static int open_in_checked_dir(const char *path, uid_t allowed_uid, char *err, size_t errlen)
{
	struct stat lst;
	const char *base;
	int dirfd, fd;

	dirfd = safe_dirs_open_parent(path, allowed_uid, OBJECT_RISK, &base, err, errlen);
	if (dirfd < 0)
		return -1;
	if (fstatat(dirfd, base, &lst, AT_SYMLINK_NOFOLLOW)) {
		snprintf(err, errlen, "cannot use BPF object \"%s\": %s", path, strerror(errno));
		close(dirfd);
		return -1;
	}
	if (S_ISLNK(lst.st_mode)) {
		snprintf(err, errlen,
			 "BPF object \"%s\" is a symbolic link: name the file itself, so that what is "
			 "checked is what is loaded", path);
		close(dirfd);
		return -1;
	}
	/* O_NONBLOCK: a FIFO put there must not hang collectd's start; O_NOFOLLOW: a link
	 * swapped in after fstatat() is refused too. */
	fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dirfd);
	if (fd < 0)
		snprintf(err, errlen, "cannot open BPF object \"%s\": %s", path, strerror(errno));
	return fd;
}

/* The opened object as it is, not as its name said: a regular file of sensible size that
 * only root or collectd's user can change. 0, or -1 saying which it is not. */
static int check_opened(int fd, const char *path, uid_t allowed_uid, struct stat *st, char *err, size_t errlen)
{
	if (fstat(fd, st)) {
		snprintf(err, errlen, "cannot check BPF object \"%s\": %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "BPF object \"%s\" is not a regular file", path);
		return -1;
	}
	if (!safe_owner(st, allowed_uid)) {
		safe_explain_owner("BPF object", path, st, OBJECT_RISK, err, errlen);
		return -1;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		safe_explain_mode("BPF object", path, st, OBJECT_RISK, err, errlen);
		return -1;
	}
	if ((unsigned long long)st->st_size > OBJECT_FILE_MAX_BYTES) {
		snprintf(err, errlen, "BPF object \"%s\" is %lld bytes, more than the %u MiB a BPF object can sensibly be",
			 path, (long long)st->st_size, OBJECT_FILE_MAX_BYTES >> 20);
		return -1;
	}
	return 0;
}

int object_file_read(const char *path, uid_t allowed_uid, struct object_bytes *out, char *err, size_t errlen)
{
	struct stat st;
	int fd, r;

	out->data = NULL;
	out->len = 0;
	fd = open_in_checked_dir(path, allowed_uid, err, errlen);
	if (fd < 0)
		return -1;
	r = check_opened(fd, path, allowed_uid, &st, err, errlen);
	if (!r)
		r = read_all(fd, (size_t)st.st_size, out, path, err, errlen);
	close(fd);
	return r;
}

void object_bytes_free(struct object_bytes *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}
