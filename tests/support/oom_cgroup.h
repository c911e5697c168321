/* A memory-limited cgroup and a child that allocates in it until the kernel OOM-kills it,
 * for the process module's tests.
 *
 * cgroup v2 when its memory controller is available (memory.max, memory.swap.max 0);
 * otherwise the v1 memory hierarchy (memory.limit_in_bytes, memsw too), which is where
 * hosts that still mount v1 keep the memory controller. */
#ifndef EBPF_TESTS_OOM_CGROUP_H
#define EBPF_TESTS_OOM_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

struct oom_cgroup {
	char path[768];
	int v2;
};

/* 0, or -1 with the reason in why (no memory controller, not root). */
int oom_cgroup_create(struct oom_cgroup *cg, const char *name, size_t limit_bytes, char *why, size_t whylen);
/* Forks a child named `comm` that joins the cgroup and allocates until killed; waits for
 * it. Returns its pid, and *killed_by_oom = 1 if SIGKILL ended it; -1 if fork failed. */
pid_t oom_cgroup_run_hog(const struct oom_cgroup *cg, const char *comm, int *killed_by_oom);
/* Removes the cgroup (retries while the kernel drains it). */
void oom_cgroup_remove(const struct oom_cgroup *cg);

#endif
