/* runqueue's "behind whom?" in user space (`Behind true`, with By "cgroup"): the kernel's
 * (waiter, holder) table (bpf/include/wait_behind.h) read at each read after the per-cgroup
 * rows' group (cgroup_group.h) placed the cgroups, and sent per cgroup with a series place:
 * counters "wait_behind" (nanoseconds waited while holder ran) and "preempted_by"
 * (preemptions), group the waiter's name, instance "<group>/<holder>", holder one of
 *   self     the waiter's own cgroup (any of its incarnations)
 *   <name>   another cgroup, named as the per-cgroup rows name it ("system.slice_a.service")
 *   kernel   kernel threads; idle: the CPU was idle; unknown: what the CPU's ring did not
 *            cover; unselected: a cgroup the Cgroup selection leaves out
 *   other    the other cgroups past the waiter's top places, with the gauge "folded"
 *            "<group>/holders": holders whose values a read folded into `other`
 * Each waiter has `top` places for other cgroups, given in a read to the new holders with
 * the most wait first; a place keeps its holder for the waiter's life, so every counter only
 * grows. Values are the kernel's deltas since the read before, summed: cumulative since the
 * module started. A waiter folded into the rows' `other` (or with no place) has none. */
#ifndef EBPF_CORE_WAIT_BEHIND_H
#define EBPF_CORE_WAIT_BEHIND_H

#include <stddef.h>
#include <stdint.h>

struct cgroup_group;
struct metric_sink;
struct wait_behind;

#define WAIT_BEHIND_TOP 3 /* other cgroups a waiter names before `other` */

/* For the map behind_counts (fd, of max_entries entries) of a module labelled `label` (kept)
 * with max_series places. NULL with err. */
struct wait_behind *wait_behind_new(const char *label, int fd, uint32_t max_entries, uint32_t max_series,
				    uint32_t top, char *err, size_t errlen);
/* After the group's read (cgroup_group_end_read): the table read, its deltas summed, sent. */
void wait_behind_send(struct wait_behind *w, struct cgroup_group *g, const struct metric_sink *sink);
void wait_behind_free(struct wait_behind *w);

#endif
