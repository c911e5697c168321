#define _GNU_SOURCE /* O_PATH */
#include "base/safe_dirs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool safe_owner(const struct stat *st, uid_t allowed_uid)
{
	return st->st_uid == 0 || (allowed_uid != (uid_t)-1 && st->st_uid == allowed_uid);
}

void safe_explain_owner(const char *what, const char *path, const struct stat *st, const char *risk, char *err,
			size_t errlen)
{
	snprintf(err, errlen, "%s \"%s\" is owned by uid %u, not by root or collectd's user: anyone who owns it can %s "
		 "(chown root: \"%s\")",
		 what, path, (unsigned)st->st_uid, risk, path);
}

void safe_explain_mode(const char *what, const char *path, const struct stat *st, const char *risk, char *err,
		       size_t errlen)
{
	snprintf(err, errlen, "%s \"%s\" is writable by %s (mode %04o): others could %s (chmod go-w \"%s\")", what, path,
		 (st->st_mode & S_IWOTH) ? "everyone" : "its group", (unsigned)(st->st_mode & 07777), risk, path);
}

/* A walk in progress: the checked directory reached so far, and its path as walked (for
 * errors: the physical path, as realpath would give it, built component by component). */
struct walk {
	int fd;
	char at[PATH_MAX];
	uid_t allowed_uid;
	const char *risk;
	char *err;
	size_t errlen;
};

/* fd (the component at w->at) becomes the walk's directory if it is a safe one. */
static int enter(struct walk *w, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		snprintf(w->err, w->errlen, "cannot check directory \"%s\": %s", w->at, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		snprintf(w->err, w->errlen, "\"%s\" is not a directory", w->at);
	else if (!safe_owner(&st, w->allowed_uid))
		safe_explain_owner("directory", w->at, &st, w->risk, w->err, w->errlen);
	else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !((st.st_mode & S_ISVTX) && st.st_uid == 0))
		safe_explain_mode("directory", w->at, &st, w->risk, w->err, w->errlen);
	else {
		if (w->fd >= 0)
			close(w->fd);
		w->fd = fd;
		return 0;
	}
	close(fd);
	return -1;
}

static int enter_root(struct walk *w)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	snprintf(w->at, sizeof(w->at), "/");
	if (fd < 0) {
		snprintf(w->err, w->errlen, "cannot open directory \"/\": %s", strerror(errno));
		return -1;
	}
	return enter(w, fd);
}

/* w->at one step further: "/name" appended, or for ".." its last component removed (the
 * kernel's ".." is the physical parent, which is what openat(fd, "..") opens). */
static void step(struct walk *w, const char *name)
{
	size_t n = strlen(w->at);

	if (!strcmp(name, "..")) {
		char *slash = strrchr(w->at, '/');

		slash[slash == w->at] = '\0';
		return;
	}
	snprintf(w->at + n, sizeof(w->at) - n, "%s%s", n > 1 ? "/" : "", name);
}

/* The link `fd`, at w->at in the directory `parent`: if root or the allowed user owns it,
 * todo becomes its target followed by `rest` (what was left to walk after it), to be walked
 * from "/" or from parent. */
static int follow(struct walk *w, int fd, const char *parent, const char *rest, char *todo, size_t todolen)
{
	char target[PATH_MAX], shown[2 * PATH_MAX + 2], next[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) || (n = readlinkat(fd, "", target, sizeof(target) - 1)) < 0) {
		snprintf(w->err, w->errlen, "cannot read the symbolic link \"%s\": %s", w->at, strerror(errno));
		return -1;
	}
	target[n] = '\0';
	if (!safe_owner(&st, w->allowed_uid)) {
		snprintf(shown, sizeof(shown), "%s%s%s", target[0] == '/' ? "" : parent,
			 target[0] == '/' || !strcmp(parent, "/") ? "" : "/", target);
		snprintf(w->err, w->errlen,
			 "\"%s\" is a symbolic link owned by uid %u, not by root or collectd's user: anyone who owns it "
			 "can point it elsewhere and %s (write the path with \"%s\" instead, where it points now, or "
			 "chown -h root \"%s\")",
			 w->at, (unsigned)st.st_uid, w->risk, shown, w->at);
		return -1;
	}
	if ((size_t)snprintf(next, sizeof(next), "%s/%s", target, rest) >= sizeof(next) ||
	    strlen(next) >= todolen) {
		snprintf(w->err, w->errlen, "cannot follow the symbolic link \"%s\": %s", w->at, strerror(ENAMETOOLONG));
		return -1;
	}
	memcpy(todo, next, strlen(next) + 1);
	if (target[0] == '/')
		return enter_root(w);
	snprintf(w->at, sizeof(w->at), "%s", parent);
	return 0;
}

/* path split for the walk: todo, the directories before its last slash; *last, what
 * follows that slash ("." when nothing does). 0, or -1 when path is not absolute or is too
 * long to walk. */
static int split_path(const char *path, const char **last, char *todo, size_t todolen, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');

	if (path[0] != '/') {
		snprintf(err, errlen, "\"%s\" is not an absolute path", path);
		return -1;
	}
	if ((size_t)(slash - path) >= todolen) {
		snprintf(err, errlen, "\"%.200s...\": %s", path, strerror(ENAMETOOLONG));
		return -1;
	}
	*last = slash[1] ? slash + 1 : ".";
	snprintf(todo, todolen, "%.*s", (int)(slash - path), path);
	return 0;
}

/* The component of todo at *pos (past any slashes) copied into name, *pos moved past it;
 * name is empty where todo ends in slashes. -1 when it cannot be a directory's name. */
static int next_name(const char *todo, size_t *pos, char name[NAME_MAX + 1], const char *path, char *err,
		     size_t errlen)
{
	size_t len;

	*pos += strspn(todo + *pos, "/");
	len = strcspn(todo + *pos, "/");
	if (len > NAME_MAX) {
		snprintf(err, errlen, "a component of \"%s\" is longer than %d characters", path, NAME_MAX);
		return -1;
	}
	memcpy(name, todo + *pos, len);
	name[len] = '\0';
	*pos += len;
	return 0;
}

/* The walk one component further: name, in the walk's directory, entered if it is a safe
 * directory; a link followed instead, todo then rewritten to what is left to walk and *pos
 * back to its start. *links counts the links followed, so that a loop ends. */
static int walk_name(struct walk *w, const char *name, const char *path, char *todo, size_t todolen, size_t *pos,
		     int *links)
{
	char parent[PATH_MAX];
	struct stat st;
	int fd, r;

	snprintf(parent, sizeof(parent), "%s", w->at);
	step(w, name);
	/* O_PATH: search permission on the directory is all it needs; O_NOFOLLOW: a link
	 * is opened as itself, to be looked at before it is followed. */
	fd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(w->err, w->errlen, "cannot open directory \"%s\" (on the way to \"%s\"): %s", w->at, path,
			 strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISLNK(st.st_mode))
		return enter(w, fd);
	if (++*links > SAFE_DIRS_MAX_LINKS) {
		snprintf(w->err, w->errlen, "cannot walk \"%s\": more than %d symbolic links on the way (a loop?)", path,
			 SAFE_DIRS_MAX_LINKS);
		close(fd);
		return -1;
	}
	r = follow(w, fd, parent, todo + *pos, todo, todolen);
	close(fd);
	*pos = 0;
	return r;
}

int safe_dirs_open_parent(const char *path, uid_t allowed_uid, const char *risk, const char **last, char *err,
			  size_t errlen)
{
	struct walk w = { .fd = -1, .allowed_uid = allowed_uid, .risk = risk, .err = err, .errlen = errlen };
	char todo[PATH_MAX], name[NAME_MAX + 1];
	size_t pos = 0;
	int links = 0;

	if (split_path(path, last, todo, sizeof(todo), err, errlen) || enter_root(&w))
		return -1;
	while (todo[pos]) {
		if (next_name(todo, &pos, name, path, err, errlen))
			goto fail;
		if (!name[0] || !strcmp(name, "."))
			continue;
		if (walk_name(&w, name, path, todo, sizeof(todo), &pos, &links))
			goto fail;
	}
	return w.fd;
fail:
	if (w.fd >= 0)
		close(w.fd);
	return -1;
}
