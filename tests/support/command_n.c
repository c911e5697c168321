/* Workload for the By "command" tests: a process that names itself (prctl PR_SET_NAME, the
 * comm that ps and biosnoop show) and then makes exactly known calls.
 *   command_n NAME CALLS [DEVICE READS SIZE]
 *       named NAME: CALLS sched_rr_get_interval() calls (a syscall nothing else on a test
 *       machine makes), then READS O_DIRECT reads of SIZE bytes from DEVICE, one after another
 *   command_n --flood PREFIX N
 *       N names PREFIX0, PREFIX1, ... one after another, one sched_rr_get_interval() call
 *       under each
 * Named, it makes no other call the tests count: it ends with _exit(). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int name_self(const char *name)
{
	if (prctl(PR_SET_NAME, name, 0, 0, 0)) {
		perror("prctl(PR_SET_NAME)");
		return -1;
	}
	return 0;
}

static int calls(long n)
{
	struct timespec ts;

	for (long i = 0; i < n; i++)
		if (sched_rr_get_interval(0, &ts)) {
			perror("sched_rr_get_interval");
			return -1;
		}
	return 0;
}

static int reads(const char *dev, long n, long size)
{
	void *buf;
	int fd = open(dev, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, 4096, (size_t)size)) {
		perror(dev);
		return -1;
	}
	for (long i = 0; i < n; i++)
		if (pread(fd, buf, (size_t)size, (off_t)(i * size)) != size) {
			perror("pread");
			return -1;
		}
	free(buf);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	char name[16];
	long n;

	if (argc == 4 && !strcmp(argv[1], "--flood") && (n = atol(argv[3])) > 0) {
		for (long i = 0; i < n; i++) {
			/* a command name holds 15 characters: a longer one is cut here as the kernel
			 * would cut it (prctl PR_SET_NAME) */
			if (snprintf(name, sizeof(name), "%s%ld", argv[2], i) < 0 || name_self(name) || calls(1))
				return 1;
		}
		return 0;
	}
	if ((argc != 3 && argc != 6) || (n = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: %s NAME CALLS [DEVICE READS SIZE] | --flood PREFIX N\n", argv[0]);
		return 2;
	}
	if (name_self(argv[1]) || calls(n))
		return 1;
	if (argc == 6 && reads(argv[3], atol(argv[4]), atol(argv[5])))
		return 1;
	/* No exit handlers: a sanitized build's leak check would read /proc/self/maps under the
	 * command's name, calls the tests count exactly. */
	_exit(0);
}
