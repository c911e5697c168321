/* Real label values of this machine for the decode benches: its disks (dev_t as the kernel
 * encodes them in BPF keys), addresses inside its kernel functions, its cgroup ids. */
#ifndef EBPF_BENCH_LABEL_SAMPLES_H
#define EBPF_BENCH_LABEL_SAMPLES_H

#include <stdint.h>

struct label_samples {
	uint32_t devs[64];
	int ndev;
	uint64_t addrs[16384]; /* a text symbol's address + 8 */
	int naddr;
	uint64_t cgroups[256]; /* cgroup2 directory inode numbers: the ids bpf_get_current_cgroup_id gives */
	int ncgroup;
};

/* 0, or -1 with a message on stderr saying what is missing (root for kallsyms addresses). */
int label_samples_load(struct label_samples *s);

#endif
