/* A scratch ext4 filesystem on a loop device, for tests that need real block-backed page
 * cache (drop_caches empties it, unlike tmpfs) or ext4's own functions. The loop device is
 * set up with ioctls (no losetup needed in a minimal initramfs); mkfs.ext4 must be on PATH.
 * Everything is undone by loop_ext4_teardown, also after a failed setup. */
#ifndef EBPF_TESTS_LOOP_EXT4_H
#define EBPF_TESTS_LOOP_EXT4_H

#include "base/err_max.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct loop_ext4 {
	char image[64];
	char dev[32];
	char mnt[64];
	int dev_fd;
	bool mounted;
	char why[ERR_MAX]; /* reason a setup failed */
};

static inline int loop_ext4_run_mkfs(const char *dev)
{
	char *argv[] = { "mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", (char *)dev, NULL };
	pid_t pid;
	int status;

	if (posix_spawnp(&pid, "mkfs.ext4", NULL, NULL, argv, environ))
		return -1;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) == 0 ? 0 : -1;
}

static inline void loop_ext4_teardown(struct loop_ext4 *l)
{
	if (l->mounted && umount(l->mnt) == 0)
		l->mounted = false;
	if (l->mnt[0])
		rmdir(l->mnt);
	if (l->dev_fd >= 0) {
		ioctl(l->dev_fd, LOOP_CLR_FD, 0);
		close(l->dev_fd);
		l->dev_fd = -1;
	}
	if (l->image[0])
		unlink(l->image);
	l->image[0] = l->mnt[0] = '\0';
}

/* 0, or -1 with l->why set and nothing left behind. */
static inline int loop_ext4_setup(struct loop_ext4 *l, unsigned int megabytes)
{
	int ctl, img, n;

	memset(l, 0, sizeof(*l));
	l->dev_fd = -1;
	snprintf(l->image, sizeof(l->image), "/var/tmp/ebpf-test-ext4-XXXXXX");
	img = mkstemp(l->image);
	if (img < 0 || ftruncate(img, (off_t)megabytes << 20)) {
		snprintf(l->why, sizeof(l->why), "cannot create the image file: %s", strerror(errno));
		goto fail;
	}
	ctl = open("/dev/loop-control", O_RDWR);
	n = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (ctl >= 0)
		close(ctl);
	if (n < 0) {
		snprintf(l->why, sizeof(l->why), "no free loop device (/dev/loop-control: %s)", strerror(errno));
		goto fail;
	}
	snprintf(l->dev, sizeof(l->dev), "/dev/loop%d", n);
	if (access(l->dev, F_OK))
		mknod(l->dev, S_IFBLK | 0600, makedev(7, n)); /* a bare /dev without udev */
	l->dev_fd = open(l->dev, O_RDWR);
	if (l->dev_fd < 0 || ioctl(l->dev_fd, LOOP_SET_FD, img)) {
		snprintf(l->why, sizeof(l->why), "cannot attach %s: %s", l->dev, strerror(errno));
		if (l->dev_fd >= 0)
			close(l->dev_fd);
		l->dev_fd = -1;
		goto fail;
	}
	close(img);
	img = -1;
	if (loop_ext4_run_mkfs(l->dev)) {
		snprintf(l->why, sizeof(l->why), "mkfs.ext4 %s failed (is e2fsprogs installed?)", l->dev);
		goto fail;
	}
	snprintf(l->mnt, sizeof(l->mnt), "/var/tmp/ebpf-test-mnt-XXXXXX");
	if (!mkdtemp(l->mnt)) {
		l->mnt[0] = '\0';
		snprintf(l->why, sizeof(l->why), "mkdtemp: %s", strerror(errno));
		goto fail;
	}
	if (mount(l->dev, l->mnt, "ext4", 0, NULL)) {
		snprintf(l->why, sizeof(l->why), "mount -t ext4 %s: %s (is ext4 built in or loaded?)", l->dev,
			 strerror(errno));
		goto fail;
	}
	l->mounted = true;
	return 0;
fail:
	if (img >= 0)
		close(img);
	loop_ext4_teardown(l);
	return -1;
}

/* Writes back and drops the clean page cache, dentries and inodes (as root). */
static inline int drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int ok;

	sync();
	if (fd < 0)
		return -1;
	ok = write(fd, "3", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

#endif
