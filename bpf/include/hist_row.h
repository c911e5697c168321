/* The one histogram row of every module: ceil-log2 slots (see hist_slot.h) and the exact
 * sum of the recorded values, for the mean and for percentile bounds in user space.
 *
 * Shared with user space, which reads rows straight out of the maps: fixed-width types
 * only, and the layout (HIST_SLOTS u64 slots, then the sum) must not change. */
#ifndef EBPF_HIST_ROW_H
#define EBPF_HIST_ROW_H

/* A program built on vmlinux.h (users' programs, through collectd-ebpf-cc) has the __u64
 * types already, and <linux/types.h> would define some of them a second time. */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "hist_slot.h"

struct hist_row {
	__u64 slots[HIST_SLOTS]; /* events per slot, see hist_slot.h */
	__u64 sum;               /* exact sum of the values, in the row's unit */
};

#endif
