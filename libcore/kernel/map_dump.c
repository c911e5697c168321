#include "libcore/kernel/map_dump.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's own ENOTSUPP; errno.h has no name for it (ENOTSUP is 95). */
#define KERNEL_ENOTSUPP 524

/* The one fallback rule. A batch lookup answers these when the kernel has no batch lookup
 * for the map, never when the map itself cannot be read, so the entry-by-entry walk is
 * tried (and reports a real error itself, if there is one):
 *   -EINVAL     kernels before 5.6 do not know BPF_MAP_LOOKUP_BATCH, and bpf() answers an
 *               unknown command EINVAL;
 *   -ENOTSUPP   (524) the kernel knows the command, but the map type has no batch op
 *               (bpf_map_do_batch; 5.10 answers it for arrays);
 *   -EOPNOTSUPP (the same number as ENOTSUP) and -ENOSYS: the names user space gives "not
 *               supported" and "not implemented", which a layer in front of bpf() (a
 *               seccomp filter, a sandbox emulating it) may answer instead of 524. */
bool map_dump_no_batch_here(int err)
{
	return err == -EINVAL || err == -KERNEL_ENOTSUPP || err == -EOPNOTSUPP || err == -ENOTSUP ||
	       err == -ENOSYS;
}

static int alloc_room(struct map_dump *d, uint32_t room)
{
	uint8_t *keys = realloc(d->keys, (size_t)room * d->key_size);
	uint8_t *values;

	if (keys)
		d->keys = keys;
	values = keys ? realloc(d->values, (size_t)room * d->value_size) : NULL;
	if (values)
		d->values = values;
	if (!keys || !values)
		return -ENOMEM;
	d->room = room;
	return 0;
}

int map_dump_init_chunked(struct map_dump *d, int fd, bool hash, uint32_t key_size, size_t value_size,
			  uint32_t max_entries, uint32_t room)
{
	memset(d, 0, sizeof(*d));
	d->fd = fd;
	d->hash = hash;
	d->key_size = key_size;
	d->value_size = value_size;
	d->max_entries = max_entries;
	if (room > max_entries)
		room = max_entries;
	if (alloc_room(d, room ? room : 1)) {
		map_dump_free(d);
		return -ENOMEM;
	}
	return 0;
}

int map_dump_init(struct map_dump *d, int fd, bool hash, uint32_t key_size, size_t value_size, uint32_t max_entries)
{
	return map_dump_init_chunked(d, fd, hash, key_size, value_size, max_entries, max_entries);
}

/* A chunked walk hands the room's entries over and empties it. A whole-map read has no
 * visitor: its room is the map, and the entries stay in it. */
static int hand_over(struct map_dump *d, map_dump_visit visit, void *ctx, uint32_t *handed)
{
	int e;

	if (!visit || !d->count)
		return 0;
	e = visit(ctx, d->keys, d->values, d->count);
	*handed += d->count;
	d->count = 0;
	return e;
}

/* Batches until the kernel says ENOENT (no more entries) or max_entries came. The cursor is
 * the kernel's own (a bucket for hashes, an index for arrays): at most 8 bytes. *handed:
 * entries already given to the visitor, which a fallback must not give again. */
static int read_batch(struct map_dump *d, map_dump_visit visit, void *ctx, uint32_t *handed)
{
	uint64_t cursor = 0;
	void *in = NULL;
	uint32_t total = 0;

	d->count = 0;
	while (total < d->max_entries) {
		uint32_t left = d->max_entries - total, n, ask;
		int e;

		if (d->count == d->room && (e = hand_over(d, visit, ctx, handed)))
			return e;
		ask = n = d->room - d->count < left ? d->room - d->count : left;
		e = bpf_map_lookup_batch(d->fd, in, &cursor, d->keys + (size_t)d->count * d->key_size,
					 d->values + (size_t)d->count * d->value_size, &n, NULL);
		d->syscalls++;
		d->count += n;
		total += n;
		if (!e) {
			in = &cursor;
			continue;
		}
		e = -errno;
		if (e == -ENOENT) /* the last batch */
			break;
		if (e != -ENOSPC)
			return e;
		/* ENOSPC: the next hash bucket holds more entries than were asked for (the kernel
		 * copies buckets whole). Asked for all the map has room for: only entries added
		 * during this walk make more, and they wait for the next. Else make room. */
		if (ask == left || n)
			return total ? hand_over(d, visit, ctx, handed) : e;
		if (d->count) {
			if ((e = hand_over(d, visit, ctx, handed)))
				return e;
		} else if ((e = alloc_room(d, d->room * 2 < d->max_entries ? d->room * 2 : d->max_entries))) {
			return e;
		}
	}
	return hand_over(d, visit, ctx, handed);
}

/* Hash: the keys in the kernel's order, each looked up (unless keys_only); an entry deleted
 * between the two calls is left out (its events are gone from the map), and the walk goes
 * on from its key (the kernel restarts a walk from a key it no longer has: the max_entries
 * cap keeps such a walk finite). Array: every index. The previous key is the last one
 * written into the room, which a hand-over leaves in place. */
static int read_per_entry(struct map_dump *d, map_dump_visit visit, void *ctx, uint32_t *handed)
{
	uint8_t *prev = NULL;
	uint32_t total = 0;
	int e;

	d->count = 0;
	while (total < d->max_entries) {
		uint8_t *key, *value;

		if (d->count == d->room && (e = hand_over(d, visit, ctx, handed)))
			return e;
		key = d->keys + (size_t)d->count * d->key_size;
		value = d->values + (size_t)d->count * d->value_size;
		if (d->hash) {
			d->syscalls++;
			if (bpf_map_get_next_key(d->fd, prev, key)) { /* prev may be key: copied in first */
				if (errno != ENOENT)
					return -errno;
				break;
			}
		} else {
			uint32_t index = total;

			memset(key, 0, d->key_size);
			memcpy(key, &index, d->key_size < 4 ? d->key_size : 4);
		}
		prev = key;
		if (!d->keys_only) {
			d->syscalls++;
			if (bpf_map_lookup_elem(d->fd, key, value)) {
				if (d->hash && errno == ENOENT)
					continue; /* this slot is taken by the next key */
				return -errno;
			}
		}
		d->count++;
		total++;
	}
	return hand_over(d, visit, ctx, handed);
}

/* Batches where the kernel has them; the per-entry walk where it has none for this map
 * (remembered in no_batch), unless the batches had already handed entries over. */
static int walk(struct map_dump *d, map_dump_visit visit, void *ctx)
{
	uint32_t handed = 0;
	int e = -EINVAL;

	d->syscalls = 0;
	if (!d->no_batch) {
		e = read_batch(d, visit, ctx, &handed);
		if (!handed && map_dump_no_batch_here(e))
			d->no_batch = true;
	}
	if (d->no_batch)
		e = read_per_entry(d, visit, ctx, &handed);
	return e;
}

int map_dump_read(struct map_dump *d)
{
	return walk(d, NULL, NULL);
}

int map_dump_each(struct map_dump *d, map_dump_visit visit, void *ctx)
{
	return walk(d, visit, ctx);
}

void map_dump_free(struct map_dump *d)
{
	free(d->keys);
	free(d->values);
	d->keys = NULL;
	d->values = NULL;
	d->room = 0;
}
