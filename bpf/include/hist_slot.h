/* Histogram slot layout shared by every BPF program and by user space.
 *
 * Log-linear slots, upper bound inclusive. The precision p (0 .. HIST_PRECISION_MAX, a
 * module's `Precision` option) splits every power of two into 2^p sub-buckets. With
 * x = v - 1 for v >= 1:
 *   - x < 2^p: slot x holds exactly the value x + 1; slot 0 also holds 0, so it is [0, 1];
 *   - else, with e = floor(log2 x) and s the p bits of x below its top bit,
 *     slot (e - p + 1) * 2^p + s holds (2^e + s * 2^(e-p), 2^e + (s + 1) * 2^(e-p)];
 *   - every v above 2^HIST_TOP_EXP lands in the last slot, HIST_NSLOTS(p) - 1, which has no
 *     upper bound.
 * So every slot is (lower, upper] with integer bounds, as collectd's `Bucket lower upper`
 * and Prometheus' `le` read a bucket: a threshold set at a slot edge (every power of two,
 * and every multiple of 2^(e-p) inside [2^e, 2^(e+1)]) is exact. BCC's floor-log2 slots
 * are off by one against that (ebpf_exporter issue #488).
 *
 * A slot's width is at most 2^-p of its lower bound, so any estimate kept inside the true
 * value's slot is within 2^-p of it (3.1% at the default p = 5). p = 0 is the ceil-log2
 * layout of the article and of bcc (slot i holds (2^(i-1), 2^i]), within a factor of 2.
 *
 * With nanoseconds, 2^38 is about 275 s; with bytes, 256 GiB. Values are u64 and
 * cumulative: the kernel side only ever adds; user space takes interval deltas.
 *
 * This header is plain C with no types beyond unsigned long long, so that the BPF programs
 * and the unit tests run the very same slot function.
 */
#ifndef EBPF_HIST_SLOT_H
#define EBPF_HIST_SLOT_H

#define HIST_PRECISION_MAX 5
/* Meets the 5% accuracy goal with margin (bound 2^-5 = 3.1%). */
#define HIST_PRECISION_DEFAULT 5
/* Values up to 2^HIST_TOP_EXP get bounded slots. */
#define HIST_TOP_EXP 38

/* Slots of a row at precision p: 2^p per power of two from 2^p to 2^HIST_TOP_EXP, the 2^p
 * exact values below, and the open last slot. 40 at p = 0, 1089 at p = 5. */
#define HIST_NSLOTS(p) ((HIST_TOP_EXP + 1 - (p)) * (1u << (p)) + 1)
#define HIST_LAST_SLOT(p) ((HIST_TOP_EXP + 1 - (p)) * (1u << (p)))
/* The slot array of a row holds the largest layout; a row of a map sized for a lower
 * precision ends after HIST_NSLOTS(p) slots (hist_row.h). */
#define HIST_SLOTS HIST_NSLOTS(HIST_PRECISION_MAX)

/* floor(log2 x) for x >= 1: a binary search on the bit position keeps the BPF instruction
 * count small and loop free (5.10's verifier). */
static inline __attribute__((always_inline)) unsigned int hist_floor_log2(unsigned long long x)
{
	unsigned int e = 0;

	if (x >> 32) { x >>= 32; e += 32; }
	if (x >> 16) { x >>= 16; e += 16; }
	if (x >> 8)  { x >>= 8;  e += 8; }
	if (x >> 4)  { x >>= 4;  e += 4; }
	if (x >> 2)  { x >>= 2;  e += 2; }
	if (x >> 1)  { e += 1; }
	return e;
}

/* The slot of v at precision p (p <= HIST_PRECISION_MAX). */
static inline __attribute__((always_inline)) unsigned int hist_slot_p(unsigned long long v, unsigned int p)
{
	/* 64-bit throughout: a clamp done on a 32-bit copy leaves the verifier without a bound
	 * on the register that indexes the map value. */
	unsigned long long x, e, slot, last;

	/* p is read-only data, a known constant to the verifier: this branch is decided at
	 * load, and every slot below is at most HIST_LAST_SLOT(HIST_PRECISION_MAX). */
	if (p > HIST_PRECISION_MAX)
		p = HIST_PRECISION_MAX;
	last = HIST_LAST_SLOT(p);
	if (v <= 1)
		return 0;
	x = v - 1; /* ceil semantics: (lower, upper] */
	if (x < (1ULL << p))
		return (unsigned int)x;
	e = hist_floor_log2(x);
	slot = ((e - p + 1) << p) + ((x >> (e - p)) & ((1ULL << p) - 1));
	/* The bound the verifier checks a map sized for p against. One clamp only: a second,
	 * looser one left 5.10's and 6.1's verifiers a path they could not see was dead, with
	 * the looser bound, out of a map sized for p. */
	if (slot > last)
		slot = last;
	return (unsigned int)slot;
}

/* At the default precision: what a module records when nobody sets `Precision`. */
static inline __attribute__((always_inline)) unsigned int hist_slot(unsigned long long v)
{
	return hist_slot_p(v, HIST_PRECISION_DEFAULT);
}

/* Exact bounds of slot `slot` at precision p: values in (lower, upper]; slot 0 is [0, 1].
 * The last slot's upper bound is ~0ULL (none). */
static inline unsigned long long hist_slot_lower_bound(unsigned int p, unsigned int slot)
{
	unsigned int g, e;

	if (slot < (1u << p))
		return slot;
	if (slot >= HIST_LAST_SLOT(p))
		return 1ULL << HIST_TOP_EXP;
	g = slot >> p;     /* >= 1 */
	e = g + p - 1;     /* the power of two the slot sits above */
	return (1ULL << e) + (unsigned long long)(slot & ((1u << p) - 1)) * (1ULL << (e - p));
}

static inline unsigned long long hist_slot_upper_bound(unsigned int p, unsigned int slot)
{
	if (slot >= HIST_LAST_SLOT(p))
		return ~0ULL;
	if (slot < (1u << p))
		return slot + 1ULL;
	return hist_slot_lower_bound(p, slot) + (1ULL << ((slot >> p) - 1)); /* width 2^(e-p) */
}

#endif
