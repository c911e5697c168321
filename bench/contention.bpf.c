// SPDX-License-Identifier: GPL-2.0
/* What bench/contention_cost measures: one histogram record and one counter add per
 * syscall exit of the bench's own process, exactly as the modules record them
 * (hist_record() and add_to_row(), atomic adds), into maps whose type user space sets
 * before load: BPF_MAP_TYPE_PERCPU_ARRAY (one copy per possible CPU, today's layout) or
 * BPF_MAP_TYPE_ARRAY (one shared copy). The same instructions run on both: a lookup in
 * either returns a pointer to the value, so the layout is the map's type alone.
 *
 * `spread` 0: every CPU records into row 0, the same slot and the same counter (the worst
 * case for a shared row: the cache line moves between CPUs on every event); 1: each CPU
 * into its own row (the cost of the atomic add without the line moving). */
#include <linux/bpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include "include/hist_row.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0;
const volatile __u32 spread = 0;

#define CONTENTION_ROWS 64 /* rows for `spread`: one per CPU up to 64 */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CONTENTION_ROWS);
	__type(key, __u32);
	__type(value, struct hist_row);
} latency SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CONTENTION_ROWS);
	__type(key, __u32);
	__type(value, __u64);
} calls SEC(".maps");

SEC("tp_btf/sys_exit")
int record(void *ctx)
{
	__u32 row = spread ? bpf_get_smp_processor_id() % CONTENTION_ROWS : 0;
	struct hist_row *h;

	if (!tgid_filter_passes(filter_tgid))
		return 0;
	h = bpf_map_lookup_elem(&latency, &row);
	if (h)
		hist_record(h, 1000); /* always the same slot: the same cache line */
	add_to_row(&calls, row, 1);
	return 0;
}

/* The floor: the same filter, nothing recorded. */
SEC("tp_btf/sys_exit")
int filter_only(void *ctx)
{
	if (!tgid_filter_passes(filter_tgid))
		return 0;
	return 0;
}
