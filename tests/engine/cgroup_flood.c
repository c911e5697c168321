/* A cgroup flood, as any user with a delegated subtree can make it: COUNT cgroups
 * PARENT/f0..., made (kept when they exist) and then visited by this process itself, which
 * moves into each (writing 0 into its cgroup.procs: the common ancestor PARENT's cgroup.procs
 * must be the user's) and calls sched_rr_get_interval() once there, a syscall nothing else
 * on a host calls, so that its host-wide count is exactly the flood's. The cgroups stay; the
 * process ends back in PARENT/init. With "remove" instead of a count of calls: the cgroups
 * removed. In C: a script needs a process per cgroup, this takes a fraction of a second.
 * Usage: cgroup_flood PARENT COUNT CALLS | cgroup_flood PARENT COUNT remove */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int move_into(const char *dir)
{
	char procs[4200];
	int fd, ok;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && write(fd, "0", 1) == 1;
	if (!ok)
		perror(procs);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	char dir[4096], home[4096];
	struct timespec t0, t1, ts;
	int count, calls;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PARENT COUNT CALLS|remove\n", argv[0]);
		return 2;
	}
	count = atoi(argv[2]);
	snprintf(home, sizeof(home), "%s/init", argv[1]);
	if (!strcmp(argv[3], "remove")) {
		for (int i = 0; i < count; i++) {
			snprintf(dir, sizeof(dir), "%s/f%d", argv[1], i);
			if (rmdir(dir) && errno != ENOENT) {
				perror(dir);
				return 1;
			}
		}
		return 0;
	}
	calls = atoi(argv[3]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < count; i++) {
		snprintf(dir, sizeof(dir), "%s/f%d", argv[1], i);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			perror(dir);
			return 1;
		}
	}
	for (int i = 0; i < count; i++) {
		snprintf(dir, sizeof(dir), "%s/f%d", argv[1], i);
		if (move_into(dir))
			return 1;
		for (int c = 0; c < calls; c++)
			syscall(SYS_sched_rr_get_interval, 0, &ts);
	}
	if (move_into(home))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%d cgroups made and visited in %.2f s\n", count,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
