/* runqueue's "behind whom?" in user space (wait_behind.h). */
#include "libcore/engine/wait_behind.h"

#include "base/label_value.h"
#include "base/log.h"
#include "bpf/include/wait_behind.h"
#include "libcore/decode/cgroup_paths.h"
#include "libcore/engine/cgroup_group.h"
#include "libcore/metric/metric.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a waiter's holder is sent as. */
enum { H_SELF, H_KERNEL, H_IDLE, H_UNKNOWN, H_UNSELECTED, H_OTHER, H_FIXED };
static const char *const fixed_names[H_FIXED] = { "self", "kernel", "idle", "unknown", "unselected", "other" };

struct holder_counts {
	uint64_t wait_ns, preemptions;
	bool seen;
};

/* A waiter's place: its fixed holders, and `top` named ones (name[0]: free). */
struct waiter_place {
	uint32_t gen;
	bool used;
	uint64_t sent_read; /* the read that sent it last: once a read, whatever its incarnations */
	struct holder_counts fixed[H_FIXED];
	struct holder_counts *named;
	char (*names)[LABEL_VALUE_MAX];
};

/* A kernel entry's values at the last read that summed them. */
struct last_entry {
	struct behind_key key; /* waiter 0: free */
	struct behind_counts last;
};

/* A waiter cgroup the group placed in this read. */
struct placed {
	uint64_t id;
	uint32_t place, gen;
	const char *name;
};

/* One entry of this read, for the second pass: its deltas and whom it is for. */
struct pending {
	struct waiter_place *wp;
	char name[LABEL_VALUE_MAX];
	uint64_t wait_ns, preemptions;
};

struct wait_behind {
	const char *label;
	int fd;
	uint32_t max_entries, max_series, top;
	struct waiter_place *places;
	struct last_entry *lasts, *lasts_next; /* this read's entries only, the next swapped in */
	uint32_t lasts_cap;
	uint64_t read_no;
	struct placed *placed;
	uint32_t nplaced;
	struct behind_key *keys;
	struct behind_counts *values;
	struct pending *pend;
	struct cgroup_paths paths;
	bool paths_ok, said_full;
};

struct wait_behind *wait_behind_new(const char *label, int fd, uint32_t max_entries, uint32_t max_series,
				    uint32_t top, char *err, size_t errlen)
{
	struct wait_behind *w = calloc(1, sizeof(*w));
	char why[256];

	if (!w)
		goto oom;
	w->label = label;
	w->fd = fd;
	w->max_entries = max_entries;
	w->max_series = max_series;
	w->top = top;
	for (w->lasts_cap = 16; w->lasts_cap < 2 * max_entries; w->lasts_cap *= 2)
		;
	if (!(w->places = calloc(max_series, sizeof(*w->places))) ||
	    !(w->lasts = calloc(w->lasts_cap, sizeof(*w->lasts))) ||
	    !(w->lasts_next = calloc(w->lasts_cap, sizeof(*w->lasts_next))) ||
	    !(w->placed = calloc(2 * max_entries + 1, sizeof(*w->placed))) ||
	    !(w->keys = calloc(max_entries, sizeof(*w->keys))) ||
	    !(w->values = calloc(max_entries, sizeof(*w->values))) ||
	    !(w->pend = calloc(max_entries, sizeof(*w->pend))))
		goto oom;
	for (uint32_t p = 0; p < max_series; p++)
		if (!(w->places[p].named = calloc(top ? top : 1, sizeof(*w->places[p].named))) ||
		    !(w->places[p].names = calloc(top ? top : 1, sizeof(*w->places[p].names))))
			goto oom;
	w->paths_ok = !cgroup_paths_init(&w->paths, NULL, why, sizeof(why));
	if (!w->paths_ok)
		ebpf_log(EBPF_LOG_WARNING, "%s: Behind: other cgroups are named `other` (no cgroup2 paths: %s)", label,
			 why);
	ebpf_log(EBPF_LOG_INFO, "%s: and each cgroup's waits split by who held the CPU (Behind: self, its top %u "
		 "other cgroups, other, kernel, idle, unknown), and its preemptions by whom", label, top);
	return w;
oom:
	snprintf(err, errlen, "out of memory");
	wait_behind_free(w);
	return NULL;
}

static uint32_t key_slot(const struct behind_key *k, uint32_t cap)
{
	uint64_t h = k->waiter * 0x9e3779b97f4a7c15ull ^ k->holder * 0xc2b2ae3d27d4eb4full;

	return (uint32_t)(h >> 32) & (cap - 1);
}

/* The entry of k in table t, a free one when it is not there (twice the kernel's size). */
static struct last_entry *last_of(struct last_entry *t, uint32_t cap, const struct behind_key *k)
{
	for (uint32_t i = key_slot(k, cap);; i = (i + 1) & (cap - 1))
		if (!t[i].key.waiter || !memcmp(&t[i].key, k, sizeof(*k)))
			return &t[i];
}

/* A cgroup removed: its entries can have no more events (a removed cgroup has no tasks). */
static bool is_gone(struct wait_behind *w, uint64_t id)
{
	const char *path;

	if (id >= BEHIND_OUTSIDE || !w->paths_ok)
		return false;
	path = cgroup_path(&w->paths, id);
	return !path || !cgroup_alive(&w->paths, id, path);
}

static void take_place(void *ctx, const struct cgroup_place_seen *s)
{
	struct wait_behind *w = ctx;

	if (w->nplaced < 2 * w->max_entries + 1)
		w->placed[w->nplaced++] = (struct placed){ .id = s->id, .place = s->place, .gen = s->gen, .name = s->name };
}

static int by_id(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct placed *placed_of(struct wait_behind *w, uint64_t id)
{
	struct placed k = { .id = id };

	return bsearch(&k, w->placed, w->nplaced, sizeof(*w->placed), by_id);
}

/* The holder's name for waiter p: a fixed one's index, or -1 with the cgroup's name in name. */
static int holder_name(struct wait_behind *w, const struct placed *p, uint64_t holder, char name[LABEL_VALUE_MAX])
{
	const char *path;

	switch (holder) {
	case BEHIND_KERNEL: return H_KERNEL;
	case BEHIND_IDLE: return H_IDLE;
	case BEHIND_UNKNOWN: return H_UNKNOWN;
	case BEHIND_OUTSIDE: return H_UNSELECTED;
	}
	if (holder == p->id)
		return H_SELF;
	path = w->paths_ok ? cgroup_path(&w->paths, holder) : NULL;
	if (!path) /* removed, or not to be named */
		return H_OTHER;
	label_value_safe(path, name);
	return strcmp(name, p->name) ? -1 : H_SELF; /* another incarnation of the waiter's name: itself */
}

static void add(struct holder_counts *h, uint64_t wait_ns, uint64_t preemptions)
{
	h->wait_ns += wait_ns;
	h->preemptions += preemptions;
	h->seen = true;
}

static int most_wait_first(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	return x->wait_ns > y->wait_ns ? -1 : x->wait_ns < y->wait_ns;
}

/* A named holder new to its waiter: a free place, or `other` (counted in *folded). */
static void place_new(struct wait_behind *w, struct pending *e, uint32_t *folded)
{
	struct waiter_place *wp = e->wp;

	for (uint32_t t = 0; t < w->top; t++) {
		if (!strcmp(wp->names[t], e->name)) {
			add(&wp->named[t], e->wait_ns, e->preemptions);
			return;
		}
		if (!wp->names[t][0]) {
			memcpy(wp->names[t], e->name, LABEL_VALUE_MAX);
			add(&wp->named[t], e->wait_ns, e->preemptions);
			return;
		}
	}
	add(&wp->fixed[H_OTHER], e->wait_ns, e->preemptions);
	(*folded)++;
}

/* The table's entries into keys/values; how many. */
static uint32_t read_table(struct wait_behind *w)
{
	struct behind_key k, next;
	uint32_t n = 0;
	void *prev = NULL;

	while (n < w->max_entries && !bpf_map_get_next_key(w->fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(w->fd, &k, &w->values[n]))
			continue; /* deleted meanwhile: none are, but a hash may say so */
		w->keys[n++] = k;
	}
	return n;
}

static void send_holder(const struct metric_sink *sink, const char *group, const char *holder,
			const struct holder_counts *h)
{
	struct metric_labels l = { .group = group, .n = 1, .names = { "holder" }, .values = { holder } };
	struct metric_id wait = { .name = "wait_behind", .labels = &l }, pre = { .name = "preempted_by", .labels = &l };
	char instance[2 * LABEL_VALUE_MAX + 2];

	if (!h->seen)
		return;
	snprintf(instance, sizeof(instance), "%s/%s", group, holder);
	sink->counter(sink->ctx, &wait, instance, h->wait_ns);
	sink->counter(sink->ctx, &pre, instance, h->preemptions);
}

/* Entry i's deltas since the last read that took them, into *dw, *dp; kept for the next. */
static void take_delta(struct wait_behind *w, uint32_t i, uint64_t *dw, uint64_t *dp)
{
	struct last_entry *le = last_of(w->lasts, w->lasts_cap, &w->keys[i]);
	struct last_entry *ne = last_of(w->lasts_next, w->lasts_cap, &w->keys[i]);

	*dw = w->values[i].wait_ns - (le->key.waiter ? le->last.wait_ns : 0);
	*dp = w->values[i].preemptions - (le->key.waiter ? le->last.preemptions : 0);
	*ne = (struct last_entry){ .key = w->keys[i], .last = w->values[i] };
}

/* An entry whose waiter has no place: kept as it was (its values wait in the kernel for a
 * place), or, when the waiter or holder was removed, deleted with what it held. */
static void keep_unplaced(struct wait_behind *w, uint32_t i)
{
	struct last_entry *le = last_of(w->lasts, w->lasts_cap, &w->keys[i]);

	if (is_gone(w, w->keys[i].waiter) || is_gone(w, w->keys[i].holder)) {
		bpf_map_delete_elem(w->fd, &w->keys[i]);
		return;
	}
	if (le->key.waiter)
		*last_of(w->lasts_next, w->lasts_cap, &w->keys[i]) = *le;
}

/* A new name in a place starts from nothing. */
static void reset_renamed(struct wait_behind *w)
{
	for (uint32_t i = 0; i < w->nplaced; i++) {
		struct waiter_place *wp = &w->places[w->placed[i].place];

		if (wp->used && wp->gen == w->placed[i].gen)
			continue;
		memset(wp->fixed, 0, sizeof(wp->fixed));
		memset(wp->named, 0, w->top * sizeof(*wp->named));
		memset(wp->names, 0, w->top * sizeof(*wp->names));
		wp->used = true;
		wp->gen = w->placed[i].gen;
	}
}

void wait_behind_send(struct wait_behind *w, struct cgroup_group *g, const struct metric_sink *sink)
{
	uint32_t n, npend = 0, folded = 0;
	struct last_entry *t;

	w->read_no++;
	w->nplaced = 0;
	cgroup_group_each_place(g, take_place, w);
	qsort(w->placed, w->nplaced, sizeof(*w->placed), by_id);
	reset_renamed(w);
	memset(w->lasts_next, 0, w->lasts_cap * sizeof(*w->lasts_next));
	n = read_table(w);
	for (uint32_t i = 0; i < n; i++) {
		const struct placed *p = placed_of(w, w->keys[i].waiter);
		struct waiter_place *wp;
		uint64_t dw, dp;
		char name[LABEL_VALUE_MAX];
		int fixed;

		if (!p || p->place >= w->max_series) {
			keep_unplaced(w, i);
			continue;
		}
		take_delta(w, i, &dw, &dp);
		wp = &w->places[p->place];
		fixed = holder_name(w, p, w->keys[i].holder, name);
		if (fixed >= 0)
			add(&wp->fixed[fixed], dw, dp);
		else if (dw || dp) {
			w->pend[npend] = (struct pending){ .wp = wp, .wait_ns = dw, .preemptions = dp };
			memcpy(w->pend[npend++].name, name, LABEL_VALUE_MAX);
		}
		if (is_gone(w, w->keys[i].holder)) /* its last values taken: nothing more can come */
			bpf_map_delete_elem(w->fd, &w->keys[i]);
	}
	t = w->lasts, w->lasts = w->lasts_next, w->lasts_next = t;
	/* named holders: new ones take free places most wait first */
	qsort(w->pend, npend, sizeof(*w->pend), most_wait_first);
	for (uint32_t i = 0; i < npend; i++)
		place_new(w, &w->pend[i], &folded);
	for (uint32_t i = 0; i < w->nplaced; i++) {
		const struct placed *p = &w->placed[i];
		struct waiter_place *wp = &w->places[p->place];

		if (wp->sent_read == w->read_no)
			continue;
		wp->sent_read = w->read_no;
		for (int h = 0; h < H_FIXED; h++)
			send_holder(sink, p->name, fixed_names[h], &wp->fixed[h]);
		for (uint32_t k = 0; k < w->top && wp->names[k][0]; k++)
			send_holder(sink, p->name, wp->names[k], &wp->named[k]);
	}
	if (folded && sink->gauge) /* holders whose values this read folded into waiters' `other` */
		sink->gauge(sink->ctx, METRIC("folded"), "behind_holders", (double)folded);
}

void wait_behind_free(struct wait_behind *w)
{
	if (!w)
		return;
	for (uint32_t p = 0; w->places && p < w->max_series; p++) {
		free(w->places[p].named);
		free(w->places[p].names);
	}
	if (w->paths_ok)
		cgroup_paths_free(&w->paths);
	free(w->places);
	free(w->lasts);
	free(w->lasts_next);
	free(w->placed);
	free(w->keys);
	free(w->values);
	free(w->pend);
	free(w);
}
