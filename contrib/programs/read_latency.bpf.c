// SPDX-License-Identifier: GPL-2.0
/* The article's third program: the latency of generic_file_read_iter (page-cache reads of
 * most filesystems), as BCC's log2 histogram: the map's key is bpf_log2l(latency), as
 * BPF_HISTOGRAM + dist.increment(bpf_log2l(delta)) has it, so read_latency.conf declares
 * `Layout "key"` and `Buckets "bcc_log2"`.
 *
 * A kernel function has no tracepoint: fentry/fexit where the kernel allows them, else
 * kprobe/kretprobe. The kretprobe needs the start time kept per thread (as the article's
 * start_at); fexit could read its entry time the same way, so both share it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0;

#define READ_SLOTS 64

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u64);
} start_at SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, READ_SLOTS);
	__type(key, __u32);   /* bpf_log2l(nanoseconds): 0 for 0, else floor(log2(v)) + 1 */
	__type(value, __u64); /* calls */
} dist SEC(".maps");

/* BCC's bpf_log2l: the number of significant bits. */
static __always_inline __u32 log2l(__u64 v)
{
	__u32 bits = 0;

	if (v >> 32) { v >>= 32; bits += 32; }
	if (v >> 16) { v >>= 16; bits += 16; }
	if (v >> 8)  { v >>= 8;  bits += 8; }
	if (v >> 4)  { v >>= 4;  bits += 4; }
	if (v >> 2)  { v >>= 2;  bits += 2; }
	if (v >> 1)  { v >>= 1;  bits += 1; }
	return bits + (__u32)v;
}

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
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), slot;
	__u64 *start, *calls;

	start = bpf_map_lookup_elem(&start_at, &tid);
	if (!start)
		return 0;
	slot = log2l(bpf_ktime_get_ns() - *start);
	if (slot >= READ_SLOTS)
		slot = READ_SLOTS - 1;
	calls = bpf_map_lookup_elem(&dist, &slot);
	if (calls)
		__sync_fetch_and_add(calls, 1);
	bpf_map_delete_elem(&start_at, &tid);
	return 0;
}

SEC("fentry/generic_file_read_iter")
int BPF_PROG(read_fentry)
{
	return enter();
}

SEC("fexit/generic_file_read_iter")
int BPF_PROG(read_fexit)
{
	return leave();
}

SEC("kprobe/generic_file_read_iter")
int BPF_KPROBE(read_kprobe)
{
	return enter();
}

SEC("kretprobe/generic_file_read_iter")
int BPF_KRETPROBE(read_kretprobe)
{
	return leave();
}
