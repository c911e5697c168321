// SPDX-License-Identifier: GPL-2.0
/* A SEC("perf_event") program, written for this project, in the shape of ebpf_exporter's
 * llcstat (its config beside it: perf_event_samples.yaml): every sample of the perf event
 * it is attached to adds one to its CPU's count. tests/programs/collectd_perf_event.sh
 * runs it on the software event cpu-clock, which every machine has (a VM without a PMU
 * too), at a known frequency, so the counts' rate is known within bounds. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "../support/test_maps.bpf.h" /* HASH_MAP */

char LICENSE[] SEC("license") = "GPL";

#define MAX_CPUS 4096 /* above any machine's online CPUs: the key set's cap */

HASH_MAP(samples_total, __u32, __u64, MAX_CPUS);

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 one = 1, *count = bpf_map_lookup_elem(&samples_total, &cpu);

	if (count)
		__sync_fetch_and_add(count, 1);
	else
		bpf_map_update_elem(&samples_total, &cpu, &one, BPF_NOEXIST);
	return 0;
}
