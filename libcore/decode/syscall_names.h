/* Syscall numbers <-> names for the architecture this was built for. The table is
 * generated at build time from the kernel's uapi headers (bpf/gen-syscall-table.sh). */
#ifndef EBPF_CORE_SYSCALL_NAMES_H
#define EBPF_CORE_SYSCALL_NAMES_H

#define SYSCALL_TABLE_SIZE 512 /* == MAX_SYSCALLS in bpf/syscalls.h */

extern const char *const syscall_table[SYSCALL_TABLE_SIZE];

/* The name of syscall nr, or "sys_<nr>" (written to buf) for numbers without one. */
const char *syscall_name(unsigned int nr, char *buf, unsigned long len);
/* The number of a syscall name ("fsync", also "sys_74"), or -1. */
int syscall_number(const char *name);

#endif
