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
#include "../support/test_maps.bpf.h" /* HASH_MAP, lookup_or_insert, request_done, request_issued */

char LICENSE[] SEC("license") = "GPL";

#define MAX_BUCKET 38

struct io_key {
	u32 dev;    /* major << 20 | minor, as the block tracepoints have it */
	u8 op;      /* REQ_OP_READ 0, REQ_OP_WRITE 1, REQ_OP_FLUSH 2, REQ_OP_DISCARD 3, ... */
	u64 bucket; /* after 3 bytes of padding */
};

HASH_MAP(io_latency, struct io_key, u64, 1024);

HASH_MAP(started, u64, u64, 4096); /* struct request * */

/* Adds one to the count of key: inserts a zero first, so two CPUs that both find no entry
 * cannot lose an event to each other. */
static __always_inline void count_one(struct io_key *key)
{
	static const u64 zero;
	u64 *count = lookup_or_insert(&io_latency, key, &zero);

	if (count)
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
	request_issued(&started, rq);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct io_key k = {};
	struct gendisk *disk;
	u64 ns;

	if (!request_done(&started, rq, &ns))
		return 0;
	k.bucket = exp2_bucket(ns);
	disk = BPF_CORE_READ(rq, q, disk);
	k.dev = BPF_CORE_READ(disk, major) << 20 | BPF_CORE_READ(disk, first_minor);
	k.op = BPF_CORE_READ(rq, cmd_flags) & 0xff;
	count_one(&k);
	return 0;
}
