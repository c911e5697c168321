// SPDX-License-Identifier: GPL-2.0
/* Two counters whose second map user space cannot read (BPF_F_WRONLY: the kernel refuses
 * the lookup with EPERM), so that every read of the program fails at its second view after
 * its first was read (collectd_program_read_fails.sh). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "../support/test_maps.bpf.h" /* COUNTER_ARRAY */

char LICENSE[] SEC("license") = "GPL";

COUNTER_ARRAY(first, 1);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_WRONLY);
	__type(key, __u32);
	__type(value, __u64);
} second SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_sync")
int on_sync(void *ctx)
{
	__u32 zero = 0;
	__u64 *a = bpf_map_lookup_elem(&first, &zero), *b = bpf_map_lookup_elem(&second, &zero);

	if (a)
		__sync_fetch_and_add(a, 1);
	if (b)
		__sync_fetch_and_add(b, 1);
	return 0;
}
