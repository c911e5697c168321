// SPDX-License-Identifier: GPL-2.0
/* A program for the linear and fixed slot conventions and a Multiplier other than 1e-9 and 1,
 * for the <Program> tests: every write() of one process records its byte count as a
 * "latency" in microseconds (values the test knows exactly), twice:
 *   write_lhist: bpftrace lhist-style linear slots in the value (below 0, then 10 slots of
 *                100, then the rest) with an exact sum;
 *   write_fixed: ebpf_exporter-style fixed buckets, the bound itself as the key (100, 500,
 *                1000, then 1000000 for everything above), u64 counts.
 * Written for this project. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0;

#define LIN_MIN 0
#define LIN_WIDTH 100
#define LIN_COUNT 10

struct lhist {
	__u64 slots[LIN_COUNT + 2];
	__u64 sum;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lhist);
} write_lhist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32); /* the bucket's upper bound */
	__type(value, __u64);
} write_fixed SEC(".maps");

static __always_inline __u32 fixed_bound(__u64 v)
{
	if (v <= 100)
		return 100;
	if (v <= 500)
		return 500;
	if (v <= 1000)
		return 1000;
	return 1000000;
}

static __always_inline void record(__u64 v)
{
	__u32 zero = 0, bound = fixed_bound(v);
	__u64 one = 1, *count, slot; /* 64 bits: a clamp on a 32-bit copy leaves the index unbounded */
	struct lhist *h;

	slot = v / LIN_WIDTH + 1; /* LIN_MIN is 0: nothing below it */
	if (slot > LIN_COUNT + 1)
		slot = LIN_COUNT + 1;
	h = bpf_map_lookup_elem(&write_lhist, &zero);
	if (h) {
		__sync_fetch_and_add(&h->slots[slot], 1);
		__sync_fetch_and_add(&h->sum, v);
	}
	count = bpf_map_lookup_elem(&write_fixed, &bound);
	if (count)
		__sync_fetch_and_add(count, 1);
	else
		bpf_map_update_elem(&write_fixed, &bound, &one, BPF_NOEXIST);
}

SEC("tracepoint/syscalls/sys_enter_write")
int on_write(struct trace_event_raw_sys_enter *ctx)
{
	if ((bpf_get_current_pid_tgid() >> 32) != filter_tgid)
		return 0;
	record(ctx->args[2]);
	return 0;
}
