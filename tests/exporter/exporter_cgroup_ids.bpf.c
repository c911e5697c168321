// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_cgroup_ids.yaml beside
 * it), for the ExporterConfig cgroup_id_map test; written for this project. It counts close()
 * of the marker fd no process has open (tests/support/close_n's) by cgroup id, in
 * marked_closes_kept_total when the caller's cgroup is in cgroup_id_map (filled by the loader
 * from the YAML's regexps), else in marked_closes_unkept_total. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */

char LICENSE[] SEC("license") = "GPL";

#define MARK_FD 777777

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} cgroup_id_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, __u64);
} marked_closes_kept_total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, __u64);
} marked_closes_unkept_total SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_close")
int count_close(struct trace_event_raw_sys_enter *ctx)
{
	__u64 cgroup = bpf_get_current_cgroup_id();

	if (ctx->args[0] != MARK_FD)
		return 0;
	if (bpf_map_lookup_elem(&cgroup_id_map, &cgroup))
		counter_add_at(&marked_closes_kept_total, &cgroup, 1);
	else
		counter_add_at(&marked_closes_unkept_total, &cgroup, 1);
	return 0;
}
