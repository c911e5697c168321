/* The "waited behind" line of a cgroup under `collectd-ebpf-hist --cgroup` (runqueue with
 * `Behind true`): its counters "wait_behind" (instance "<cgroup>/<holder>",
 * libcore/engine/wait_behind.h) as shares of their sum, most first:
 *   waited behind: system.slice_nginx.service 93%, kernel 4%, self 3%
 * over the interval the screen shows (base: the module's previous record, NULL since start). */
#ifndef EBPF_TERMINAL_BEHIND_H
#define EBPF_TERMINAL_BEHIND_H

#include <stdio.h>

#include "snapshot/snapshot_file.h"
#include "terminal/terminal_cgroup.h"

/* Holders one line names; the rest are summed as "others". */
#define TERMINAL_BEHIND_SHOWN 6

/* Draws the line when c has wait_behind counters; returns how many it has. */
int terminal_behind_draw(FILE *out, const struct snapshot_module *m, const struct snapshot_module *base,
			 const struct terminal_cgroup *c);

#endif
