/* Publishing module reads as the snapshot file (see snapshot_file.h) for the SNMP subagent.
 *
 * Each module is read by its own collectd read callback, possibly on different threads.
 * Each read fills its own record (snapshot_record_*), then snapshot_store_publish() swaps it
 * into the store under a mutex; once every module has published for the interval, the
 * whole file is rewritten from the last record of every module: one atomic file per
 * interval, always complete, never waited on by the reader.
 *
 * Options in <Plugin ebpf>:
 *   SnapshotFile "/run/collectd-ebpf/snapshot"   ("" turns publishing off)
 *   SnapshotGroup "ebpf-snmp"                     (group of the file, mode 0640)
 */
#ifndef EBPF_PLUGIN_SNAPSHOT_PUBLISH_H
#define EBPF_PLUGIN_SNAPSHOT_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libcore/engine/module.h"
#include "base/options.h"
#include "snapshot/snapshot_file.h"

struct snapshot_config {
	char path[4096]; /* "" = off */
	char group[64];  /* "" = collectd's own group */
	gid_t gid;       /* (gid_t)-1 = unchanged */
};

void snapshot_config_init(struct snapshot_config *c);
/* 1 if o is SnapshotFile or SnapshotGroup and valid, 0 if it is another key, -1 with a
 * message naming the option and the fix. */
int snapshot_config_option(struct snapshot_config *c, const struct option *o, char *err, size_t errlen);

/* The sink a module reads into; fills sm (whose values are cleared first). */
void snapshot_sink_init(struct metric_sink *sink, struct snapshot_module *sm);
/* Sets label, state, attach methods and last error from m. read_failed: the last read
 * returned an error (published as "degraded"). */
void snapshot_record_state(struct snapshot_module *sm, const struct module *m, bool read_failed);
/* A module of the table that no <Module> block enabled. */
void snapshot_record_disabled(struct snapshot_module *sm, const struct module_ops *ops, int64_t since_us);

struct snapshot_store;

/* NULL when publishing is off (empty path) or out of memory. */
struct snapshot_store *snapshot_store_new(const struct snapshot_config *c);
/* Swaps *sm with the stored record of the same label (the caller gets the old record's
 * buffers back for its next read) and rewrites the file once per interval: when every
 * module read periodically has published since the last write (see time_to_write()). A
 * failure is logged once, and its recovery once. 0 or -1. */
int snapshot_store_publish(struct snapshot_store *st, struct snapshot_module *sm);
/* Records an event for the subagent's SNMP notifications: written with the next file, kept
 * until SNAPSHOT_MAX_EVENTS newer ones replace it (snapshot_file.h). Any thread. */
void snapshot_store_add_event(struct snapshot_store *st, const struct ebpf_event *e);
/* Removes the file if this process owned it (stale numbers must not look current) and
 * frees everything. A store whose file belongs to another running process (the lock on
 * <path>.lock) publishes nothing and removes nothing. */
void snapshot_store_free(struct snapshot_store *st);

#endif
