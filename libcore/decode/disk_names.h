/* Disk names as /proc/diskstats spells them (sda, nvme0n1, loop0, dm-0), from the kernel's
 * dev_t the BPF programs report. Resolved in user space, never in BPF: the name is
 * DEVNAME in /sys/dev/block/MAJ:MIN/uevent, else the name column of /proc/partitions.
 * Names are cached for one read interval: disk_names_expire() (once per read) makes the
 * next lookup of each dev_t look again, because a hot-replugged disk can get a freed dev_t
 * under another name (dynamic minors of major 259: nvme, partitions). A dev_t that cannot
 * be resolved reads "MAJ_MIN" (c->unresolved itself: a caller tells it from a name by the
 * pointer) and is tried again on the next lookup; one that resolved
 * before and no longer does (the disk is gone) keeps its last name.
 * At most DISK_NAMES_MAX names are kept: a cache that fills is emptied and fills again (a
 * machine has far fewer disks; the bound is for a BPF map whose key is not a disk after
 * all, read through the majorminor label decoder). */
#ifndef EBPF_CORE_DISK_NAMES_H
#define EBPF_CORE_DISK_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define DISK_NAME_LEN 64
#define DISK_NAMES_MAX 4096

struct disk_name_entry {
	uint32_t dev;
	unsigned int generation; /* the interval the name was last looked up in */
	char name[DISK_NAME_LEN];
};

struct disk_names {
	struct disk_name_entry *v;
	int n, cap;
	const char *sysfs;       /* "/sys" unless a test says otherwise */
	const char *partitions;  /* "/proc/partitions" unless a test says otherwise */
	char unresolved[DISK_NAME_LEN];
	unsigned int generation;
};

/* The kernel's dev_t encoding (include/linux/kdev_t.h), as block tracepoints report it. */
static inline unsigned int kdev_major(uint32_t dev) { return dev >> 20; }
static inline unsigned int kdev_minor(uint32_t dev) { return dev & 0xfffff; }

/* DEVNAME=... of a uevent file's text into out: 0, or -1 if absent. */
int uevent_devname(const char *text, char *out, size_t len);
/* The name column of the /proc/partitions line for major:minor in text: 0, or -1. */
int partitions_name(const char *text, unsigned int major, unsigned int minor, char *out, size_t len);

/* The name of dev; the pointer stays valid until the next call or disk_names_free(). */
const char *disk_name(struct disk_names *c, uint32_t dev);
/* A new read interval: every cached name is looked up again when next asked for. */
void disk_names_expire(struct disk_names *c);
void disk_names_free(struct disk_names *c);

#endif
