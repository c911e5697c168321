// SPDX-License-Identifier: GPL-2.0
/* Block IO latency in ebpf_exporter's config format (tests/exporter/exporter_biolatency.yaml
 * beside it), for the ExporterConfig majorminor test; written for this project. As that
 * tool's programs do, it writes the device as user space's dev_t (new_encode_dev, not the
 * kernel's major << 20 | minor), a 1-byte op that the YAML reads as a 4-byte label (the 3
 * bytes after it zeroed), the exp2 bucket of the latency in microseconds last in the key,
 * and the sum of the latencies in bucket BUCKET_MAX + 1. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "counting.bpf.h" /* counter_add_at */
#include "../support/test_maps.bpf.h" /* HASH_MAP, request_done, request_issued */

char LICENSE[] SEC("license") = "GPL";

#define BUCKET_MAX 27 /* bucket_max in the YAML */
#define USER_DEV(major, minor) (((minor) & 0xff) | ((major) << 8) | (((minor) & ~0xff) << 12))

struct bio_key {
	u32 dev;
	u8 op;
	u64 bucket;
};

HASH_MAP(bio_latency_seconds, struct bio_key, u64, 4096);

HASH_MAP(issued, u64, u64, 4096); /* struct request * */

SEC("tp_btf/block_rq_issue")
int BPF_PROG(issue, struct request *rq)
{
	request_issued(&issued, rq);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	u64 ns, us, bucket = 0;
	struct bio_key k;
	struct gendisk *disk;

	if (!request_done(&issued, rq, &ns))
		return 0;
	us = ns / 1000;
	while (bucket < BUCKET_MAX && (1ULL << bucket) < us)
		bucket++;
	__builtin_memset(&k, 0, sizeof(k)); /* the padding after op is read as part of its label */
	disk = BPF_CORE_READ(rq, q, disk);
	k.dev = disk ? USER_DEV(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor)) : 0;
	k.op = BPF_CORE_READ(rq, cmd_flags) & 0xff;
	k.bucket = bucket;
	counter_add_at(&bio_latency_seconds, &k, 1);
	k.bucket = BUCKET_MAX + 1;
	counter_add_at(&bio_latency_seconds, &k, us);
	return 0;
}
