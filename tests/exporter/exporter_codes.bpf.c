// SPDX-License-Identifier: GPL-2.0
/* A program in ebpf_exporter's config format (tests/exporter/exporter_codes.yaml beside it),
 * for the ExporterConfig test of the errno, inet_ip, hex, ksym, pci_device and pci_class
 * decoders; written for this project. It counts close() of one file descriptor no process
 * has open (MARK_FD: the workload's marker) under a key of fixed values the caller's command
 * chooses: a command starting with 'k' gets EACCES, 127.0.0.1, the byte 0xbe, vfs_read's
 * address (which the YAML's kaddrs write into kaddr_vfs_read), the PCI device 1af4:1000 and
 * class 0x02, which pci.ids names, and ::1; any other ENOENT, 1.2.3.4, 0x0a, the address 1,
 * which no kernel symbol starts at, a device and class pci.ids does not have, and
 * 2001:db8::1, so that both sides of ksym and the pci_* decoders reach collectd. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h" /* counter_add_at */
#include "../support/test_maps.bpf.h" /* HASH_MAP, MARK_FD, marked_close */

char LICENSE[] SEC("license") = "GPL";

const volatile __u64 kaddr_vfs_read = 0;

struct codes_key {
	__u64 err;      /* a positive errno, as ebpf_exporter's programs keep it */
	__u8 addr[4];   /* IPv4, network byte order */
	__u8 tag;
	__u8 pad[3];
	__u64 function; /* a kernel address */
	__u32 pci_device; /* vendor << 16 | device */
	__u8 pci_class;
	__u8 pad2[3];
	__u8 addr6[16]; /* IPv6, network byte order */
};

HASH_MAP(marked_closes_total, struct codes_key, __u64, 16);

SEC("tracepoint/syscalls/sys_enter_close")
int count_close(struct trace_event_raw_sys_enter *ctx)
{
	struct codes_key key = {};
	char comm[16];

	if (!marked_close(ctx, comm))
		return 0;
	if (comm[0] == 'k') {
		key.err = 13; /* EACCES */
		key.addr[0] = 127;
		key.addr[3] = 1;
		key.tag = 0xbe;
		key.function = kaddr_vfs_read;
		key.pci_device = 0x1af41000;
		key.pci_class = 0x02;
		key.addr6[15] = 1;
	} else {
		key.err = 2; /* ENOENT */
		key.addr[0] = 1;
		key.addr[1] = 2;
		key.addr[2] = 3;
		key.addr[3] = 4;
		key.tag = 0x0a;
		key.function = 1;
		key.pci_device = 0xdeadbeef;
		key.pci_class = 0xfe;
		key.addr6[0] = 0x20;
		key.addr6[1] = 0x01;
		key.addr6[2] = 0x0d;
		key.addr6[3] = 0xb8;
		key.addr6[15] = 1;
	}
	counter_add_at(&marked_closes_total, &key, 1);
	return 0;
}
