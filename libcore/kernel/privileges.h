/* Can this process load and attach BPF tracing programs? */
#ifndef EBPF_CORE_PRIVILEGES_H
#define EBPF_CORE_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>

/* True with CAP_SYS_ADMIN, or with both CAP_BPF and CAP_PERFMON (kernels >= 5.8). */
bool privileges_sufficient(void);
/* An error naming what is missing and how to grant it. */
void privileges_explain(char *err, size_t errlen);
/* Clears the ambient and inheritable capability sets of every thread of the process, keeping
 * the permitted and effective ones (what the process itself uses): a program it executes
 * (collectd's exec plugin) then starts with no capability, whatever the non-root setup
 * granted collectd. Capabilities are per thread, and collectd's threads (write threads,
 * other plugins' threads) exist already: each is made to clear its own by a signal. Returns
 * the number of threads that could not be reached (0 when all were cleared). */
int privileges_clear_inheritable(void);

#endif
