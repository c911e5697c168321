#include "plugin/snapshot_store.h"

#include "base/log.h"
#include "plugin/snapshot_ownership.h"
#include "base/err_max.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A module's last record, and whether the file has it yet. */
struct stored {
	struct snapshot_module rec;
	unsigned long publishes; /* 1: published once (a module that is off); more: read periodically */
	bool fresh;              /* published since the file was last written */
};

struct snapshot_store {
	pthread_mutex_t lock;
	struct snapshot_config cfg;
	struct stored *records;
	int nrecords, cap;
	bool failing; /* the last write failed (logged once) */
	int lock_fd;  /* <path>.lock, write-locked while this process owns the file; -1: not yet */
	pid_t busy_by; /* another process owns the file (logged once); 0: nobody */
	/* The last SNAPSHOT_MAX_EVENTS events, oldest first, written with every file. */
	struct snapshot_event events[SNAPSHOT_MAX_EVENTS];
	int nevents;
	uint64_t run, seq; /* this store's start (unix us), its last event's number */
};

struct snapshot_store *snapshot_store_new(const struct snapshot_config *c)
{
	struct snapshot_store *st;

	if (!c->path[0])
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	pthread_mutex_init(&st->lock, NULL);
	st->cfg = *c;
	st->lock_fd = -1;
	st->run = (uint64_t)snapshot_now_us();
	return st;
}

static int write_all(struct snapshot_store *st, char *err, size_t errlen)
{
	const struct snapshot_module *mods[st->nrecords > 0 ? st->nrecords : 1];
	int64_t now = snapshot_now_us();
	const char *base;
	int dirfd = snapshot_dir_open(&st->cfg, &base, err, errlen), r;

	if (dirfd < 0)
		return -1;
	for (int i = 0; i < st->nrecords; i++) {
		mods[i] = &st->records[i].rec;
		st->records[i].fresh = false;
	}
	r = snapshot_write_file_at(dirfd, base, st->cfg.gid, mods, st->nrecords, st->events, st->nevents, now, err,
				   errlen);
	close(dirfd);
	return r;
}

void snapshot_store_add_event(struct snapshot_store *st, const struct ebpf_event *e)
{
	struct snapshot_event *se;

	if (!st)
		return;
	pthread_mutex_lock(&st->lock);
	if (st->nevents == SNAPSHOT_MAX_EVENTS) /* the oldest goes: the bound is the file's */
		memmove(&st->events[0], &st->events[1], (SNAPSHOT_MAX_EVENTS - 1) * sizeof(st->events[0]));
	else
		st->nevents++;
	se = &st->events[st->nevents - 1];
	memset(se, 0, sizeof(*se));
	se->run = st->run;
	se->seq = ++st->seq;
	se->time_us = snapshot_now_us();
	snprintf(se->kind, sizeof(se->kind), "%s", ebpf_event_kind_name(e->kind));
	snprintf(se->severity, sizeof(se->severity), "%s", ebpf_event_severity_name(e->severity));
	snprintf(se->module, sizeof(se->module), "%s", e->module ? e->module : "");
	snprintf(se->subject, sizeof(se->subject), "%s", e->subject);
	snprintf(se->message, sizeof(se->message), "%s", e->message);
	for (int i = 0; i < e->nfields && i < SNAPSHOT_EVENT_MAX_FIELDS; i++) {
		snprintf(se->fields[i].name, sizeof(se->fields[i].name), "%s", e->fields[i].name);
		snprintf(se->fields[i].value, sizeof(se->fields[i].value), "%s", e->fields[i].text);
		se->nfields++;
	}
	pthread_mutex_unlock(&st->lock);
}

/* Logs a failure to publish once (until a write succeeds again). */
static void note_failure(struct snapshot_store *st, const char *err)
{
	if (!st->failing)
		ebpf_log(EBPF_LOG_WARNING, "SNMP snapshot not published: %s. %s, or set SnapshotFile \"\" in <Plugin ebpf> "
			 "to turn publishing off (logged once; the previous snapshot stays until a write succeeds)", err,
			 strstr(err, strerror(ENOSPC)) ? "Free space on that filesystem"
						       : "Make the directory writable by collectd's user");
	st->failing = true;
}

static struct stored *find_or_add(struct snapshot_store *st, const char *label)
{
	struct stored *p;

	for (int i = 0; i < st->nrecords; i++)
		if (!strcmp(st->records[i].rec.label, label))
			return &st->records[i];
	if (st->nrecords == st->cap) {
		int ncap = st->cap ? st->cap * 2 : 8;

		p = realloc(st->records, (size_t)ncap * sizeof(*p));
		if (!p)
			return NULL;
		st->records = p;
		st->cap = ncap;
	}
	p = &st->records[st->nrecords++];
	memset(p, 0, sizeof(*p));
	return p;
}

/* Once per interval: collectd reads every module's callback each interval, and each read
 * publishes. The file is written when every module that is read periodically has published
 * since the last write (the last read of the interval), at once for a module seen for the
 * first time (start-up, and modules that are off: published once), and when a module
 * publishes twice before the others caught up (one of them stopped reading: its old record
 * stays in the file). */
static bool time_to_write(const struct snapshot_store *st, const struct stored *just)
{
	if (just->publishes == 1 || just->fresh)
		return true;
	for (int i = 0; i < st->nrecords; i++)
		if (st->records[i].publishes > 1 && !st->records[i].fresh && &st->records[i] != just)
			return false;
	return true;
}

/* Whether this process may write the file: 0, or -1 (a failure logged once, or the file is
 * another running collectd's, also logged once until it is free again). */
static int may_write(struct snapshot_store *st)
{
	char err[ERR_MAX];
	pid_t owner;

	if (snapshot_lock_take(&st->cfg, &st->lock_fd, &owner, err, sizeof(err))) {
		note_failure(st, err);
		return -1;
	}
	if (owner) {
		if (st->busy_by != owner)
			ebpf_log(EBPF_LOG_WARNING, "SNMP snapshot not published: %s belongs to another running collectd "
				 "(pid %ld holds %s.lock); this one leaves it alone. Give each collectd its own SnapshotFile, "
				 "or SnapshotFile \"\" to publish nothing", st->cfg.path, (long)owner, st->cfg.path);
		st->busy_by = owner;
		return -1;
	}
	if (st->busy_by)
		ebpf_log(EBPF_LOG_NOTICE, "SNMP snapshot: %s is free again, publishing there", st->cfg.path);
	st->busy_by = 0;
	return 0;
}

/* Rewrites the file; its failure is logged once, and its recovery once. 0 or -1. */
static int write_noted(struct snapshot_store *st)
{
	char err[ERR_MAX];
	int ret = write_all(st, err, sizeof(err));

	if (ret)
		note_failure(st, err);
	else if (st->failing)
		ebpf_log(EBPF_LOG_NOTICE, "SNMP snapshot published again to %s", st->cfg.path);
	if (!ret)
		st->failing = false;
	return ret;
}

int snapshot_store_publish(struct snapshot_store *st, struct snapshot_module *sm)
{
	struct snapshot_module tmp;
	struct stored *slot;
	int ret = 0;
	bool write;

	pthread_mutex_lock(&st->lock);
	if (may_write(st)) {
		pthread_mutex_unlock(&st->lock);
		return -1;
	}
	slot = find_or_add(st, sm->label);
	if (!slot) {
		pthread_mutex_unlock(&st->lock);
		return -1;
	}
	tmp = slot->rec;
	slot->rec = *sm;
	*sm = tmp;
	slot->publishes++;
	write = time_to_write(st, slot);
	slot->fresh = true;
	if (write)
		ret = write_noted(st);
	pthread_mutex_unlock(&st->lock);
	return ret;
}

void snapshot_store_free(struct snapshot_store *st)
{
	if (!st)
		return;
	/* Only the owner removes the file: never another collectd's. */
	if (st->lock_fd >= 0)
		snapshot_lock_release(&st->cfg, st->lock_fd);
	for (int i = 0; i < st->nrecords; i++)
		snapshot_module_release(&st->records[i].rec);
	free(st->records);
	pthread_mutex_destroy(&st->lock);
	free(st);
}
