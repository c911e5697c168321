/* Whether anyone but root (or collectd's own user) could swap a file collectd runs as root
 * with: a BPF object it loads, the snapshot it publishes. Like OpenSSH's StrictModes: every
 * directory from "/" down to the file's must be owned by root or the allowed user and not
 * writable by group or others, except that a root-owned directory with the sticky bit
 * (/tmp) only lets others remove their own entries, so what lies below it cannot be swapped
 * by them.
 *
 * The path is walked, not resolved first: realpath() and then a check of what it names
 * would check directories the kernel does not go through when the path is opened later (a
 * link in the middle, owned by another user, can be pointed elsewhere in between), and it
 * would never see the directory holding that link. So each component is opened relative to
 * the directory before it with O_NOFOLLOW and checked by its descriptor, and a symbolic
 * link on the way is followed only if root or the allowed user owns it: it lies in a
 * directory that passed the check, so nobody else can replace it (/var/run -> /run). */
#ifndef EBPF_BASE_SAFE_DIRS_H
#define EBPF_BASE_SAFE_DIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* At most this many links followed in one walk, as the kernel's MAXSYMLINKS. */
#define SAFE_DIRS_MAX_LINKS 40

/* Owned by root or by allowed_uid ((uid_t)-1: root only). */
bool safe_owner(const struct stat *st, uid_t allowed_uid);

/* `what` "path" is owned by uid N ... / is writable by ...: the fix, in words users paste. */
void safe_explain_owner(const char *what, const char *path, const struct stat *st, const char *risk, char *err,
			size_t errlen);
void safe_explain_mode(const char *what, const char *path, const struct stat *st, const char *risk, char *err,
		       size_t errlen);

/* Opens the directory holding the last component of the absolute `path`, walking from "/"
 * as described above; every directory on the way, that one included, is checked. *last:
 * the last component, in path (the caller opens it relative to the descriptor, with
 * O_NOFOLLOW). `risk`: what someone who could change a directory could do, for the error.
 * An O_PATH descriptor (usable as the dirfd of openat, mkdirat, unlinkat), or -1 with err
 * naming the first unsafe component (directory or link), why, and the fix. */
int safe_dirs_open_parent(const char *path, uid_t allowed_uid, const char *risk, const char **last, char *err,
			  size_t errlen);

#endif
