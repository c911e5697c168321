#define _GNU_SOURCE /* O_DIRECT */
#include "tests/support/loop_device.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int backing_file(struct loop_device *l, int mib, const char *dir)
{
	const char *const dirs[] = { dir ? dir : "/dev/shm", dir ? dir : "/var/tmp" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int fd;

		snprintf(l->backing, sizeof(l->backing), "%s/ebpf-test-loop-XXXXXX", dirs[i]);
		fd = mkstemp(l->backing);
		if (fd < 0)
			continue;
		unlink(l->backing); /* the loop device keeps it alive; nothing to clean up */
		if (!ftruncate(fd, (off_t)mib << 20))
			return fd;
		close(fd);
	}
	return -1;
}

/* LOOP_CONFIGURE (5.8+) sets the file, direct IO and autoclear in one step. A backing file
 * without O_DIRECT (tmpfs before 6.6, the matrix VMs' rootfs) makes some kernels refuse
 * direct IO with EINVAL: then the loop device does buffered IO on its file, which changes
 * nothing of the requests on the loop device itself, the ones the tests count. */
static int attach_free(struct loop_device *l, int file, char *err, size_t errlen)
{
	struct loop_config cfg = { .fd = (unsigned int)file };
	char path[64];
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), n, fd, rc;

	if (ctl < 0) {
		snprintf(err, errlen, "/dev/loop-control: %s (no loop driver?)", strerror(errno));
		return -1;
	}
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (n < 0) {
		snprintf(err, errlen, "no free loop device: %s", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "/dev/loop%d", n);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
	rc = ioctl(fd, LOOP_CONFIGURE, &cfg);
	if (rc && errno == EINVAL) {
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		rc = ioctl(fd, LOOP_CONFIGURE, &cfg);
	}
	if (rc) {
		snprintf(err, errlen, "LOOP_CONFIGURE %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	snprintf(l->name, sizeof(l->name), "loop%d", n);
	l->dev = 7u << 20 | (unsigned int)n; /* LOOP_MAJOR */
	return fd;
}

static bool sysfs_flag(const char *name, const char *file)
{
	char path[128];
	FILE *f;
	int v = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/%s", name, file);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v == 1;
}

int loop_device_setup(struct loop_device *l, int mib, const char *dir, char *err, size_t errlen)
{
	char path[64];
	int file = backing_file(l, mib, dir), ctl_fd;

	l->fd = -1;
	if (file < 0) {
		snprintf(err, errlen, "cannot create a %d MiB file in %s", mib, dir ? dir : "/dev/shm or /var/tmp");
		return -1;
	}
	ctl_fd = attach_free(l, file, err, errlen);
	close(file);
	if (ctl_fd < 0)
		return -1;
	/* The O_DIRECT descriptor the bench reads through; then drop the configuring one, so
	 * that this is the last opener autoclear waits for. */
	snprintf(path, sizeof(path), "/dev/%s", l->name);
	l->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (l->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		ioctl(ctl_fd, LOOP_CLR_FD, 0);
	}
	close(ctl_fd);
	l->direct_io = sysfs_flag(l->name, "loop/dio");
	return l->fd < 0 ? -1 : 0;
}

void loop_device_remove(struct loop_device *l)
{
	if (l->fd < 0)
		return;
	/* Detach now; autoclear would do it at the close too, a moment later. */
	ioctl(l->fd, LOOP_CLR_FD, 0);
	close(l->fd);
	l->fd = -1;
}

void loop_device_scheduler(const struct loop_device *l, char *buf, size_t len)
{
	char path[128], line[256] = "";
	FILE *f;
	char *open_br, *close_br;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", l->name);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		open_br = strchr(line, '[');
		close_br = open_br ? strchr(open_br, ']') : NULL;
		if (close_br)
			snprintf(buf, len, "%.*s", (int)(close_br - open_br - 1), open_br + 1);
	}
	fclose(f);
}
