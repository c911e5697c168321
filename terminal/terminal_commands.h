/* The "top commands" section of collectd-ebpf-hist, as biosnoop's COMM column answers "who
 * does this?": for a module with `By "command"` (its per-command rows carry the snapshot
 * label command=, plugin/snapshot_record.c), one line per command with its counters summed
 * over the command's rows (block: ios and bytes over read, write, flush ...; syscalls: calls
 * and errors over every syscall), busiest first by the first of them, "other" (the commands
 * beyond MaxSeries) among them. */
#ifndef EBPF_TERMINAL_COMMANDS_H
#define EBPF_TERMINAL_COMMANDS_H

#include <stdio.h>

#include "snapshot/snapshot_file.h"

/* Most counter metrics shown as columns (the first ones met in m's per-command rows). */
#define TERMINAL_COMMAND_COLUMNS 4

/* Draws m's section; base: what to subtract (the module's previous record, an empty one
 * after a restart), NULL for since start; seconds: the time the counts cover (the first
 * column's rate); top: commands shown, 0 all. Returns the commands m has rows of (0: no
 * section drawn), -1 when out of memory (said on out). */
int terminal_commands_draw(FILE *out, const struct snapshot_module *m, const struct snapshot_module *base,
			   double seconds, int top);

#endif
