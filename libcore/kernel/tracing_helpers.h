/* Which BPF helpers this kernel lets tracing programs call: the same program text must load
 * on kernels that added a helper to tracing programs later than others (5.10 has no
 * bpf_get_current_ancestor_cgroup_id for them), so a module asks before load and sets a
 * rodata flag that chooses the other path. */
#ifndef EBPF_CORE_TRACING_HELPERS_H
#define EBPF_CORE_TRACING_HELPERS_H

#include <stdbool.h>

/* True if a raw tracepoint program may call helper id (enum bpf_func_id); tracepoint and
 * tp_btf programs get the same set of tracing helpers. Loads a two-instruction program. */
bool tracing_helper_available(int id);

#endif
