// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/programs/exporter_syscalls.yaml beside
 * it), for the ExporterConfig tests; written for this project. Two maps, named like their
 * metrics as ebpf_exporter wants:
 *   syscalls_total     the system calls of one process (filter_tgid) by number: the YAML
 *                      decodes the key with `uint` then `syscall`
 *   write_size_bytes   its write() sizes by file descriptor, the bucket index last in the
 *                      key (exp2: bucket k counts sizes up to 2^k) and the sum of the sizes
 *                      in bucket WRITE_BUCKET_MAX + 1, as ebpf_exporter's histograms keep it */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define WRITE_BUCKET_MAX 20 /* bucket_max in the YAML */

const volatile __u32 filter_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} syscalls_total SEC(".maps");

struct write_key {
	__u8 fd;      /* size 1, then 7 bytes of padding before the bucket */
	__u64 bucket;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct write_key);
	__type(value, __u64);
} write_size_bytes SEC(".maps");

static __always_inline bool of_filter(void)
{
	return filter_tgid && (bpf_get_current_pid_tgid() >> 32) == filter_tgid;
}

/* Adds n to key's value in map: inserts a zero first, so that two CPUs that both find no
 * entry do not lose an event to each other. */
static __always_inline void add(void *map, const void *key, __u64 n)
{
	static const __u64 zero;
	__u64 *v = bpf_map_lookup_elem(map, key);

	if (!v) {
		bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(map, key);
		if (!v)
			return;
	}
	__sync_fetch_and_add(v, n);
}

SEC("tracepoint/raw_syscalls/sys_enter")
int count_syscall(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = ctx->id;

	if (of_filter())
		add(&syscalls_total, &id, 1);
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
	add(&write_size_bytes, &key, 1);
	key.bucket = WRITE_BUCKET_MAX + 1;
	add(&write_size_bytes, &key, size);
	return 0;
}
