/* The sampling knob of a module whose expensive part the cost governor samples
 * (libcore/engine/cost_governor.h), shared by the BPF side (sampling.bpf.h) and user space.
 * Fixed-width types only. */
#ifndef EBPF_SAMPLING_H
#define EBPF_SAMPLING_H

#include <linux/types.h>

/* N = 2^shift: 1 in 1 up to 1 in 64. */
#define SAMPLE_SHIFT_MAX 6

/* Value of map `sampling` (a per-CPU array of one element): each CPU's copy holds the same
 * shift, which user space writes to all of them at once, and that CPU's own tick. */
struct sample_state {
	__u32 shift; /* 0: every event */
	__u32 tick;  /* events this CPU has seen at the sampling point, modulo 2^32 */
};

#endif
