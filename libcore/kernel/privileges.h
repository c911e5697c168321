/* Can this process load and attach BPF tracing programs? */
#ifndef EBPF_CORE_PRIVILEGES_H
#define EBPF_CORE_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>

/* True with CAP_SYS_ADMIN, or with both CAP_BPF and CAP_PERFMON (kernels >= 5.8). */
bool privileges_sufficient(void);
/* An error naming what is missing and how to grant it. */
void privileges_explain(char *err, size_t errlen);

#endif
