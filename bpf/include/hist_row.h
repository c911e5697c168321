/* The one histogram row of every module: the exact sum of the recorded values (for the
 * mean and for percentile bounds in user space), then the log-linear slots of hist_slot.h.
 *
 * Shared with user space, which reads rows straight out of the maps: fixed-width types
 * only. The sum comes first so that a row recorded at precision p is a prefix of this
 * struct: a map whose value is one bare row is created with value size HIST_ROW_SIZE(p)
 * (bpf_map__set_value_size before load), so its kernel memory follows the precision, and
 * user space reads it into a full struct hist_row (map_read.h, the view reader's prefix reads). Rows
 * inside a bigger value (block, vfs) keep the full size and use the first HIST_NSLOTS(p)
 * slots. */
#ifndef EBPF_HIST_ROW_H
#define EBPF_HIST_ROW_H

/* A program built on vmlinux.h (users' programs, through collectd-ebpf-cc) has the __u64
 * types already, and <linux/types.h> would define some of them a second time. */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "hist_slot.h"

struct hist_row {
	__u64 sum;               /* exact sum of the values, in the row's unit */
	__u64 slots[HIST_SLOTS]; /* events per slot, see hist_slot.h; HIST_NSLOTS(p) used */
};

/* Bytes of a row at precision p, per CPU for per-CPU maps: 328 at p = 0, 8720 at p = 5. */
#define HIST_ROW_SIZE(p) (8u * (1u + HIST_NSLOTS(p)))

/* Byte offset of hist row k in a map value whose rows start at byte `head` and are packed
 * for precision p: such a value (block's latency, size and queue rows after two counters)
 * is created with value size HIST_PACKED_ROW_OFFSET(head, nrows, p), and user space
 * unpacks it into its full-size struct with hist_rows_unpack() (libcore/hist/hist.h). */
#define HIST_PACKED_ROW_OFFSET(head, k, p) ((head) + (k) * HIST_ROW_SIZE(p))

#endif
