/* Addresses of kernel symbols by name, for ebpf_exporter's `kaddrs` (`KernelAddress` in a
 * <Program> block): the program declares `const volatile u64 kaddr_<symbol>` and gets the
 * symbol's address written there before load, as ebpf_exporter writes it. The address is
 * the one /proc/kallsyms lists for a symbol of the kernel itself (not of a module); where
 * several have the name, the last listed, as ebpf_exporter's table keeps it. */
#ifndef EBPF_PROGRAMS_KERNEL_ADDRESSES_H
#define EBPF_PROGRAMS_KERNEL_ADDRESSES_H

#include <stddef.h>
#include <stdint.h>

/* The addresses of names[0..n) in the kallsyms text at path (/proc/kallsyms) into out. 0, or
 * -1 with err naming the symbol that is not there, or saying that kallsyms shows no
 * addresses to this process (not root: kptr_restrict). */
int kernel_addresses_find(const char *path, const char *const *names, int n, uint64_t *out, char *err, size_t errlen);

#endif
