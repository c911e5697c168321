/* The subagent's copy of the plugin's snapshot file: reread on a request when the file was
 * replaced (another inode, size or mtime), and by the once-a-second check for new events
 * (ebpf-subagent.c) while snmpd is connected; its age is checked on every request. A missing, unreadable or
 * malformed file is a state the MIB reports (ebpfSnapshotStatus), not a crash. */
#ifndef EBPF_SNMP_SNAPSHOT_CACHE_H
#define EBPF_SNMP_SNAPSHOT_CACHE_H

#include <stdbool.h>
#include <sys/stat.h>

#include "snapshot/snapshot_file.h"
#include "mib_tree.h"

struct snapshot_cache {
	const char *path;
	size_t room;          /* arcs below the base OID (mib_tree_build) */
	bool loaded;          /* identity below describes the file behind snap */
	struct stat identity;
	struct snapshot snap;
	enum mib_snapshot_status status;
	/* Seconds after its `written` time a whole snapshot is stale (collectd stopped
	 * publishing: killed, hung); 0: never. Set after snapshot_cache_init. */
	int stale_after;
	char error[600];
	struct mib_tree view;
	/* Called when the status or error changes, so that the log tells why values vanish,
	 * and when more series are left out than ever reported (a module with a long metric
	 * name, or a cgroup whose instance's index another has, that appears while the
	 * snapshot is served). */
	void (*report)(bool ok, const char *msg);
	size_t skipped_reported; /* the most series left out a report has named */
};

/* room: MIB_MAX_OID less the base OID's length. */
void snapshot_cache_init(struct snapshot_cache *c, const char *path, size_t room,
			 void (*report)(bool ok, const char *msg));
/* Rereads the file if it changed since the last call; a whole file older than
 * stale_after becomes STALE, and OK again once collectd replaces it. */
void snapshot_cache_refresh(struct snapshot_cache *c);
void snapshot_cache_free(struct snapshot_cache *c);

#endif
