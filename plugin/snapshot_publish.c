#include "plugin/snapshot_publish.h"

#include "base/log.h"
#include "base/safe_dirs.h"
#include "base/text_append.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- options ----------------------------------------------------------------------------------- */

void snapshot_config_init(struct snapshot_config *c)
{
	snprintf(c->path, sizeof(c->path), "%s", SNAPSHOT_DEFAULT_PATH);
	c->group[0] = '\0';
	c->gid = (gid_t)-1;
}

static int set_path(struct snapshot_config *c, const struct option *o, char *err, size_t errlen)
{
	const char *p;

	if (o->nvalues != 1 || o->values[0].type != OPT_STRING) {
		snprintf(err, errlen, "SnapshotFile takes one quoted path, e.g. SnapshotFile \"%s\" "
			 "(or \"\" to publish nothing for SNMP)", SNAPSHOT_DEFAULT_PATH);
		return -1;
	}
	p = o->values[0].string;
	if (p[0] && p[0] != '/') {
		snprintf(err, errlen, "SnapshotFile \"%s\" is not an absolute path; use e.g. \"%s\"", p,
			 SNAPSHOT_DEFAULT_PATH);
		return -1;
	}
	if (p[0] && p[strlen(p) - 1] == '/') {
		snprintf(err, errlen, "SnapshotFile \"%s\" names a directory; add a file name, e.g. \"%ssnapshot\"", p, p);
		return -1;
	}
	if (strlen(p) >= sizeof(c->path) - 16) {
		snprintf(err, errlen, "SnapshotFile is too long (at most %zu characters)", sizeof(c->path) - 17);
		return -1;
	}
	snprintf(c->path, sizeof(c->path), "%s", p);
	return 1;
}

/* The gid of a group; 0, or an errno (ENOENT: no such group). getgrnam_r needs room for
 * every member name, and a site's big group outgrows any fixed buffer (ERANGE): grow it. */
static int lookup_gid(const char *name, gid_t *gid)
{
	struct group grp, *found = NULL;
	size_t len = 4096;
	char *buf = NULL;
	int e;

	do {
		char *bigger = realloc(buf, len);

		if (!bigger) {
			e = ENOMEM;
			break;
		}
		buf = bigger;
		e = getgrnam_r(name, &grp, buf, len, &found);
		len *= 2;
	} while (e == ERANGE && len <= (64u << 20));
	if (!e && found)
		*gid = found->gr_gid;
	free(buf);
	return e ? e : found ? 0 : ENOENT;
}

static int set_group(struct snapshot_config *c, const struct option *o, char *err, size_t errlen)
{
	const char *name;
	gid_t gid;
	int e;

	if (o->nvalues != 1 || o->values[0].type != OPT_STRING || !o->values[0].string[0]) {
		snprintf(err, errlen, "SnapshotGroup takes one quoted group name, e.g. SnapshotGroup \"ebpf-snmp\" "
			 "(the group the SNMP subagent runs as)");
		return -1;
	}
	name = o->values[0].string;
	e = lookup_gid(name, &gid);
	if (e == ENOENT) {
		snprintf(err, errlen, "SnapshotGroup: there is no group \"%s\" on this host; create it "
			 "(addgroup --system %s) or name an existing one", name, name);
		return -1;
	}
	if (e) {
		snprintf(err, errlen, "SnapshotGroup: cannot look up group \"%s\": %s", name, strerror(e));
		return -1;
	}
	snprintf(c->group, sizeof(c->group), "%s", name);
	c->gid = gid;
	return 1;
}

int snapshot_config_option(struct snapshot_config *c, const struct option *o, char *err, size_t errlen)
{
	if (!strcasecmp(o->key, "SnapshotFile"))
		return set_path(c, o, err, errlen);
	if (!strcasecmp(o->key, "SnapshotGroup"))
		return set_group(c, o, err, errlen);
	return 0;
}

/* ---- a module's record --------------------------------------------------------------------------- */

struct sink_ctx {
	struct snapshot_module *sm;
	bool reset; /* a histogram went backwards: the maps were recreated */
};

/* The name in the SNMP tables: a user's program's "=<type>:<map>" is its map's name. */
static const char *table_name(const char *metric)
{
	const char *map = metric[0] == '=' ? strchr(metric, ':') : NULL;

	return map ? map + 1 : metric[0] == '=' ? metric + 1 : metric;
}

static void sink_counter(void *ctx, const char *metric, const char *instance, uint64_t value)
{
	struct snapshot_module *sm = ctx;

	metric = table_name(metric);
	/* Out of memory drops this value from SNMP only; collectd still gets it. */
	(void)snapshot_module_add_counter(sm, metric, instance, value);
}

static void sink_gauge(void *ctx, const char *metric, const char *instance, double value)
{
	struct snapshot_module *sm = ctx;

	metric = table_name(metric);
	if (isfinite(value)) /* a ratio of nothing (NaN) has no row, as collectd has no value */
		(void)snapshot_module_add_gauge(sm, metric, instance, value);
}

static void sink_histogram(void *ctx, const char *metric, const char *instance, enum hist_unit unit,
			   const struct hist_interval *h)
{
	struct snapshot_module *sm = ctx;
	struct snapshot_histogram *out = snapshot_module_add_histogram(sm, metric, instance);

	if (!out)
		return;
	out->unit = unit == HIST_UNIT_NANOSECONDS ? SNAPSHOT_UNIT_NANOSECONDS : SNAPSHOT_UNIT_BYTES;
	out->precision = h->precision;
	out->count = h->total_count;
	out->sum = h->total_sum;
	out->interval_count = h->count;
	out->mean = hist_mean(h);
	out->p50 = hist_percentile(h, 50);
	out->p95 = hist_percentile(h, 95);
	out->p99 = hist_percentile(h, 99);
	/* The slots as the engine has them: index and count; the reader knows the layout. */
	for (unsigned int i = 0; i < h->nslots && h->total_count; i++)
		if (h->total_slots[i] && snapshot_module_add_bucket(sm, i, h->total_slots[i]))
			break; /* out of memory: fewer buckets in SNMP only */
	if (h->reset)
		sm->discontinuity_us = snapshot_now_us();
}

void snapshot_sink_init(struct metric_sink *sink, struct snapshot_module *sm)
{
	snapshot_module_clear_values(sm);
	*sink = (struct metric_sink){ .ctx = sm, .counter = sink_counter, .histogram = sink_histogram,
				      .gauge = sink_gauge };
}

static void describe_methods(const struct module *m, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < m->probes.npoints; i++) {
		const struct probe_point *p = &m->probes.points[i];
		char method[64];

		if (!p->enabled || p->chosen < 0)
			continue;
		text_appendf(buf, len, &used, "%s%s=%s", used ? "," : "", p->name,
			     probe_point_method(p, method, sizeof(method)));
	}
}

static enum snapshot_state state_of(enum module_state s)
{
	switch (s) {
	case MODULE_RUNNING: return SNAPSHOT_STATE_RUNNING;
	case MODULE_DEGRADED: return SNAPSHOT_STATE_DEGRADED;
	case MODULE_FAILED: return SNAPSHOT_STATE_FAILED;
	case MODULE_UNSUPPORTED: return SNAPSHOT_STATE_UNSUPPORTED;
	case MODULE_CONFIGURED: break;
	}
	return SNAPSHOT_STATE_CONFIGURED;
}

void snapshot_record_state(struct snapshot_module *sm, const struct module *m, bool read_failed)
{
	bool running = m->state == MODULE_RUNNING || m->state == MODULE_DEGRADED;

	sm->state = read_failed && running ? SNAPSHOT_STATE_DEGRADED : state_of(m->state);
	snprintf(sm->label, sizeof(sm->label), "%s", m->label);
	snprintf(sm->error, sizeof(sm->error), "%s", m->last_error);
	/* The attach methods are fixed once a module started: formatted for the first records
	 * (the plugin's and the store's, which trade places at every publish), not every read. */
	if (!running || !sm->methods_set) {
		describe_methods(m, sm->methods, sizeof(sm->methods));
		sm->methods_set = running;
	}
}

void snapshot_record_disabled(struct snapshot_module *sm, const struct module_ops *ops, int64_t since_us)
{
	snprintf(sm->label, sizeof(sm->label), "%s", ops->name);
	sm->state = SNAPSHOT_STATE_DISABLED;
	snprintf(sm->error, sizeof(sm->error), "not enabled: add <Module \"%s\"> to <Plugin ebpf>", ops->name);
	sm->methods[0] = '\0';
	sm->discontinuity_us = since_us;
	snapshot_module_clear_values(sm);
}

/* ---- the store --------------------------------------------------------------------------------- */

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

/* /run is a tmpfs: the directory is gone after every boot, so the plugin creates it (in
 * its checked parent, without following a link), traversable by the snapshot group only
 * when one is set. */
static void make_directory(const struct snapshot_config *c, int parent, const char *name)
{
	if (mkdirat(parent, name, c->gid != (gid_t)-1 ? 0750 : 0755) == 0 && c->gid != (gid_t)-1)
		(void)fchownat(parent, name, (uid_t)-1, c->gid, AT_SYMLINK_NOFOLLOW);
}

/* What a user who could write the snapshot's directory could do. */
#define SNAPSHOT_RISK "replace the snapshot the SNMP subagent serves, or point its .lock file elsewhere"

/* The snapshot's directory, opened (O_NOFOLLOW: not a link) and checked: owned by root or
 * collectd's user, not writable by group or others. Every directory above it is checked as
 * the path is walked from "/" (safe_dirs.h: as for BPF objects; a root-owned sticky one
 * such as /tmp is accepted above it, and only root's or collectd's user's links are
 * followed). Everything in it is then opened relative to this descriptor, so a directory
 * swapped after the check is never written. *base: the file's name in it. The descriptor,
 * or -1 with err. */
static int open_snapshot_dir(const struct snapshot_config *c, const char **base, char *err, size_t errlen)
{
	char dir[sizeof(c->path)];
	const char *slash = strrchr(c->path, '/'), *name;
	struct stat sb;
	int parent, fd;

	snprintf(dir, sizeof(dir), "%.*s", slash == c->path ? 1 : (int)(slash - c->path), c->path);
	*base = slash + 1;
	parent = safe_dirs_open_parent(dir, geteuid(), SNAPSHOT_RISK, &name, err, errlen);
	if (parent < 0)
		return -1;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		make_directory(c, parent, name);
		fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	close(parent);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the snapshot's directory \"%s\": %s%s", dir, strerror(errno),
			 errno == ELOOP || errno == ENOTDIR ? " (it is a symbolic link or not a directory: name the "
							      "directory itself)" : "");
		return -1;
	}
	if (fstat(fd, &sb)) {
		snprintf(err, errlen, "cannot check the snapshot's directory \"%s\": %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	if (!safe_owner(&sb, geteuid()))
		safe_explain_owner("the snapshot's directory", dir, &sb, SNAPSHOT_RISK, err, errlen);
	else if (sb.st_mode & (S_IWGRP | S_IWOTH))
		safe_explain_mode("the snapshot's directory", dir, &sb, SNAPSHOT_RISK, err, errlen);
	else
		return fd;
	close(fd);
	return -1;
}

/* One writer per file: a second collectd (a demo, a test instance) publishing to the same
 * path would overwrite the first's values and remove its file when it stops. The owner
 * holds a write lock on <path>.lock for as long as it runs (the kernel drops it when the
 * process dies, so a crash leaves no stale owner). The lock is opened in the checked
 * directory with O_NOFOLLOW and must be a regular file of this user's: root never creates
 * or locks a file a link points to. 0 with *owner 0: this process owns the file; *owner the
 * pid of the one that does (-1: unknown); -1 with err: the directory or the lock is unsafe. */
static int take_ownership(struct snapshot_store *st, pid_t *owner, char *err, size_t errlen)
{
	char name[sizeof(st->cfg.path) + 8];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	const char *base;
	struct stat sb;
	int dirfd, fd;

	*owner = 0;
	if (st->lock_fd >= 0)
		return 0;
	dirfd = open_snapshot_dir(&st->cfg, &base, err, errlen);
	if (dirfd < 0)
		return -1;
	snprintf(name, sizeof(name), "%s.lock", base);
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	close(dirfd);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the snapshot's lock %s.lock: %s%s", st->cfg.path, strerror(errno),
			 errno == ELOOP ? " (it is a symbolic link, which collectd does not follow: remove it)" : "");
		return -1;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid()) {
		snprintf(err, errlen, "the snapshot's lock %s.lock is not a regular file of collectd's user: remove it",
			 st->cfg.path);
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETLK, &fl) == 0) {
		st->lock_fd = fd;
		return 0;
	}
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
	if (fcntl(fd, F_GETLK, &fl) != 0 || fl.l_type == F_UNLCK)
		fl.l_pid = -1;
	close(fd);
	*owner = fl.l_pid ? fl.l_pid : -1;
	return 0;
}

static int write_all(struct snapshot_store *st, char *err, size_t errlen)
{
	const struct snapshot_module *mods[st->nrecords > 0 ? st->nrecords : 1];
	int64_t now = snapshot_now_us();
	const char *base;
	int dirfd = open_snapshot_dir(&st->cfg, &base, err, errlen), r;

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

int snapshot_store_publish(struct snapshot_store *st, struct snapshot_module *sm)
{
	struct snapshot_module tmp;
	struct stored *slot;
	char err[4300];
	pid_t owner;
	int ret = 0;
	bool write;

	pthread_mutex_lock(&st->lock);
	if (take_ownership(st, &owner, err, sizeof(err))) {
		note_failure(st, err);
		pthread_mutex_unlock(&st->lock);
		return -1;
	}
	if (owner) {
		if (st->busy_by != owner)
			ebpf_log(EBPF_LOG_WARNING, "SNMP snapshot not published: %s belongs to another running collectd "
				 "(pid %ld holds %s.lock); this one leaves it alone. Give each collectd its own SnapshotFile, "
				 "or SnapshotFile \"\" to publish nothing", st->cfg.path, (long)owner, st->cfg.path);
		st->busy_by = owner;
		pthread_mutex_unlock(&st->lock);
		return -1;
	}
	if (st->busy_by)
		ebpf_log(EBPF_LOG_NOTICE, "SNMP snapshot: %s is free again, publishing there", st->cfg.path);
	st->busy_by = 0;
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
	if (write) {
		ret = write_all(st, err, sizeof(err));
		if (ret)
			note_failure(st, err);
		else if (st->failing)
			ebpf_log(EBPF_LOG_NOTICE, "SNMP snapshot published again to %s", st->cfg.path);
		if (!ret)
			st->failing = false;
	}
	pthread_mutex_unlock(&st->lock);
	return ret;
}

void snapshot_store_free(struct snapshot_store *st)
{
	if (!st)
		return;
	/* Only the owner removes the file: never another collectd's. */
	if (st->lock_fd >= 0) {
		char lock_name[sizeof(st->cfg.path) + 8], err[512];
		const char *base;
		int dirfd = open_snapshot_dir(&st->cfg, &base, err, sizeof(err));

		if (dirfd >= 0) {
			snprintf(lock_name, sizeof(lock_name), "%s.lock", base);
			unlinkat(dirfd, base, 0);
			unlinkat(dirfd, lock_name, 0); /* a writer that opened it just before retries at its next read */
			close(dirfd);
		}
		close(st->lock_fd);
	}
	for (int i = 0; i < st->nrecords; i++)
		snapshot_module_release(&st->records[i].rec);
	free(st->records);
	pthread_mutex_destroy(&st->lock);
	free(st);
}
