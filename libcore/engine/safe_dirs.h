/* Whether anyone but root (or collectd's own user) could swap a file collectd runs as root
 * with: a BPF object it loads, the snapshot it publishes. Like OpenSSH's StrictModes: every
 * directory from the file's up to "/" must be owned by root or the allowed user and not
 * writable by group or others, except that a root-owned directory with the sticky bit
 * (/tmp) only lets others remove their own entries, so what lies below it cannot be swapped
 * by them. */
#ifndef EBPF_ENGINE_SAFE_DIRS_H
#define EBPF_ENGINE_SAFE_DIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Owned by root or by allowed_uid ((uid_t)-1: root only). */
bool safe_owner(const struct stat *st, uid_t allowed_uid);

/* `what` "path" is owned by uid N ... / is writable by ...: the fix, in words users paste. */
void safe_explain_owner(const char *what, const char *path, const struct stat *st, const char *risk, char *err,
			size_t errlen);
void safe_explain_mode(const char *what, const char *path, const struct stat *st, const char *risk, char *err,
		       size_t errlen);

/* Every directory above the resolved path `real` (the file's own included). 0, or -1 with
 * err naming the first unsafe directory and the fix. */
int safe_dirs_check(const char *real, uid_t allowed_uid, const char *risk, char *err, size_t errlen);

#endif
