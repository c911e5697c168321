// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_cgroup_ids.yaml beside
 * it), for the ExporterConfig cgroup_id_map test; written for this project. It counts close()
 * of the marker fd no process has open (tests/support/close_n's) by cgroup id, in
 * marked_closes_kept_total when the caller's cgroup is in cgroup_id_map (filled by the loader
 * from the YAML's regexps), else in marked_closes_unkept_total. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */
#include "../support/test_maps.bpf.h" /* HASH_MAP, MARK_FD, marked_close */

char LICENSE[] SEC("license") = "GPL";

HASH_MAP(cgroup_id_map, __u64, __u64, 64);

HASH_MAP(marked_closes_kept_total, __u64, __u64, 256);

HASH_MAP(marked_closes_unkept_total, __u64, __u64, 256);

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
