// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_syscalls.yaml beside
 * it), for the ExporterConfig tests; written for this project. Two maps, named like their
 * metrics as ebpf_exporter wants:
 *   syscalls_total     the system calls of one process (filter_tgid) by number: the YAML
 *                      decodes the key with `uint` then `syscall`
 *   write_size_bytes   its write() sizes by file descriptor, the bucket index last in the
 *                      key (exp2: bucket k counts sizes up to 2^k) and the sum of the sizes
 *                      in bucket WRITE_BUCKET_MAX + 1, as ebpf_exporter's histograms keep it */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */
#include "../support/test_maps.bpf.h" /* HASH_MAP */

char LICENSE[] SEC("license") = "GPL";

#define WRITE_BUCKET_MAX 20 /* bucket_max in the YAML */

const volatile __u32 filter_tgid = 0;

HASH_MAP(syscalls_total, __u64, __u64, 1024);

struct write_key {
	__u8 fd;      /* size 1, then 7 bytes of padding before the bucket */
	__u64 bucket;
};

HASH_MAP(write_size_bytes, struct write_key, __u64, 1024);

static __always_inline bool of_filter(void)
{
	return filter_tgid && (bpf_get_current_pid_tgid() >> 32) == filter_tgid;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int count_syscall(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = ctx->id;

	if (of_filter())
		counter_add_at(&syscalls_total, &id, 1);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_write")
int write_size(struct trace_event_raw_sys_enter *ctx)
{
	struct write_key key = {};
	__u64 size = ctx->args[2];

	if (!of_filter())
		return 0;
	key.fd = (__u8)ctx->args[0];
	while (key.bucket < WRITE_BUCKET_MAX && (1ULL << key.bucket) < size)
		key.bucket++;
	counter_add_at(&write_size_bytes, &key, 1);
	key.bucket = WRITE_BUCKET_MAX + 1;
	counter_add_at(&write_size_bytes, &key, size);
	return 0;
}
