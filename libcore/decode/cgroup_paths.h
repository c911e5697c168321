/* cgroup ids (bpf_get_current_cgroup_id(), the kernfs id of a cgroup2 directory, which is
 * also its inode number) -> the cgroup's path under the cgroup2 mount ("/system.slice/
 * ssh.service", "/" for the root).
 *
 * A miss opens the directory by its id as a file handle (open_by_handle_at, one system
 * call; needs CAP_DAC_READ_SEARCH) and reads its path. Without that capability a miss is
 * answered by a walk of the hierarchy that names every cgroup it meets: breadth first, down
 * to walk_depth levels, at most CGROUP_WALK_MAX cgroups (and CGROUP_WALK_NAME_BYTES of names)
 * and CGROUP_WALK_MS milliseconds, one directory read per cgroup (no stat); its names answer
 * the misses of the next CGROUP_WALK_SECONDS, and then the next miss walks again. So a flood
 * of new ids costs one walk a second, never one per id; a cgroup the walk did not reach (it
 * stopped at a bound, or the cgroup is newer) resolves to nothing until a later walk names
 * it, is counted in `unnamed` when the walk was cut, and the first cut walk is logged.
 *
 * Paths are cached in CGROUP_CACHE_SLOTS slots (direct-mapped by id: a new id takes its
 * slot's place), and an id that resolves to nothing (a removed cgroup) is not looked up again
 * for CGROUP_RETRY_SECONDS (CGROUP_WALK_SECONDS when a walk looked for it): memory and lookup
 * cost stay bounded whatever the map holds. */
#ifndef EBPF_CORE_CGROUP_PATHS_H
#define EBPF_CORE_CGROUP_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define CGROUP_CACHE_SLOTS 1024
#define CGROUP_RETRY_SECONDS 10
#define CGROUP_WALK_SECONDS 1
#define CGROUP_WALK_MAX 16384
#define CGROUP_WALK_NAME_BYTES (1 << 20)
#define CGROUP_WALK_MS 200
#define CGROUP_WALK_DEPTH_MAX 32 /* levels a walk goes down when walk_depth is 0 (or more) */

/* A cgroup one walk met: its id, its parent's index (0 is the mount's root) and name. */
struct cgroup_walked {
	uint64_t id;
	uint32_t parent;
	uint32_t name;  /* offset in names */
	uint32_t depth;
};

struct cgroup_slot {
	uint64_t id;         /* 0: empty */
	char *path;          /* NULL: not found, retry after retry_at */
	time_t retry_at;
};

struct cgroup_paths {
	char root[512];      /* the cgroup2 mount point */
	int root_fd;
	struct cgroup_slot slots[CGROUP_CACHE_SLOTS];
	unsigned long lookups, walks; /* misses, and the walks made for them */
	unsigned long unnamed; /* misses a cut walk could not name */
	int walk_only;       /* tests: never open by handle */
	uint32_t walk_depth; /* levels a walk goes down (CgroupDepth); 0: CGROUP_WALK_DEPTH_MAX */
	/* The last walk: the cgroups it met in walk order, indexed by id (index: entry + 1, open
	 * addressing, index_cap slots), when it ended, and whether it stopped at a bound. */
	struct cgroup_walked *walked;
	uint32_t nwalked, walked_cap;
	uint32_t *index;
	uint32_t index_cap;
	char *names;
	size_t names_len, names_cap;
	int64_t walked_at_ms; /* 0: no walk yet */
	bool walk_cut, cut_logged;
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
