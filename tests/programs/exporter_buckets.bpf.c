// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/programs/exporter_buckets.yaml beside it),
 * for the ExporterConfig test of the exp2zero and linear bucket types; written for this
 * project. Each close() of one file descriptor no process has open (MARK_FD: the workload's
 * marker) by a command named "v<N>" records the value N in two histograms keyed by bucket
 * as ebpf_exporter's maps.bpf.h keys them: exp2zero (0 in bucket 0, otherwise
 * ceil(log2 N) + 1) and linear (N in bucket N), each clamped to bucket_max, with the sum of
 * the values in bucket bucket_max + 1. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */

char LICENSE[] SEC("license") = "GPL";

#define MARK_FD 777777 /* tests/integration/close_n's marker */
#define BUCKET_MAX 10  /* bucket_max of both histograms in the YAML */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} close_values_exp2zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} close_values_linear SEC(".maps");

/* The bucket and the sum, as ebpf_exporter's programs record a value. */
static __always_inline void record(void *map, __u64 bucket, __u64 value)
{
	__u64 sum_key = BUCKET_MAX + 1;

	if (bucket > BUCKET_MAX)
		bucket = BUCKET_MAX;
	counter_add_at(map, &bucket, 1);
	counter_add_at(map, &sum_key, value);
}

SEC("tracepoint/syscalls/sys_enter_close")
int count_close(struct trace_event_raw_sys_enter *ctx)
{
	__u64 value = 0, k = 0;
	char comm[16];

	if (ctx->args[0] != MARK_FD)
		return 0;
	bpf_get_current_comm(comm, sizeof(comm));
	if (comm[0] != 'v')
		return 0;
	for (int i = 1; i < 4 && comm[i] >= '0' && comm[i] <= '9'; i++)
		value = value * 10 + (comm[i] - '0');
	if (value)
		for (k = 1; k < 64 && (1ull << (k - 1)) < value; k++)
			;
	record(&close_values_exp2zero, k, value);
	record(&close_values_linear, value, value);
	return 0;
}
