/* Who writes the snapshot file, and where: its directory, opened and checked before anything
 * is written in it, and the write lock on <path>.lock that makes one collectd its only
 * writer. */
#ifndef EBPF_PLUGIN_SNAPSHOT_OWNERSHIP_H
#define EBPF_PLUGIN_SNAPSHOT_OWNERSHIP_H

#include <stddef.h>
#include <sys/types.h>

#include "plugin/snapshot_options.h"

/* The snapshot's directory, opened (O_NOFOLLOW: not a link) and checked: owned by root or
 * collectd's user, not writable by group or others. Every directory above it is checked as
 * the path is walked from "/" (safe_dirs.h: as for BPF objects; a root-owned sticky one
 * such as /tmp is accepted above it, and only root's or collectd's user's links are
 * followed). Everything in it is then opened relative to this descriptor, so a directory
 * swapped after the check is never written. *base: the file's name in it. The descriptor,
 * or -1 with err. */
int snapshot_dir_open(const struct snapshot_config *c, const char **base, char *err, size_t errlen);

/* One writer per file: a second collectd (a demo, a test instance) publishing to the same
 * path would overwrite the first's values and remove its file when it stops. The owner
 * holds a write lock on <path>.lock for as long as it runs (the kernel drops it when the
 * process dies, so a crash leaves no stale owner). The lock is opened in the checked
 * directory with O_NOFOLLOW and must be a regular file of this user's: root never creates
 * or locks a file a link points to. 0 with *owner 0: this process owns the file (*lock_fd
 * holds the lock; one already there means it did before); *owner the pid of the one that
 * does (-1: unknown); -1 with err: the directory or the lock is unsafe. */
int snapshot_lock_take(const struct snapshot_config *c, int *lock_fd, pid_t *owner, char *err, size_t errlen);

/* The owner's goodbye: removes the file (stale numbers must not look current) and its lock,
 * then lets go of the lock. Only for a lock_fd snapshot_lock_take gave: never another
 * collectd's file. */
void snapshot_lock_release(const struct snapshot_config *c, int lock_fd);

#endif
