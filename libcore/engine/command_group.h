/* The commands of a module's per-command tables (`By "command"`, cgroup_rows.h): the group
 * of the key's command, as cgroup_group.h is of its cgroup, over all of the module's tables.
 *
 * Bounded the same way: at most MaxSeries commands get series of their own, in order of
 * arrival, shared by all of the module's tables; the others go into the command "other",
 * which carries their entries (SERIES_CARRY) so that they pin no kernel row, and how many
 * commands a read folded is the gauge "folded"/"commands". A command keeps its place for
 * the module's life: its kernel entries only grow (never a map cleared) and there is no
 * "gone" for a name, so commands are few and stable by design (pids, which are not, are
 * never a key). Names: the comm made safe by the one rule (label_value_word: a name's
 * spaces, ':' and '#' as '_' too); two comms made safe into one name ("io b", "io_b") are
 * two names: the later one's gets '~' and a hash of its comm (said once). */
#ifndef EBPF_CORE_COMMAND_GROUP_H
#define EBPF_CORE_COMMAND_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/include/cgroup_key.h"
#include "libcore/read/series_view.h"

struct metric_sink;
struct command_group;

/* For tables of `entries` entries in all, of the module labelled `label` (for the log,
 * kept), with max_series places. NULL with err. */
struct command_group *command_group_new(uint32_t max_series, const char *label, uint64_t entries, char *err,
					size_t errlen);
void command_group_begin_read(struct command_group *g);
/* The fate of an entry of `command` (COMMAND_LEN bytes, NUL-padded) in this read, its text
 * (the command's name, or "other") and its place's token (0 for `other`). */
enum series_fate command_group_fate(struct command_group *g, const char command[COMMAND_LEN], const char **text,
				    uint64_t *token);
/* After the tables' entries were sent: the gauge folded-commands (once anything folded). */
void command_group_end_read(struct command_group *g, const struct metric_sink *sink);
void command_group_free(struct command_group *g);

#endif
