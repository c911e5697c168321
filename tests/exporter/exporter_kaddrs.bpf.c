// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_kaddrs.yaml beside it),
 * for the ExporterConfig kaddrs test; written for this project. The YAML's kaddrs make the
 * loader write vfs_read's address (from /proc/kallsyms) into kaddr_vfs_read before load; the
 * program shows it as two counters, its high and its low 32 bits (a whole address is above
 * what collectd's derive holds), so that the test compares them with kallsyms. It also counts,
 * in kaddr_reads_total, the times it could read the kernel's bytes at that address: a wrong
 * address would fail there. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "../support/test_maps.bpf.h" /* COUNTER_ARRAY */

char LICENSE[] SEC("license") = "GPL";

const volatile __u64 kaddr_vfs_read = 0;

COUNTER_ARRAY(kaddr_halves_total, 2);

COUNTER_ARRAY(kaddr_reads_total, 1);

SEC("tracepoint/syscalls/sys_enter_getppid")
int show_kaddr(void *ctx)
{
	__u32 high = 0, low = 1, zero = 0;
	__u64 high_bits = kaddr_vfs_read >> 32, low_bits = kaddr_vfs_read & 0xffffffff, code, *reads;

	bpf_map_update_elem(&kaddr_halves_total, &high, &high_bits, BPF_ANY);
	bpf_map_update_elem(&kaddr_halves_total, &low, &low_bits, BPF_ANY);
	reads = bpf_map_lookup_elem(&kaddr_reads_total, &zero);
	if (reads && kaddr_vfs_read && !bpf_probe_read_kernel(&code, sizeof(code), (const void *)kaddr_vfs_read))
		__sync_fetch_and_add(reads, 1);
	return 0;
}
