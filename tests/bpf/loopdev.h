/* A loop device over a temporary file, for block IO tests with known sizes: attached with
 * direct IO (so the loop device's own requests are what the test issues), detached and
 * its file removed at exit whatever happens. */
#ifndef EBPF_TESTS_LOOPDEV_H
#define EBPF_TESTS_LOOPDEV_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char loopdev_path[64];   /* /dev/loopN */
static char loopdev_file[64];

static void loopdev_cleanup(void)
{
	char cmd[128];

	if (loopdev_path[0]) {
		snprintf(cmd, sizeof(cmd), "losetup -d %s", loopdev_path);
		if (system(cmd))
			fprintf(stderr, "could not detach %s\n", loopdev_path);
		loopdev_path[0] = '\0';
	}
	if (loopdev_file[0]) {
		unlink(loopdev_file);
		loopdev_file[0] = '\0';
	}
}

/* Attaches a loop device over a new file of `mib` MiB; returns its name ("loop3") or NULL. */
static const char *loopdev_setup(int mib)
{
	char cmd[160];
	FILE *p;
	int fd;

	snprintf(loopdev_file, sizeof(loopdev_file), "/var/tmp/ebpf-test-block-XXXXXX");
	fd = mkstemp(loopdev_file);
	if (fd < 0)
		return NULL;
	atexit(loopdev_cleanup);
	if (ftruncate(fd, (off_t)mib << 20)) {
		close(fd);
		return NULL;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "losetup -f --show --direct-io=on %s", loopdev_file);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	if (!fgets(loopdev_path, sizeof(loopdev_path), p))
		loopdev_path[0] = '\0';
	pclose(p);
	loopdev_path[strcspn(loopdev_path, "\n")] = '\0';
	if (strncmp(loopdev_path, "/dev/loop", 9)) {
		loopdev_path[0] = '\0';
		return NULL;
	}
	/* udev may probe a new device; let it finish before the test counts IO. */
	if (system("command -v udevadm >/dev/null 2>&1 && udevadm settle -t 5 >/dev/null 2>&1"))
		fprintf(stderr, "(no udevadm settle: not waiting for udev)\n");
	return loopdev_path + 5;
}

/* Reads and writes completed (fields 4 and 8 of /proc/diskstats) for `name`; 0 or -1. */
static int diskstats_ios(const char *name, unsigned long long *reads, unsigned long long *writes)
{
	FILE *f = fopen("/proc/diskstats", "r");
	char line[512], dev[64];
	unsigned int ma, mi;
	unsigned long long r, rm, rs, rt, w;
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %u %63s %llu %llu %llu %llu %llu", &ma, &mi, dev, &r, &rm, &rs, &rt, &w) == 8 &&
		    !strcmp(dev, name)) {
			*reads = r;
			*writes = w;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

#endif
