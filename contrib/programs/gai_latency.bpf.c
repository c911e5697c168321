// SPDX-License-Identifier: GPL-2.0
/* How long name lookups take: getaddrinfo() of the C library, timed from a uprobe at its
 * entry to a uretprobe at its return, as a histogram (calls per second come with it as
 * derive-getaddrinfo-count).
 *
 * SEC("uprobe/libc.so.6:getaddrinfo"): libbpf finds libc.so.6 in the library paths and the
 * function in its symbols, and attaches for every process that maps it. BPF_UPROBE and
 * BPF_URETPROBE give the arguments and the return value by name; collectd-ebpf-cc supplies them
 * where libbpf is older than 1.2 (Debian 12). `filter_tgid` (a Param) limits it to one process.
 * Compile: collectd-ebpf-cc gai_latency.bpf.c; gai_latency.conf is its <Program> block. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "counting.bpf.h"
#include "hist_row.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);   /* thread id */
	__type(value, __u64); /* bpf_ktime_get_ns() at entry */
} start_at SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hist_row);
} gai_latency SEC(".maps");

SEC("uprobe/libc.so.6:getaddrinfo")
int BPF_UPROBE(gai_enter, const char *node, const char *service)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tid = (__u32)id;

	if (filter_tgid && (id >> 32) != filter_tgid)
		return 0;
	bpf_map_update_elem(&start_at, &tid, &now, BPF_ANY);
	return 0;
}

SEC("uretprobe/libc.so.6:getaddrinfo")
int BPF_URETPROBE(gai_exit, int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct hist_row *row;
	__u64 *start;

	start = bpf_map_lookup_elem(&start_at, &tid);
	if (!start)
		return 0;
	row = bpf_map_lookup_elem(&gai_latency, &zero);
	if (row)
		hist_record(row, bpf_ktime_get_ns() - *start);
	bpf_map_delete_elem(&start_at, &tid);
	return 0;
}
