// SPDX-License-Identifier: GPL-2.0
/* A program in libbpf-tools' style, for the <Program> tests: block IO latency per disk in a
 * `struct hist { __u32 slots[N]; }` value with floor-log2 slots (slot k holds [2^k, 2^(k+1))
 * ns, 0 in slot 0), `const volatile` knobs set before load, and tp_btf and raw_tp twins of each
 * probe of which only one may attach (both would time every request twice). Written for this
 * project. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "../support/test_maps.bpf.h" /* lookup_or_insert */

char LICENSE[] SEC("license") = "GPL";

#define MAX_SLOTS 40

struct hist {
	__u32 slots[MAX_SLOTS];
};

struct hist_key {
	__u32 dev;
};

const volatile bool filter_dev = false;
const volatile __u32 targ_dev = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct hist_key);
	__type(value, struct hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct request *);
	__type(value, __u64);
} start SEC(".maps");

static __always_inline __u32 log2_floor(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8)  { v >>= 8;  r += 8; }
	if (v >> 4)  { v >>= 4;  r += 4; }
	if (v >> 2)  { v >>= 2;  r += 2; }
	if (v >> 1)  { r += 1; }
	return r;
}

static __always_inline __u32 disk_dev(struct request *rq)
{
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);

	return BPF_CORE_READ(disk, major) << 20 | BPF_CORE_READ(disk, first_minor);
}

static __always_inline int trace_issue(struct request *rq)
{
	__u64 ts = bpf_ktime_get_ns();

	if (filter_dev && disk_dev(rq) != targ_dev)
		return 0;
	bpf_map_update_elem(&start, &rq, &ts, BPF_ANY);
	return 0;
}

static __always_inline int trace_complete(struct request *rq)
{
	static struct hist zero;
	struct hist_key key = {};
	struct hist *h;
	__u64 *tsp;
	__u32 slot;

	tsp = bpf_map_lookup_elem(&start, &rq);
	if (!tsp)
		return 0;
	slot = log2_floor(bpf_ktime_get_ns() - *tsp);
	bpf_map_delete_elem(&start, &rq);
	key.dev = disk_dev(rq);
	h = lookup_or_insert(&hists, &key, &zero);
	if (!h)
		return 0;
	if (slot >= MAX_SLOTS)
		slot = MAX_SLOTS - 1;
	__sync_fetch_and_add(&h->slots[slot], 1);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(issue_btf, struct request *rq)
{
	return trace_issue(rq);
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(issue_raw, struct request *rq)
{
	return trace_issue(rq);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(done_btf, struct request *rq, int error, unsigned int nr_bytes)
{
	return trace_complete(rq);
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(done_raw, struct request *rq, int error, unsigned int nr_bytes)
{
	return trace_complete(rq);
}
