// SPDX-License-Identifier: GPL-2.0
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Loader test object that libbpf 1.x cannot open: a map in the legacy "maps" section. */
struct legacy_map_def {
	unsigned int type, key_size, value_size, max_entries, map_flags;
};

struct legacy_map_def counts SEC("maps") = { .type = 2, .key_size = 4, .value_size = 8, .max_entries = 1 };

SEC("tracepoint/syscalls/sys_enter_sync")
int on_sync(void *ctx)
{
	return 0;
}
