#include "snapshot_cache.h"
#include "base/err_max.h"
#include "base/text_append.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void snapshot_cache_init(struct snapshot_cache *c, const char *path, size_t room,
			 void (*report)(bool ok, const char *msg))
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->room = room;
	c->report = report;
	c->status = MIB_SNAPSHOT_MISSING;
	mib_tree_build(&c->view, NULL, c->status, c->error, c->room);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Sets the new status, rebuilds the view and reports a change of status or error, or more
 * series left out than any report said since every series was last served (once per new
 * high: names that come and go, as short-lived cgroups do, are not logged again and again;
 * once none is left out, that is reported, and the next one left out is reported again). */
static void settle(struct snapshot_cache *c, enum mib_snapshot_status status, const char *error)
{
	bool changed = status != c->status || strcmp(error, c->error);
	char msg[sizeof(c->error) + sizeof(c->view.skipped_names) + 256];

	mib_tree_free(&c->view);
	c->status = status;
	snprintf(c->error, sizeof(c->error), "%s", error);
	bool whole = status == MIB_SNAPSHOT_OK || status == MIB_SNAPSHOT_STALE;

	if (mib_tree_build(&c->view, whole ? &c->snap : NULL, status, c->error, c->room)) {
		/* Out of memory: serve the status scalars only, and say so. */
		c->status = MIB_SNAPSHOT_UNREADABLE;
		snprintf(c->error, sizeof(c->error), "%s: out of memory building the tables", c->path);
		mib_tree_build(&c->view, NULL, c->status, c->error, c->room);
		changed = true;
	}
	bool all_served_again = false;

	if (c->status == MIB_SNAPSHOT_OK && c->view.skipped_series > c->skipped_reported) {
		c->skipped_reported = c->view.skipped_series;
		changed = true;
	} else if (c->status == MIB_SNAPSHOT_OK && !c->view.skipped_series && c->skipped_reported) {
		c->skipped_reported = 0;
		all_served_again = changed = true;
	}
	if (!changed || !c->report)
		return;
	if (c->status == MIB_SNAPSHOT_OK && c->view.skipped) {
		size_t more = c->view.skipped_series > MIB_SKIPPED_NAMED ? c->view.skipped_series - MIB_SKIPPED_NAMED : 0;
		char tail[32] = "";

		if (more)
			snprintf(tail, sizeof(tail), " and %zu more", more);
		snprintf(msg, sizeof(msg),
			 "serving %s: %d module%s; %zu series left out (names longer than the MIB's index sizes: "
			 "module and metric 32 bytes; OIDs longer than 128 arcs under --base-oid; or the index of "
			 "another series, which is served: instances past 48 bytes whose head and hash agree): %s%s",
			 c->path, c->snap.nmodules, c->snap.nmodules == 1 ? "" : "s", c->view.skipped_series,
			 c->view.skipped_names, tail);
	} else if (c->status == MIB_SNAPSHOT_OK)
		snprintf(msg, sizeof(msg), "serving %s: %d module%s%s", c->path, c->snap.nmodules,
			 c->snap.nmodules == 1 ? "" : "s", all_served_again ? "; every series served again" : "");
	else
		snprintf(msg, sizeof(msg), "%s", c->error);
	c->report(c->status == MIB_SNAPSHOT_OK, msg);
}

/* Opens the snapshot for parsing (snapshot_open_file(): a FIFO at the path does not stop
 * the agent answering, the checks are on the opened file), or says why not. */
static FILE *open_snapshot(const char *path, struct stat *st, char *why, size_t len)
{
	FILE *f = snapshot_open_file(path, st, why, len);

	if (!f && errno == EACCES)
		snprintf(why, len, "cannot open %s: %s (run the subagent in the group of SnapshotGroup)", path,
			 strerror(EACCES));
	return f;
}

/* OK, or STALE when the whole snapshot in c->snap was written more than stale_after
 * seconds ago (why says so). */
static enum mib_snapshot_status freshness(const struct snapshot_cache *c, char *why, size_t len)
{
	int64_t age_us;

	why[0] = '\0';
	if (c->stale_after <= 0 || __builtin_sub_overflow(snapshot_now_us(), c->snap.written_us, &age_us) ||
	    age_us <= (int64_t)c->stale_after * 1000000)
		return MIB_SNAPSHOT_OK;
	snprintf(why, len, "%s was last written more than %d s ago (--stale-after): collectd has stopped "
		 "publishing it (killed, or hung); its values are not served until it publishes again",
		 c->path, c->stale_after);
	return MIB_SNAPSHOT_STALE;
}

void snapshot_cache_refresh(struct snapshot_cache *c)
{
	struct stat st;
	char err[ERR_MAX], why[sizeof(c->error)];
	FILE *f;

	if (stat(c->path, &st)) {
		int e = errno;

		c->loaded = false;
		snapshot_free(&c->snap);
		if (e == ENOENT)
			snprintf(why, sizeof(why), "%s does not exist: collectd is not running with the ebpf plugin, "
				 "or its SnapshotFile is another path", c->path);
		else
			snprintf(why, sizeof(why), "cannot stat %s: %s", c->path, strerror(e));
		settle(c, e == ENOENT ? MIB_SNAPSHOT_MISSING : MIB_SNAPSHOT_UNREADABLE, why);
		return;
	}
	if (c->loaded && same_file(&st, &c->identity)) {
		if (c->status == MIB_SNAPSHOT_OK || c->status == MIB_SNAPSHOT_STALE) {
			enum mib_snapshot_status now = freshness(c, why, sizeof(why));

			if (now != c->status)
				settle(c, now, why);
		}
		return;
	}
	snapshot_free(&c->snap);
	c->loaded = false;
	f = open_snapshot(c->path, &st, why, sizeof(why));
	if (!f) { /* not marked loaded: the next request tries again */
		settle(c, MIB_SNAPSHOT_UNREADABLE, why);
		return;
	}
	c->loaded = true;
	c->identity = st;
	if (snapshot_parse(f, &c->snap, err, sizeof(err))) {
		text_printf_cut(why, sizeof(why), "%s: %s", c->path, err);
		settle(c, MIB_SNAPSHOT_MALFORMED, why);
	} else {
		enum mib_snapshot_status now = freshness(c, why, sizeof(why));

		settle(c, now, why);
	}
	fclose(f);
}

void snapshot_cache_free(struct snapshot_cache *c)
{
	mib_tree_free(&c->view);
	snapshot_free(&c->snap);
}
