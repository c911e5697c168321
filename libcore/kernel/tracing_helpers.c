#include "libcore/kernel/tracing_helpers.h"

#include <bpf/libbpf.h>

bool tracing_helper_available(int id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, (enum bpf_func_id)id, NULL) == 1;
}
