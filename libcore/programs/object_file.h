/* Reading a user's BPF object file safely.
 *
 * collectd runs as root and a BPF object is code that runs in the kernel, so a file anyone
 * but root (or collectd's own user) could have written must not be loaded: like OpenSSH's
 * StrictModes and sudo's plugin checks, the file and every directory above it must be owned
 * by root or the allowed user and not writable by group or others, walked from "/" without
 * following anyone else's link (safe_dirs.h). The file is read once (base/safe_file.h, which
 * ExporterConfig's YAML shares), through the descriptor that was checked; the caller opens
 * the object from these bytes (bpf_object__open_mem) and never touches the path again, so
 * swapping the file after the check changes nothing.
 */
#ifndef EBPF_PROGRAMS_OBJECT_FILE_H
#define EBPF_PROGRAMS_OBJECT_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Objects larger than this are refused (the largest libbpf-tools object is ~1 MiB). */
#define OBJECT_FILE_MAX_BYTES (64u << 20)

struct object_bytes {
	void *data;
	size_t len;
};

/* Reads `path` if it passes the checks above. allowed_uid: a second owner accepted besides
 * root (collectd's user), or (uid_t)-1 for root only. 0, or -1 with an error in err that
 * names the file, what is wrong and how to fix it. */
int object_file_read(const char *path, uid_t allowed_uid, struct object_bytes *out, char *err,
		     size_t errlen);
void object_bytes_free(struct object_bytes *b);

#endif
