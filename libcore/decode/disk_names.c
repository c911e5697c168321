#include "libcore/decode/disk_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int uevent_devname(const char *text, char *out, size_t len)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "DEVNAME=", 8)) {
			const char *v = line + 8;
			size_t n = strcspn(v, "\n");

			if (n == 0 || n >= len)
				return -1;
			memcpy(out, v, n);
			out[n] = '\0';
			return 0;
		}
	}
	return -1;
}

int partitions_name(const char *text, unsigned int major, unsigned int minor, char *out, size_t len)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned int ma, mi;
		unsigned long long blocks;
		char name[DISK_NAME_LEN];

		if (sscanf(line, "%u %u %llu %63s", &ma, &mi, &blocks, name) == 4 && ma == major && mi == minor &&
		    strlen(name) < len) {
			strcpy(out, name);
			return 0;
		}
	}
	return -1;
}

static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

/* /proc/partitions line by line: it has a line per partition and grows past any buffer
 * on a host with many disks (a fixed 16 KiB read missed every disk after the cut). */
static int partitions_file_name(const char *path, unsigned int major, unsigned int minor, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int r = -1;

	if (!f)
		return -1;
	while (r && fgets(line, sizeof(line), f))
		r = partitions_name(line, major, minor, out, len);
	fclose(f);
	return r;
}

static int resolve(const struct disk_names *c, uint32_t dev, char *out, size_t len)
{
	char path[256], text[4096];

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/uevent", c->sysfs ? c->sysfs : "/sys", kdev_major(dev),
		 kdev_minor(dev));
	if (!read_text(path, text, sizeof(text)) && !uevent_devname(text, out, len))
		return 0;
	return partitions_file_name(c->partitions ? c->partitions : "/proc/partitions", kdev_major(dev),
				    kdev_minor(dev), out, len);
}

const char *disk_name(struct disk_names *c, uint32_t dev)
{
	struct disk_name_entry *e;

	for (int i = 0; i < c->n; i++) {
		e = &c->v[i];
		if (e->dev != dev)
			continue;
		if (e->generation != c->generation) {
			char now[DISK_NAME_LEN];

			e->generation = c->generation;
			if (!resolve(c, dev, now, sizeof(now)))
				memcpy(e->name, now, sizeof(now));
		}
		return e->name;
	}
	/* A key that is not a disk after all (the majorminor label decoder reads users' maps)
	 * must not grow the cache without bound: a full cache empties and fills again. */
	if (c->n == DISK_NAMES_MAX)
		c->n = 0;
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 16;
		struct disk_name_entry *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			goto fallback;
		c->v = v;
		c->cap = cap;
	}
	e = &c->v[c->n];
	if (resolve(c, dev, e->name, sizeof(e->name)))
		goto fallback;
	e->dev = dev;
	e->generation = c->generation;
	c->n++;
	return e->name;
fallback:
	snprintf(c->unresolved, sizeof(c->unresolved), "%u_%u", kdev_major(dev), kdev_minor(dev));
	return c->unresolved;
}

void disk_names_expire(struct disk_names *c)
{
	c->generation++;
}

void disk_names_free(struct disk_names *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}
