/* Publishing module reads as the snapshot file (see snapshot_file.h) for the SNMP subagent.
 *
 * Each module is read by its own collectd read callback, possibly on different threads.
 * Each read fills its own record (snapshot_record.h), then snapshot_store_publish() swaps it
 * into the store under a mutex; once every module has published for the interval, the
 * whole file is rewritten from the last record of every module: one atomic file per
 * interval, always complete, never waited on by the reader. Where it goes and who may read
 * it: snapshot_options.h; who may write it: snapshot_ownership.h.
 */
#ifndef EBPF_PLUGIN_SNAPSHOT_STORE_H
#define EBPF_PLUGIN_SNAPSHOT_STORE_H

#include "libcore/engine/events.h"
#include "plugin/snapshot_options.h"
#include "snapshot/snapshot_file.h"

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
