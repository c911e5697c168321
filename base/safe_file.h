/* Reading a file collectd runs as root takes its orders from (a BPF object, an ebpf_exporter
 * config) so that nobody but root (or collectd's own user) could have chosen its bytes: like
 * OpenSSH's StrictModes and sudo's plugin checks, the file and every directory above it must
 * be owned by root or the allowed user and not writable by group or others, walked from "/"
 * without following anyone else's link (safe_dirs.h); the file itself is not a symbolic link
 * (O_NOFOLLOW), is a regular file (a FIFO put there does not hang collectd: O_NONBLOCK), and
 * is at most the kind's size. It is read once, through the descriptor that was checked; the
 * caller uses these bytes and never the path again, so swapping the file after the check
 * changes nothing. */
#ifndef EBPF_BASE_SAFE_FILE_H
#define EBPF_BASE_SAFE_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* What is read, for the errors. */
struct safe_file_kind {
	const char *what;      /* "BPF object": `BPF object "PATH" is a symbolic link...` */
	const char *risk;      /* what a user who could write it could do: "change the BPF code collectd loads" */
	size_t max_bytes;      /* larger files are refused... */
	const char *max_text;  /* ...saying "more than " max_text: "the 64 MiB a BPF object can sensibly be" */
};

/* The bytes of `path` (absolute) if it passes the checks above, in *data (NUL-terminated,
 * one byte more than *len; free() it). allowed_uid: a second owner accepted besides root
 * (collectd's user), or (uid_t)-1 for root only. 0, or -1 with an error in err that names
 * the file, what is wrong and how to fix it. */
int safe_file_read(const struct safe_file_kind *kind, const char *path, uid_t allowed_uid, void **data, size_t *len,
		   char *err, size_t errlen);

#endif
