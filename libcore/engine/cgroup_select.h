/* The `Cgroup` globs applied in the kernel as well (cgroup_key.bpf.h, cgroup_select): where
 * every glob lies below a directory it names before its first wildcard (cgroup_options_prefixes:
 * "/system.slice/ssh*" below /system.slice), an event whose cgroup descends from none of
 * those directories takes no per-cgroup row, so that a flood of cgroups outside the selection
 * (a user's, in a delegated subtree) never fills the tables the selected ones need, whatever
 * cgroup_ignored remembers. Decided before load (how many directories, cgroup_select_n);
 * their ids written after load and checked at every read: a directory made, removed or made
 * again (a new id) is written again. One that does not exist counts as its deepest existing
 * ancestor among its own components ("/system.slice/app.service/x*" before app.service starts:
 * /system.slice), so that a cgroup made below it before the next read still counts; one
 * whose first component does not exist lets nothing through until a read finds it. */
#ifndef EBPF_CORE_CGROUP_SELECT_H
#define EBPF_CORE_CGROUP_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/include/cgroup_key.h"
#include "libcore/engine/cgroup_options.h"

struct bpf_object;

struct cgroup_select {
	const struct cgroup_options *o;
	struct cgroup_prefix dirs[CGROUP_SELECT_MAX];
	int n;                                       /* 0: no filter in the kernel */
	const char *why;                             /* and why not */
	int fd;                                      /* the map cgroup_select, or -1 */
	struct cgroup_select_dir written[CGROUP_SELECT_MAX]; /* what the map holds (id 0: nothing yet) */
};

/* Before load: the number of directories into the rodata cgroup_select_n, the map made only
 * with some. 0 or -errno. */
int cgroup_select_configure(struct bpf_object *obj, const struct cgroup_options *o);
/* After load: s for the loaded object's map (fd, or -1 when it was not made). */
void cgroup_select_init(struct cgroup_select *s, const struct cgroup_options *o, int fd);
/* The directories' ids below root_fd (the cgroup2 mount) written where they changed. */
void cgroup_select_update(struct cgroup_select *s, int root_fd);
/* For the log: "below /a, /b" or why the globs are applied at each read only. */
void cgroup_select_describe(const struct cgroup_select *s, char *out, size_t len);

#endif
