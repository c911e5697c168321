#include "oom_cgroup.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_file(const char *dir, const char *file, const char *value)
{
	char path[800];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fputs(value, f) >= 0;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

static int file_has_word(const char *path, const char *word)
{
	char buf[512], *tok, *save;
	FILE *f = fopen(path, "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(buf, sizeof(buf), f))
		for (tok = strtok_r(buf, " \n", &save); tok && !found; tok = strtok_r(NULL, " \n", &save))
			found = !strcmp(tok, word);
	fclose(f);
	return found;
}

/* Mount point of cgroup2 with the memory controller, else of the v1 memory hierarchy. */
static int find_memory_mount(char *mnt, size_t len, int *v2)
{
	char dev[256], dir[512], type[64], opts[512], ctl[600];
	FILE *f = fopen("/proc/self/mounts", "r");
	int found = 0;

	if (!f)
		return -1;
	while (fscanf(f, "%255s %511s %63s %511s %*d %*d", dev, dir, type, opts) == 4) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(ctl, sizeof(ctl), "%s/cgroup.controllers", dir);
			if (file_has_word(ctl, "memory")) {
				snprintf(mnt, len, "%s", dir);
				*v2 = 1;
				found = 2;
				break;
			}
		} else if (!strcmp(type, "cgroup") && found == 0) {
			char *o, *save;

			for (o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
				if (!strcmp(o, "memory"))
					break;
			if (o) {
				snprintf(mnt, len, "%s", dir);
				*v2 = 0;
				found = 1;
			}
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

int oom_cgroup_create(struct oom_cgroup *cg, const char *name, size_t limit_bytes, char *why, size_t whylen)
{
	char mnt[512], limit[32];

	if (find_memory_mount(mnt, sizeof(mnt), &cg->v2)) {
		snprintf(why, whylen, "no cgroup memory controller is mounted (neither cgroup2 with \"memory\" in "
				      "cgroup.controllers nor a v1 memory hierarchy): the test cannot make an OOM kill");
		return -1;
	}
	snprintf(cg->path, sizeof(cg->path), "%s/%s", mnt, name);
	snprintf(limit, sizeof(limit), "%zu", limit_bytes);
	/* v2: the parent must hand the memory controller down. */
	if (cg->v2)
		write_file(mnt, "cgroup.subtree_control", "+memory");
	if (mkdir(cg->path, 0755) && errno != EEXIST) {
		snprintf(why, whylen, "cannot create %s: %s", cg->path, strerror(errno));
		return -1;
	}
	if (cg->v2) {
		if (write_file(cg->path, "memory.max", limit)) {
			snprintf(why, whylen, "cannot set %s/memory.max: %s", cg->path, strerror(errno));
			oom_cgroup_remove(cg);
			return -1;
		}
		write_file(cg->path, "memory.swap.max", "0"); /* absent without swap accounting */
	} else {
		if (write_file(cg->path, "memory.limit_in_bytes", limit)) {
			snprintf(why, whylen, "cannot set %s/memory.limit_in_bytes: %s", cg->path, strerror(errno));
			oom_cgroup_remove(cg);
			return -1;
		}
		write_file(cg->path, "memory.memsw.limit_in_bytes", limit); /* absent without swap accounting */
	}
	return 0;
}

/* The child: joins, renames itself, touches memory 1 MiB at a time. It gives up (exit 3)
 * after 2 GiB, so a limit the kernel does not enforce cannot eat the machine. */
static void hog(const struct oom_cgroup *cg, const char *comm)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (write_file(cg->path, "cgroup.procs", pid))
		_exit(2);
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	for (int mib = 0; mib < 2048; mib++) {
		char *p = malloc(1 << 20);

		if (!p)
			_exit(4);
		memset(p, 0x5a, 1 << 20);
	}
	_exit(3);
}

pid_t oom_cgroup_run_hog(const struct oom_cgroup *cg, const char *comm, int *killed_by_oom)
{
	pid_t pid = fork();
	int status = 0;

	*killed_by_oom = 0;
	if (pid < 0)
		return -1;
	if (pid == 0)
		hog(cg, comm);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*killed_by_oom = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	if (!*killed_by_oom)
		fprintf(stderr, "oom hog %d ended without SIGKILL (status 0x%x)\n", (int)pid, status);
	return pid;
}

void oom_cgroup_remove(const struct oom_cgroup *cg)
{
	for (int i = 0; i < 100; i++) {
		if (rmdir(cg->path) == 0 || errno == ENOENT)
			return;
		usleep(20000);
	}
	fprintf(stderr, "could not remove %s: %s\n", cg->path, strerror(errno));
}
