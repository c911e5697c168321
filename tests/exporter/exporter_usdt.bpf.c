// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_usdt.yaml beside it),
 * for the ExporterConfig USDT test; written for this project. It counts the USDT probe
 * collectd_ebpf_test:tick of the test workload usdt_n by the probe's argument. The section
 * names the binary without a directory: libbpf looks it up in PATH, as it would "python3".
 * `filter_tgid` (a Param) limits it to one process. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/usdt.bpf.h>
#include "counting.bpf.h" /* counter_add_at, tgid_filter_passes */
#include "../support/test_maps.bpf.h" /* HASH_MAP */

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0;

/* Key: the probe's argument; the workload passes 1 or 2, so a few entries are enough. */
HASH_MAP(usdt_ticks_total, __u32, __u64, 16);

SEC("usdt/usdt_n:collectd_ebpf_test:tick")
int BPF_USDT(count_tick, long arg)
{
	__u32 key = (__u32)arg;

	if (!tgid_filter_passes(filter_tgid))
		return 0;
	counter_add_at(&usdt_ticks_total, &key, 1);
	return 0;
}
