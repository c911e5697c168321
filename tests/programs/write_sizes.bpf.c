// SPDX-License-Identifier: GPL-2.0
/* write() calls by requested size, for one command name (a string Param): a hash with one
 * key per size, so a test makes as many label sets as it likes (MaxSeries). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "../support/test_maps.bpf.h" /* HASH_MAP, lookup_or_insert */

char LICENSE[] SEC("license") = "GPL";

const volatile char comm[16] = "";

HASH_MAP(writes, __u64, __u64, 256);

static __always_inline bool is_comm(void)
{
	char now[16];

	bpf_get_current_comm(now, sizeof(now));
	for (int i = 0; i < 16; i++) {
		if (now[i] != comm[i])
			return false;
		if (!now[i])
			return true;
	}
	return true;
}

SEC("tracepoint/syscalls/sys_enter_write")
int on_write(struct trace_event_raw_sys_enter *ctx)
{
	static const __u64 zero;
	__u64 size = ctx->args[2], *count;

	if (!is_comm())
		return 0;
	count = lookup_or_insert(&writes, &size, &zero);
	if (count)
		__sync_fetch_and_add(count, 1);
	return 0;
}
