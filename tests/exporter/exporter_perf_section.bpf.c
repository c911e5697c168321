// SPDX-License-Identifier: GPL-2.0
/* Two SEC("perf_event/...") programs, written for this project in the shape of ebpf_exporter's
 * llcstat (its config beside it: exporter_perf_section.yaml), whose sections name their perf
 * events as ebpf_exporter's do, with no perf_events: entry in the YAML: on_sample runs on the
 * software event cpu-clock (type 1, config 0) at 99 samples a second on each CPU; on_miss on
 * llcstat's own hardware event, cache misses (type 0, config 3), which needs the CPU's PMU.
 * Each sample adds one to its CPU's count. tests/programs/collectd_perf_event.sh runs them. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "../support/test_maps.bpf.h" /* HASH_MAP */

char LICENSE[] SEC("license") = "GPL";

#define MAX_CPUS 4096 /* above any machine's online CPUs: the key set's cap */

HASH_MAP(section_samples_total, __u32, __u64, MAX_CPUS);
HASH_MAP(section_misses_total, __u32, __u64, MAX_CPUS);

static __always_inline void count_sample(void *map)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 one = 1, *count = bpf_map_lookup_elem(map, &cpu);

	if (count)
		__sync_fetch_and_add(count, 1);
	else
		bpf_map_update_elem(map, &cpu, &one, BPF_NOEXIST);
}

SEC("perf_event/type=1,config=0,frequency=99")
int on_sample(struct bpf_perf_event_data *ctx)
{
	count_sample(&section_samples_total);
	return 0;
}

SEC("perf_event/type=0,config=3,frequency=1")
int on_miss(struct bpf_perf_event_data *ctx)
{
	count_sample(&section_misses_total);
	return 0;
}
