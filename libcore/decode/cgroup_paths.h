/* cgroup ids (bpf_get_current_cgroup_id(), the kernfs id of a cgroup2 directory, which is
 * also its inode number) -> the cgroup's path under the cgroup2 mount ("/system.slice/
 * ssh.service", "/" for the root).
 *
 * A miss opens the directory by its id as a file handle (open_by_handle_at, one system
 * call; needs CAP_DAC_READ_SEARCH) and reads its path; without that capability it walks the
 * hierarchy for the inode. Paths are cached in CGROUP_CACHE_SLOTS slots (direct-mapped by
 * id: a new id takes its slot's place), and an id that resolves to nothing (a removed
 * cgroup) is not looked up again for CGROUP_RETRY_SECONDS: memory and lookup cost stay
 * bounded whatever the map holds. */
#ifndef EBPF_CORE_CGROUP_PATHS_H
#define EBPF_CORE_CGROUP_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define CGROUP_CACHE_SLOTS 1024
#define CGROUP_RETRY_SECONDS 10

struct cgroup_slot {
	uint64_t id;         /* 0: empty */
	char *path;          /* NULL: not found, retry after retry_at */
	time_t retry_at;
};

struct cgroup_paths {
	char root[512];      /* the cgroup2 mount point */
	int root_fd;
	struct cgroup_slot slots[CGROUP_CACHE_SLOTS];
	unsigned long lookups, walks; /* misses, and those resolved by walking (tests) */
	int walk_only;       /* tests: never open by handle */
};

/* The cgroup2 mount point from /proc/self/mountinfo into out. 0, or -1 with err. */
int cgroup2_mount(char *out, size_t len, char *err, size_t errlen);
/* root NULL: the cgroup2 mount. 0, or -1 with err. */
int cgroup_paths_init(struct cgroup_paths *c, const char *root, char *err, size_t errlen);
/* The path of cgroup id, NULL if there is none. Valid until the next call. */
const char *cgroup_path(struct cgroup_paths *c, uint64_t id);
/* Whether cgroup id is still at path (what cgroup_path() gave for it): its directory's inode
 * number is the id. One fstatat(), no capability needed: how a reader notices a removal
 * that the path cache cannot. */
bool cgroup_alive(const struct cgroup_paths *c, uint64_t id, const char *path);
void cgroup_paths_free(struct cgroup_paths *c);

#endif
