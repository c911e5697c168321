#include "libcore/engine/safe_dirs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

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

int safe_dirs_check(const char *real, uid_t allowed_uid, const char *risk, char *err, size_t errlen)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", real);
	for (;;) {
		char *slash = strrchr(dir, '/');
		struct stat st;

		if (!slash)
			return 0;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(dir, &st)) {
			snprintf(err, errlen, "cannot check directory \"%s\": %s", dir, strerror(errno));
			return -1;
		}
		if (!safe_owner(&st, allowed_uid)) {
			safe_explain_owner("directory", dir, &st, risk, err, errlen);
			return -1;
		}
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !((st.st_mode & S_ISVTX) && st.st_uid == 0)) {
			safe_explain_mode("directory", dir, &st, risk, err, errlen);
			return -1;
		}
		if (!strcmp(dir, "/"))
			return 0;
	}
}
