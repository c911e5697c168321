// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_comm.yaml beside it),
 * for the ExporterConfig regexp test; written for this project. It counts close() of one
 * file descriptor no process has open (MARK_FD: the workload's marker, EBADF, never a real
 * close) by the caller's command name, a 16-byte key the YAML decodes with `string` then
 * `regexp`, so that a command no pattern matches is dropped. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */
#include "../support/test_maps.bpf.h" /* HASH_MAP, MARK_FD, marked_close */

char LICENSE[] SEC("license") = "GPL";

struct comm_key {
	char comm[16];
};

HASH_MAP(marked_closes_total, struct comm_key, __u64, 1024);

SEC("tracepoint/syscalls/sys_enter_close")
int count_close(struct trace_event_raw_sys_enter *ctx)
{
	struct comm_key key = {};

	if (!marked_close(ctx, key.comm))
		return 0;
	counter_add_at(&marked_closes_total, &key, 1);
	return 0;
}
