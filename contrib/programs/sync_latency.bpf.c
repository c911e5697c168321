// SPDX-License-Identifier: GPL-2.0
/* The article's second program, made a metric: how long sync() takes, as a histogram.
 *
 * The start time of each call is kept per thread in a hash (as the article's start_at) and
 * recorded at return with the plugin's histogram record function (hist_row.bpf.h): the
 * native layout with its exact sum, so collectd gets exact means and percentiles. Entry and
 * return each have a kprobe way in (ksyscall) and a tracepoint way in; sync_latency.conf lets
 * the plugin choose per probe point. Compile: collectd-ebpf-cc sync_latency.bpf.c. */
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
} sync_latency SEC(".maps");

static __always_inline int enter(void)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tid = (__u32)id;

	if (filter_tgid && (id >> 32) != filter_tgid)
		return 0;
	bpf_map_update_elem(&start_at, &tid, &now, BPF_ANY);
	return 0;
}

static __always_inline int leave(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct hist_row *row;
	__u64 *start;

	start = bpf_map_lookup_elem(&start_at, &tid);
	if (!start)
		return 0;
	row = bpf_map_lookup_elem(&sync_latency, &zero);
	if (row)
		hist_record(row, bpf_ktime_get_ns() - *start);
	bpf_map_delete_elem(&start_at, &tid);
	return 0;
}

SEC("ksyscall/sync")
int BPF_KSYSCALL(sync_enter_kprobe)
{
	return enter();
}

SEC("kretsyscall/sync")
int BPF_KRETPROBE(sync_exit_kprobe)
{
	return leave();
}

SEC("tracepoint/syscalls/sys_enter_sync")
int sync_enter_tp(void *ctx)
{
	return enter();
}

SEC("tracepoint/syscalls/sys_exit_sync")
int sync_exit_tp(void *ctx)
{
	return leave();
}
