// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_uprobe.yaml beside it),
 * for the ExporterConfig uprobe test; written for this project. It counts calls of the C
 * library's getaddrinfo() by the port number its `service` argument names ("80" -> 80; a
 * name or nothing -> 0): SEC("uprobe/libc.so.6:getaddrinfo"), as ebpf_exporter's uprobe
 * example attaches to a library by its soname. `filter_tgid` (a Param) limits it to one
 * process. The service string is read from the caller's memory, which a BPF program cannot
 * fault in: a string on a page the process has not touched yet reads as nothing, and that
 * call counts under port 0 (the workload, tests/support/gai_n, touches its string). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at, tgid_filter_passes */
#include "../support/test_maps.bpf.h" /* HASH_MAP */
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0;

/* Key: the port; the workload asks for one, so a few entries are enough. */
HASH_MAP(gai_calls_total, __u32, __u64, 16);

SEC("uprobe/libc.so.6:getaddrinfo")
int BPF_UPROBE(count_gai, const char *node, const char *service)
{
	char text[6] = {};
	__u32 port = 0;

	if (!tgid_filter_passes(filter_tgid))
		return 0;
	if (service)
		bpf_probe_read_user_str(text, sizeof(text), service);
	for (int i = 0; i < 5 && text[i] >= '0' && text[i] <= '9'; i++)
		port = port * 10 + (text[i] - '0');
	counter_add_at(&gai_calls_total, &port, 1);
	return 0;
}
