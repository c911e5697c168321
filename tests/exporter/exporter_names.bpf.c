// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_names.yaml beside it),
 * for the ExporterConfig test of the ifname, pci_* and dname decoders; written for this
 * project. It counts close() of one file descriptor no process has open (MARK_FD: the
 * workload's marker) under a key of fixed ids chosen by the caller's command: a command
 * starting with 'k' gets ids the system names (interface 1, lo; PCI vendor 0x8086; subclass
 * 0x0200; the DNS name example.com), any other ids nothing names (and a DNS name followed by
 * 0 bytes), so that both sides of each decoder reach collectd. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */
#include "../support/test_maps.bpf.h" /* HASH_MAP, MARK_FD, marked_close */

char LICENSE[] SEC("license") = "GPL";

struct names_key {
	__u32 ifindex;
	__u32 pci_vendor;
	__u16 pci_subclass; /* class << 8 | subclass */
	__u8 pad[2];
	char dname[12];     /* wire format */
};

HASH_MAP(marked_closes_total, struct names_key, __u64, 16);

SEC("tracepoint/syscalls/sys_enter_close")
int count_close(struct trace_event_raw_sys_enter *ctx)
{
	static const char known_name[12] = "\x07" "example\x03" "com";
	static const char other_name[12] = "\x03" "abc\x03" "xyz";
	struct names_key key = {};
	char comm[16];

	if (!marked_close(ctx, comm))
		return 0;
	if (comm[0] == 'k') {
		key.ifindex = 1;
		key.pci_vendor = 0x8086;
		key.pci_subclass = 0x0200;
		__builtin_memcpy(key.dname, known_name, sizeof(key.dname));
	} else {
		key.ifindex = 0x7ffffff0;
		key.pci_vendor = 0x8087;
		key.pci_subclass = 0x010b;
		__builtin_memcpy(key.dname, other_name, sizeof(key.dname));
	}
	counter_add_at(&marked_closes_total, &key, 1);
	return 0;
}
