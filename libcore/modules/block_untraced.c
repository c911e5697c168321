#include "libcore/modules/block_untraced.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct untraced_disk *find(struct block_untraced *u, uint32_t dev)
{
	for (int i = 0; i < u->n; i++)
		if (u->v[i].dev == dev)
			return &u->v[i];
	return NULL;
}

static struct untraced_disk *add(struct block_untraced *u, const struct diskstats_disk *d)
{
	char path[DISK_NAME_LEN + 32];
	struct untraced_disk *x;

	if (u->n == u->cap) {
		int cap = u->cap ? 2 * u->cap : 32;
		void *v = realloc(u->v, (size_t)cap * sizeof(*u->v));

		if (!v)
			return NULL;
		u->v = v;
		u->cap = cap;
	}
	x = &u->v[u->n++];
	memset(x, 0, sizeof(*x));
	x->dev = d->dev;
	snprintf(x->name, sizeof(x->name), "%s", d->name);
	snprintf(path, sizeof(path), "%s/block/%s/mq", u->sysfs ? u->sysfs : "/sys", d->name);
	x->request_based = access(path, F_OK) == 0;
	return x;
}

static void take(void *ctx, const struct diskstats_disk *d)
{
	struct block_untraced *u = ctx;
	struct untraced_disk *x = find(u, d->dev);

	if (!x) {
		x = add(u, d);
		if (!x)
			return;
	}
	/* A name change means the dev_t was reused by a new disk: start it over. */
	if (strcmp(x->name, d->name)) {
		snprintf(x->name, sizeof(x->name), "%s", d->name);
		memset(x->base, 0, sizeof(x->base));
		memset(x->reported, 0, sizeof(x->reported));
	}
	for (int op = 0; op < UNTRACED_OPS; op++) {
		x->has[op] = d->has[op];
		x->kernel[op] = d->completed[op];
		if (!u->started)
			x->base[op] = d->completed[op];
		else if (x->kernel[op] < x->base[op]) /* counters went back: the disk was recreated */
			x->base[op] = 0;
	}
}

int block_untraced_start(struct block_untraced *u)
{
	int e;

	u->started = false;
	e = diskstats_each(u->diskstats, take, u);
	u->started = e == 0;
	return e;
}

int block_untraced_read_kernel(struct block_untraced *u)
{
	for (int i = 0; i < u->n; i++)
		memset(u->v[i].traced, 0, sizeof(u->v[i].traced));
	return diskstats_each(u->diskstats, take, u);
}

void block_untraced_set_traced(struct block_untraced *u, uint32_t dev, unsigned int op, uint64_t ios)
{
	struct untraced_disk *x = find(u, dev);

	if (x && op < UNTRACED_OPS)
		x->traced[op] = ios;
}

void block_untraced_each(struct block_untraced *u,
			 void (*fn)(void *ctx, const char *disk, unsigned int op, uint64_t untraced), void *ctx)
{
	for (int i = 0; i < u->n; i++) {
		struct untraced_disk *x = &u->v[i];

		if (!x->request_based)
			continue;
		for (int op = 0; op < UNTRACED_OPS; op++) {
			uint64_t accounted = x->kernel[op] - x->base[op];

			if (!x->has[op] || !accounted)
				continue;
			if (accounted > x->traced[op] && accounted - x->traced[op] > x->reported[op])
				x->reported[op] = accounted - x->traced[op];
			fn(ctx, x->name, (unsigned int)op, x->reported[op]);
		}
	}
}

void block_untraced_free(struct block_untraced *u)
{
	free(u->v);
	memset(u, 0, sizeof(*u));
}
