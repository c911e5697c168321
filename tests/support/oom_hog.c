/* Workload for the integration tests: OOM kills. Creates a memory-limited cgroup, runs
 * a child named "ebpf_oom_hog" in it that allocates until the kernel kills it (COUNT times,
 * one after the other: an OOM storm), prints "cgroup2 <path>", the cgroup v2 the victims
 * are in (the new cgroup where the memory controller is v2's, else this process's own, as
 * /proc/self/cgroup says), and "victim <pid>" per kill, keeps the cgroup HOLD seconds (so that a reader can still resolve its path),
 * removes it. Exit 0 after COUNT OOM kills, 77 when no cgroup memory controller lets us
 * make one, 1 otherwise. Usage: oom_hog [name [count [hold]]], name the child's (any bytes,
 * as prctl(PR_SET_NAME) takes them: tests log-injection through it). */
#include "tests/support/oom_cgroup.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *comm = argc > 1 ? argv[1] : "ebpf_oom_hog";
	int count = argc > 2 ? atoi(argv[2]) : 1, hold = argc > 3 ? atoi(argv[3]) : 0;
	struct oom_cgroup cg;
	char name[64], why[ERR_MAX];
	int rc = 0;

	snprintf(name, sizeof(name), "ebpf-test-oom-%d", (int)getpid());
	if (oom_cgroup_create(&cg, name, 32 << 20, why, sizeof(why))) {
		fprintf(stderr, "oom_hog: %s\n", why);
		return 77;
	}
	if (cg.v2) {
		printf("cgroup2 %s\n", strrchr(cg.path, '/'));
	} else {
		char line[1024];
		FILE *f = fopen("/proc/self/cgroup", "r");

		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "0::", 3))
				printf("cgroup2 %s", line + 3);
		if (f)
			fclose(f);
	}
	for (int i = 0; i < count && rc == 0; i++) {
		int killed;
		pid_t victim = oom_cgroup_run_hog(&cg, comm, &killed);

		if (victim < 0 || !killed)
			rc = 1;
		else
			printf("victim %d\n", (int)victim);
	}
	fflush(stdout);
	if (hold > 0)
		sleep((unsigned int)hold);
	oom_cgroup_remove(&cg);
	return rc;
}
