// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_buckets.yaml beside it),
 * for the ExporterConfig test of the exp2zero, linear and fixed bucket types; written for
 * this project. Each close() of one file descriptor no process has open (MARK_FD: the
 * workload's marker) by a command named "v<N>" records the value N in three histograms keyed
 * by bucket as ebpf_exporter's maps.bpf.h keys them: exp2zero (0 in bucket 0, otherwise
 * ceil(log2 N) + 1) and linear (N in bucket N), each clamped to bucket_max, with the sum of
 * the values in bucket bucket_max + 1; and fixed, bucket_keys 0, 5, 100: 0 in bucket 0, up
 * to 5 in bucket 5, above 100 in bucket 100, and between them N itself: a key the YAML does
 * not list, which ebpf_exporter does not read (its sum, in bucket 101, has every value). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */
#include "../support/test_maps.bpf.h" /* HASH_MAP, MARK_FD, marked_close */

char LICENSE[] SEC("license") = "GPL";

#define BUCKET_MAX 10  /* bucket_max of both histograms in the YAML */

HASH_MAP(close_values_exp2zero, __u64, __u64, 64);

HASH_MAP(close_values_linear, __u64, __u64, 64);

HASH_MAP(close_values_fixed, __u64, __u64, 64);

#define FIXED_LAST_KEY 100 /* the last of bucket_keys in the YAML */

/* The bucket and the sum (in the bucket after last_bucket), as ebpf_exporter's programs
 * record a value. */
static __always_inline void record_to(void *map, __u64 bucket, __u64 last_bucket, __u64 value)
{
	__u64 sum_key = last_bucket + 1;

	counter_add_at(map, &bucket, 1);
	counter_add_at(map, &sum_key, value);
}

static __always_inline void record(void *map, __u64 bucket, __u64 value)
{
	record_to(map, bucket > BUCKET_MAX ? BUCKET_MAX : bucket, BUCKET_MAX, value);
}

SEC("tracepoint/syscalls/sys_enter_close")
int count_close(struct trace_event_raw_sys_enter *ctx)
{
	__u64 value = 0, k = 0;
	char comm[16];

	if (!marked_close(ctx, comm))
		return 0;
	if (comm[0] != 'v')
		return 0;
	for (int i = 1; i < 4 && comm[i] >= '0' && comm[i] <= '9'; i++)
		value = value * 10 + (comm[i] - '0');
	if (value)
		for (k = 1; k < 64 && (1ull << (k - 1)) < value; k++)
			;
	record(&close_values_exp2zero, k, value);
	record(&close_values_linear, value, value);
	record_to(&close_values_fixed, value == 0 ? 0 : value <= 5 ? 5 : value <= FIXED_LAST_KEY ? value : FIXED_LAST_KEY,
		  FIXED_LAST_KEY, value);
	return 0;
}
