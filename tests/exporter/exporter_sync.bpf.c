// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_sync.yaml beside it),
 * for the ExporterConfig kernel-function test; written for this project. It counts calls of
 * the kernel's ksys_sync (sync(2)'s body, in every kernel since 4.17) twice: once from a
 * kprobe, once from an fentry program, each into its own counter, so that one run checks both
 * ways in. `filter_tgid` (a Param) limits it to one process. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "counting.bpf.h" /* add_to_row, tgid_filter_passes */
#include "../support/test_maps.bpf.h" /* COUNTER_ARRAY */

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0;

COUNTER_ARRAY(sync_kprobe_calls_total, 1);

COUNTER_ARRAY(sync_fentry_calls_total, 1);

static __always_inline int count_call(void *calls_map)
{
	if (tgid_filter_passes(filter_tgid))
		add_to_row(calls_map, 0, 1);
	return 0;
}

SEC("kprobe/ksys_sync")
int BPF_KPROBE(sync_kprobe)
{
	return count_call(&sync_kprobe_calls_total);
}

SEC("fentry/ksys_sync")
int BPF_PROG(sync_fentry)
{
	return count_call(&sync_fentry_calls_total);
}
