/* KernelMemoryLimit: the kernel memory of all modules' maps, planned before anything loads.
 *
 * Every module is opened and sized as it would start (module_plan_memory), at this
 * machine's possible CPUs. While the total is over the limit, the module with the most
 * bytes whose precision was not set by the user (`Precision`) records one step coarser
 * (half the slots per power of two): its per-cgroup rows first (By "cgroup", unless
 * `CgroupPrecision` was set), down to 0, then its host-wide rows; when nothing can be made coarser, the modules that
 * still do not fit, in configuration order, are refused: they stay off with an error that
 * names the module, its largest map and the bytes. The others start as planned. */
#ifndef EBPF_CORE_MEMORY_PLAN_H
#define EBPF_CORE_MEMORY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/engine/module.h"
#include "base/options.h"

#define KERNEL_MEMORY_LIMIT_KEY "KernelMemoryLimit"
/* 64 MiB: every configuration of contrib/ebpf.conf fits many times over at 256 possible
 * CPUs (doc/modules.md, Memory); a limit exists so that a host with thousands of possible
 * CPUs or a program with huge maps is told, not surprised. */
#define KERNEL_MEMORY_LIMIT_DEFAULT (64ull << 20)

/* `KernelMemoryLimit 64M`: a byte count with an optional K, M or G (powers of 1024). 1 if
 * the option is ours and valid, 0 if the key is not ours, -1 with err if invalid. */
int kernel_memory_limit_option(uint64_t *limit, const struct option *o, char *err, size_t errlen);

struct memory_plan {
	int possible_cpus;
	uint64_t limit, total;     /* total: of the modules that fit */
	int nmodules;
	struct module **modules;
	struct module_memory *plans; /* one per module */
	bool *refused;               /* one per module: off, with its error in plans' module */
	char (*errors)[512];         /* why a refused module is off */
};

/* Plans mods[0..n) against limit, lowering precisions of the modules in place (m->hist,
 * m->cgroup_hist).
 * 0, or -1 if the plan could not be made (no memory). A module that cannot even be
 * planned (its own configuration or kernel) is left to its start, counted as 0 bytes. */
int memory_plan_make(struct memory_plan *p, struct module **mods, int n, uint64_t limit);
/* One line per module: "syscalls: 6 maps, 1.4 MiB (counts 20.8 KiB per-CPU, ...), precision 5",
 * with By "cgroup" then ", per-cgroup precision 3". */
void memory_plan_describe(const struct memory_plan *p, int i, char *buf, size_t len);
void memory_plan_free(struct memory_plan *p);

/* "12.3 MiB", "8.5 KiB", "368 B" into buf (powers of 1024, as KernelMemoryLimit's K, M, G). */
const char *memory_bytes_text(uint64_t bytes, char *buf, size_t len);

#endif
