/* Histogram slot layout shared by every BPF program and by user space.
 *
 * Bucket semantics (ceil-log2, upper bound inclusive):
 *   slot 0 holds v <= 1
 *   slot i (1 <= i < HIST_SLOTS-1) holds 2^(i-1) < v <= 2^i
 *   slot HIST_SLOTS-1 holds every v > 2^(HIST_SLOTS-3), it has no upper bound
 * So a bucket's upper bound is a power of two and inclusive, which is how collectd's
 * `Bucket lower upper` ((lower, upper]) and Prometheus' `le` read a bucket: a threshold
 * set at a power of two is exact. BCC's floor-log2 slots are off by one against that
 * (ebpf_exporter issue #488).
 *
 * With nanoseconds, slot 39 starts at 2^38 ns (about 275 s). Values are u64 and
 * cumulative: the kernel side only ever adds; user space takes interval deltas.
 *
 * This header is plain C with fixed-width types only, so that the BPF programs and the
 * unit tests run the very same slot function.
 */
#ifndef EBPF_HIST_SLOT_H
#define EBPF_HIST_SLOT_H

#define HIST_SLOTS 40

static inline __attribute__((always_inline)) unsigned int hist_slot(unsigned long long v)
{
	unsigned int slot = 0;

	if (v <= 1)
		return 0;
	v -= 1; /* ceil(log2(v)) == floor(log2(v - 1)) + 1 for v >= 2 */
	/* Binary search on the bit position keeps the BPF instruction count small and loop free. */
	if (v >> 32) { v >>= 32; slot += 32; }
	if (v >> 16) { v >>= 16; slot += 16; }
	if (v >> 8)  { v >>= 8;  slot += 8; }
	if (v >> 4)  { v >>= 4;  slot += 4; }
	if (v >> 2)  { v >>= 2;  slot += 2; }
	if (v >> 1)  { slot += 1; }
	slot += 1;
	return slot < HIST_SLOTS - 1 ? slot : HIST_SLOTS - 1;
}

#endif
