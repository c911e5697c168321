// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's style, for the <Program> tests: block IO latency by disk and
 * operation, the bucket index the last part of the key, exp2 buckets (bucket k counts values up
 * to 2^k microseconds), u64 values, labels found by size and padding. Written for this project. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_BUCKET 26

struct io_key {
	u32 dev;
	u8 op;     /* 0 read, 1 write, 2 other */
	u8 pad[3];
	u64 bucket;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct io_key);
	__type(value, u64);
} io_latency SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, u64); /* struct request * */
	__type(value, u64);
} started SEC(".maps");

SEC("tp_btf/block_rq_issue")
int BPF_PROG(issue, struct request *rq)
{
	u64 key = (u64)rq, now = bpf_ktime_get_ns();

	bpf_map_update_elem(&started, &key, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	u64 key = (u64)rq, *start, us, bucket = 0, one = 1, *count;
	struct io_key k = {};
	unsigned int flags;

	start = bpf_map_lookup_elem(&started, &key);
	if (!start)
		return 0;
	us = (bpf_ktime_get_ns() - *start) / 1000;
	bpf_map_delete_elem(&started, &key);
	while (bucket < MAX_BUCKET && (1ULL << bucket) < us)
		bucket++;
	flags = BPF_CORE_READ(rq, cmd_flags);
	k.op = (flags & 0xff) == 0 ? 0 : (flags & 0xff) == 1 ? 1 : 2;
	k.dev = BPF_CORE_READ(rq, q, disk, major) << 20 | BPF_CORE_READ(rq, q, disk, first_minor);
	k.bucket = bucket;
	count = bpf_map_lookup_elem(&io_latency, &k);
	if (count)
		__sync_fetch_and_add(count, 1);
	else
		bpf_map_update_elem(&io_latency, &k, &one, BPF_NOEXIST);
	return 0;
}
