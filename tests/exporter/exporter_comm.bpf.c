// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_comm.yaml beside it),
 * for the ExporterConfig regexp test; written for this project. It counts close() of one
 * file descriptor no process has open (MARK_FD: the workload's marker, EBADF, never a real
 * close) by the caller's command name, a 16-byte key the YAML decodes with `string` then
 * `regexp`, so that a command no pattern matches is dropped. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */

char LICENSE[] SEC("license") = "GPL";

#define MARK_FD 777777 /* tests/support/close_n's marker */

struct comm_key {
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct comm_key);
	__type(value, __u64);
} marked_closes_total SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_close")
int count_close(struct trace_event_raw_sys_enter *ctx)
{
	struct comm_key key = {};

	if (ctx->args[0] != MARK_FD)
		return 0;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	counter_add_at(&marked_closes_total, &key, 1);
	return 0;
}
