/* Map layout of the `signals` module, shared by signals.bpf.c and libcore/modules/signals.c.
 * Fixed-width types only; cumulative u64 counts the kernel only adds to. */
#ifndef EBPF_SIGNALS_H
#define EBPF_SIGNALS_H

#include <linux/types.h>

/* Rows of map `delivered` (per-CPU array of u64): row n counts signal number n as the
 * kernel numbers it (1..64, _NSIG; 32 and up are real-time signals). Row 0 stays 0. */
#define SIGNALS_ROWS 65

/* The module's one probe point: its row in map `witness` (include/witness.bpf.h). */
enum signals_point {
	SIGNALS_POINT_DELIVER,
	SIGNALS_POINTS,
};

#endif
