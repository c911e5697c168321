/* kretprobes with room for many blocked callers, and the returns they still miss.
 *
 * A kretprobe keeps one "instance" per call that has entered the function and not yet
 * returned; the pool of instances is sized when the probe is made (maxactive). libbpf
 * makes its kretprobes with the kernel's default, max(10, 2 x CPUs) (5.10 without
 * CONFIG_PREEMPTION: one per CPU), so when more threads than that sit blocked in the
 * function at once (vfs_read on pipes and sockets, fsync on a slow disk), the returns of
 * the extra calls are never seen, and libbpf 1.1 has no option to ask for more.
 *
 * So the engine makes its kretprobes itself, the way libbpf's legacy path does: a line
 * "r<maxactive>:kprobes/collectd_ebpf_<pid>_<n>_<function> <function>" in tracefs'
 * kprobe_events, a perf event on that probe's id, the BPF program attached to the perf
 * event; the line is removed again at detach. maxactive is KRETPROBE_MAXACTIVE, the most
 * kernel/trace/trace_kprobe.c accepts (KRETPROBE_MAXACTIVE_MAX, 4096, since 4.12).
 * Cost, per kretprobe: 4096 instances of about 64 bytes (256 KB); from 6.7 (objpool) also
 * a ring of 4096 pointers per possible CPU (32 KB per CPU).
 *
 * Returns missed all the same (more than 4096 callers at once, or a kprobe hit inside
 * another kprobe handler) are counted by the kernel per probe: kprobe_profile's third
 * column. kretprobe_events_missed() sums it for the caller's events, and the engine sends
 * it as a self-metric (counter "dropped" / "kretprobe_missed"), so the loss is a value.
 */
#ifndef EBPF_CORE_KRETPROBE_EVENTS_H
#define EBPF_CORE_KRETPROBE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#define KRETPROBE_MAXACTIVE 4096
#define KRETPROBE_EVENT_NAME_MAX 64 /* the kernel's MAX_EVENT_NAME_LEN, with the NUL */

/* Makes the kretprobe event on `function` and opens a perf event on it. Returns the perf
 * event's fd (the caller attaches a program to it and owns it), the event's name in
 * `name`; or -errno with nothing left behind: -ENOENT when this system has no writable
 * kprobe_events (tracefs not mounted, no kprobes, not root), else what the kernel said
 * (-ENOENT also for a function it cannot probe). */
int kretprobe_event_open(const char *function, char name[KRETPROBE_EVENT_NAME_MAX]);
/* Removes the event; call after the perf event is closed (the kernel refuses a probe in
 * use). An empty name is ignored; the name is cleared. */
void kretprobe_event_remove(char name[KRETPROBE_EVENT_NAME_MAX]);
/* Sum of kprobe_profile's "missed" column over the n named events (empty names skipped).
 * 0, or -1 when kprobe_profile cannot be read. */
int kretprobe_events_missed(const char *const *names, int n, uint64_t *missed);

#endif
