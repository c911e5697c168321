// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_percpu.yaml beside it),
 * written for this project, with the two map shapes of ebpf_exporter's examples that the
 * plugin read differently before: a per-CPU array whose YAML ends with the label `cpu`
 * (percpu-softirq's: ebpf_exporter fills it from each CPU's copy, not from the key), and a
 * map declared by key_size and value_size without BTF types (regexp's: ebpf_exporter reads
 * its labels by their sizes). Both count close() of the marker fd (MARK_FD, never a real
 * close): the per-CPU one by kind (0 for the command "alpha", 1 for any other), the other by
 * command name. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "../support/test_maps.bpf.h" /* MARK_FD, marked_close, lookup_or_insert */

char LICENSE[] SEC("license") = "GPL";

#define COMM_LEN 16

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} cpu_closes_total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(key_size, COMM_LEN);
	__uint(value_size, sizeof(__u64));
	__uint(max_entries, 64);
} sized_closes_total SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_close")
int count_close(struct trace_event_raw_sys_enter *ctx)
{
	char comm[COMM_LEN] = {};
	__u64 zero = 0, *count;
	__u32 kind;

	if (!marked_close(ctx, comm))
		return 0;
	kind = comm[0] == 'a' && comm[1] == 'l' && comm[2] == 'p' && comm[3] == 'h' && comm[4] == 'a' && !comm[5] ? 0 : 1;
	count = bpf_map_lookup_elem(&cpu_closes_total, &kind);
	if (count) /* atomic: the syscall tracepoints run preemptible since 6.14 */
		__sync_fetch_and_add(count, 1);
	count = lookup_or_insert(&sized_closes_total, comm, &zero);
	if (count)
		__sync_fetch_and_add(count, 1);
	return 0;
}
