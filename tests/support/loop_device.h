/* A loop device for block IO with known sizes (tests/block/test_block, bench/block_cost): over
 * a file on tmpfs (the bench: no other disk's IO is traced along with it) or in a directory
 * the caller names, with direct IO where the backing filesystem has it, set up with ioctls (no losetup: the kernel matrix's initramfs
 * has none), and gone when the process ends however it ends. */
#ifndef EBPF_TESTS_LOOP_DEVICE_H
#define EBPF_TESTS_LOOP_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

struct loop_device {
	int fd;           /* /dev/loopN, open O_RDONLY | O_DIRECT; -1 if none */
	unsigned int dev; /* its dev_t as the block tracepoints print it: major << 20 | minor */
	char name[32];    /* "loop3" */
	char backing[64]; /* where the (already unlinked) file was */
	bool direct_io;   /* the loop driver took LO_FLAGS_DIRECT_IO */
};

/* Attaches a free loop device over a new `mib` MiB file in dir (NULL: /dev/shm, else /var/tmp),
 * with autoclear: the kernel detaches it when its last opener, this process, closes it or
 * dies, and the file is unlinked at once. 0, or -1 with the reason in err. */
int loop_device_setup(struct loop_device *l, int mib, const char *dir, char *err, size_t errlen);
/* Detaches it now. Safe to call twice. */
void loop_device_remove(struct loop_device *l);
/* "mq-deadline", from /sys/block/<name>/queue/scheduler; "?" if unknown. */
void loop_device_scheduler(const struct loop_device *l, char *buf, size_t len);

#endif
