/* Cgroup churn for the integration tests: COUNT cgroups PARENT/c<FIRST>..., one after the
 * other and at most PER_SECOND a second, each made, given one process that calls fsync()
 * FSYNCS times and exits, and removed. In C rather than in the test script, which needs four
 * processes per cgroup: 2,000 cgroups take seconds, not minutes on a loaded machine.
 *
 * The process is a forked child, not an exec'd fsync_n: it calls a handful of syscalls (the
 * write into cgroup.procs, fsync, exit), each a row of the per-cgroup kernel table until the
 * next read deletes the removed cgroup's rows, where fsync_n's loader would add twenty. The
 * file is on tmpfs (an fsync there is cheap and counted all the same).
 * With `keep` last, the cgroups are left for the caller to remove (a flood that stays).
 * Usage: cgroup_churn PARENT FIRST COUNT FSYNCS PER_SECOND [keep] */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child: into the cgroup, then the workload. */
static void run_in(const char *dir, int file, int fsyncs)
{
	char procs[4200];
	int fd;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	fd = open(procs, O_WRONLY);
	if (fd < 0 || write(fd, "0", 1) != 1) {
		perror(procs);
		_exit(1);
	}
	close(fd);
	for (int i = 0; i < fsyncs; i++)
		if (fsync(file)) {
			perror("fsync");
			_exit(1);
		}
	_exit(0);
}

/* Paces the churn: returns once cgroup N may start, N / PER_SECOND after the first. */
static void pace(const struct timespec *t0, int n, int per_second)
{
	struct timespec now, wait;
	double due = (double)n / per_second, spent;

	clock_gettime(CLOCK_MONOTONIC, &now);
	spent = (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
	if (spent >= due)
		return;
	wait.tv_sec = (time_t)(due - spent);
	wait.tv_nsec = (long)((due - spent - wait.tv_sec) * 1e9);
	nanosleep(&wait, NULL);
}

/* The exited child leaves its cgroup a moment after it was reaped: rmdir says EBUSY until
 * then. Gives up after 3 s. */
static int remove_cgroup(const char *dir)
{
	struct timespec pause = { 0, 1000000 };

	for (int i = 0; i < 3000; i++) {
		if (!rmdir(dir))
			return 0;
		if (errno != EBUSY)
			break;
		nanosleep(&pause, NULL);
	}
	fprintf(stderr, "cannot remove the cgroup %s: %s\n", dir, strerror(errno));
	return -1;
}

int main(int argc, char **argv)
{
	char dir[4096], file_path[] = "/dev/shm/cgroup_churn.XXXXXX";
	int first, count, fsyncs, per_second, status, file;
	bool keep = argc == 7 && !strcmp(argv[6], "keep");
	struct timespec t0;
	pid_t pid;

	if ((argc != 6 && !keep) || (first = atoi(argv[2])) < 0 || (count = atoi(argv[3])) <= 0 || (fsyncs = atoi(argv[4])) <= 0 ||
	    (per_second = atoi(argv[5])) <= 0) {
		fprintf(stderr, "usage: %s PARENT FIRST COUNT FSYNCS PER_SECOND [keep]\n", argv[0]);
		return 2;
	}
	file = mkstemp(file_path);
	if (file < 0) {
		perror(file_path);
		return 1;
	}
	unlink(file_path);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = first; i < first + count; i++) {
		pace(&t0, i - first, per_second);
		snprintf(dir, sizeof(dir), "%s/c%d", argv[1], i);
		if (mkdir(dir, 0755)) {
			perror(dir);
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid)
			run_in(dir, file, fsyncs);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "the workload in %s failed\n", dir);
			return 1;
		}
		if (!keep && remove_cgroup(dir))
			return 1;
	}
	return 0;
}
