// SPDX-License-Identifier: GPL-2.0
#include "../../bpf/include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Loader test object of a packet-processing type: not tracing. */
SEC("xdp")
int pass_packets(void *ctx)
{
	return 2; /* XDP_PASS */
}
