/* The snapshot file's options in <Plugin ebpf>: where the file goes and which group may read it.
 *   SnapshotFile "/run/collectd-ebpf/snapshot"   ("" turns publishing off)
 *   SnapshotGroup "ebpf-snmp"                     (group of the file, mode 0640) */
#ifndef EBPF_PLUGIN_SNAPSHOT_OPTIONS_H
#define EBPF_PLUGIN_SNAPSHOT_OPTIONS_H

#include <stddef.h>
#include <sys/types.h>

#include "base/options.h"

struct snapshot_config {
	char path[4096]; /* "" = off */
	char group[64];  /* "" = collectd's own group */
	gid_t gid;       /* (gid_t)-1 = unchanged */
};

void snapshot_config_init(struct snapshot_config *c);
/* 1 if o is SnapshotFile or SnapshotGroup and valid, 0 if it is another key, -1 with a
 * message naming the option and the fix. */
int snapshot_config_option(struct snapshot_config *c, const struct option *o, char *err, size_t errlen);

#endif
