/* Workload for the integration tests: one OOM kill. Creates a memory-limited cgroup, runs
 * a child named "ebpf_oom_hog" in it that allocates until the kernel kills it, removes the
 * cgroup and prints "victim <pid>". Exit 0 after an OOM kill, 77 when no cgroup memory
 * controller lets us make one, 1 otherwise. Usage: oom_hog [name], the name of the child
 * (any bytes, as prctl(PR_SET_NAME) takes them: tests log-injection through it). */
#include "tests/oom_cgroup.h"

#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct oom_cgroup cg;
	char name[64], why[512];
	int killed;
	pid_t victim;

	snprintf(name, sizeof(name), "ebpf-test-oom-%d", (int)getpid());
	if (oom_cgroup_create(&cg, name, 32 << 20, why, sizeof(why))) {
		fprintf(stderr, "oom_hog: %s\n", why);
		return 77;
	}
	victim = oom_cgroup_run_hog(&cg, argc > 1 ? argv[1] : "ebpf_oom_hog", &killed);
	oom_cgroup_remove(&cg);
	if (victim < 0 || !killed)
		return 1;
	printf("victim %d\n", (int)victim);
	return 0;
}
