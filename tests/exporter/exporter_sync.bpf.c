// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_sync.yaml beside it),
 * for the ExporterConfig kernel-function test; written for this project. It counts calls of
 * the kernel's ksys_sync (sync(2)'s body, in every kernel since 4.17) twice: once from a
 * kprobe, once from an fentry program, each into its own counter, so that one run checks both
 * ways in. `filter_tgid` (a Param) limits it to one process. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sync_kprobe_calls_total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sync_fentry_calls_total SEC(".maps");

static __always_inline int count_call(void *calls_map)
{
	__u32 zero = 0;
	__u64 *calls;

	if (filter_tgid && (bpf_get_current_pid_tgid() >> 32) != filter_tgid)
		return 0;
	calls = bpf_map_lookup_elem(calls_map, &zero);
	if (calls)
		__sync_fetch_and_add(calls, 1);
	return 0;
}

SEC("kprobe/ksys_sync")
int BPF_KPROBE(sync_kprobe)
{
	return count_call(&sync_kprobe_calls_total);
}

SEC("fentry/ksys_sync")
int BPF_PROG(sync_fentry)
{
	return count_call(&sync_fentry_calls_total);
}
