/* A module's record in the snapshot file: what one read sent (through the sink), and its
 * label, state, attach methods and last error. Each module's read fills its own record, then
 * hands it to the store (snapshot_store.h). */
#ifndef EBPF_PLUGIN_SNAPSHOT_RECORD_H
#define EBPF_PLUGIN_SNAPSHOT_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/engine/module.h"
#include "snapshot/snapshot_file.h"

/* The sink a module reads into; fills sm (whose values are cleared first). */
void snapshot_sink_init(struct metric_sink *sink, struct snapshot_module *sm);
/* Sets label, state, attach methods and last error from m. read_failed: the last read
 * returned an error (published as "degraded"). A running program of an ebpf_exporter config
 * also gets its gauge enabled_configs (ebpf_exporter's ebpf_exporter_enabled_configs{name}):
 * called once a read, after the read's values. */
void snapshot_record_state(struct snapshot_module *sm, const struct module *m, bool read_failed);
/* A module of the table that no <Module> block enabled. */
void snapshot_record_disabled(struct snapshot_module *sm, const struct module_ops *ops, int64_t since_us);

#endif
