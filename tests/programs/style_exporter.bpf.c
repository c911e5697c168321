// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's style, for the <Program> tests: block IO latency by disk and
 * operation. The bucket index is the last part of the key, exp2 buckets (bucket k counts
 * latencies up to 2^k ns, the last one everything above), u64 counts as values, and a key whose
 * parts a configuration finds by size and padding (the compiler pads `op` to the bucket's
 * 8-byte alignment: `Size 1` `Padding 3`). Written for this project. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_BUCKET 38

struct io_key {
	u32 dev;    /* major << 20 | minor, as the block tracepoints have it */
	u8 op;      /* REQ_OP_READ 0, REQ_OP_WRITE 1, REQ_OP_FLUSH 2, REQ_OP_DISCARD 3, ... */
	u64 bucket; /* after 3 bytes of padding */
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

/* Adds one to the count of key: inserts a zero first, so two CPUs that both find no entry
 * cannot lose an event to each other. */
static __always_inline void count_one(struct io_key *key)
{
	static const u64 zero;
	u64 *count = bpf_map_lookup_elem(&io_latency, key);

	if (!count) {
		bpf_map_update_elem(&io_latency, key, &zero, BPF_NOEXIST);
		count = bpf_map_lookup_elem(&io_latency, key);
		if (!count)
			return;
	}
	__sync_fetch_and_add(count, 1);
}

static __always_inline u64 exp2_bucket(u64 value)
{
	u64 bucket = 0;

	while (bucket < MAX_BUCKET && (1ULL << bucket) < value)
		bucket++;
	return bucket;
}

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
	u64 key = (u64)rq, *start;
	struct io_key k = {};
	struct gendisk *disk;

	start = bpf_map_lookup_elem(&started, &key);
	if (!start)
		return 0;
	k.bucket = exp2_bucket(bpf_ktime_get_ns() - *start);
	bpf_map_delete_elem(&started, &key);
	disk = BPF_CORE_READ(rq, q, disk);
	k.dev = BPF_CORE_READ(disk, major) << 20 | BPF_CORE_READ(disk, first_minor);
	k.op = BPF_CORE_READ(rq, cmd_flags) & 0xff;
	count_one(&k);
	return 0;
}
