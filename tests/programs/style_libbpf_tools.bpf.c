// SPDX-License-Identifier: GPL-2.0
/* A program in libbpf-tools' style, for the <Program> tests: block IO sizes per disk in a
 * `struct hist { __u32 slots[N]; }` value with floor-log2 slots, a `const volatile` knob, and
 * tp_btf and raw_tp twins of one probe of which only one may attach. Written for this project. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_SLOTS 27

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
} sizes SEC(".maps");

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

static __always_inline int record(struct request *rq)
{
	static struct hist zero;
	struct hist_key key = {};
	struct hist *h;
	__u32 slot;

	key.dev = BPF_CORE_READ(rq, q, disk, major) << 20 | BPF_CORE_READ(rq, q, disk, first_minor);
	if (filter_dev && key.dev != targ_dev)
		return 0;
	h = bpf_map_lookup_elem(&sizes, &key);
	if (!h) {
		bpf_map_update_elem(&sizes, &key, &zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&sizes, &key);
		if (!h)
			return 0;
	}
	slot = log2_floor(BPF_CORE_READ(rq, __data_len));
	if (slot >= MAX_SLOTS)
		slot = MAX_SLOTS - 1;
	__sync_fetch_and_add(&h->slots[slot], 1);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue_btf, struct request *rq)
{
	return record(rq);
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(block_rq_issue_raw, struct request *rq)
{
	return record(rq);
}
