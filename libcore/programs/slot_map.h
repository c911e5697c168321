/* Where a user's histogram slot goes among the engine's slots (bpf/include/hist_slot.h), and
 * in which unit: every slot convention of `Buckets` as data, with its exact bounds.
 *
 * A slot of the program's convention stands for a range of values in the program's unit;
 * the engine keeps each histogram in nanoseconds of the collectd unit when Multiplier is below
 * 1 (1e-9: nanoseconds to seconds; 1e-6: microseconds, kept as 1000 ns each), else in the
 * collectd unit itself (1: bytes, counts; 1024: KiB kept as bytes). A foreign slot's count goes
 * whole into the engine slot that holds its range's middle, times the factor f from the
 * program's unit to the engine's. A percentile is then off by at most half the foreign slot's
 * width plus one engine slot's (2^-p of the value); a `Bucket` bound on a foreign slot's edge
 * is exact where the engine slot holding that slot's middle does not reach across the edge
 * (foreign slots wider than two engine slots: above 3% of the value at precision 5).
 *
 * The conventions, slot k, in the program's unit (values are whole numbers):
 *   native    the engine's own log-linear slots at the program's precision, taken as they are
 *             when f is 1
 *   exp2      (2^(k-1), 2^k]: up to 2^k, slot 0 up to 1 (ebpf_exporter exp2)
 *   exp2zero  slot 0 holds 0, slot k (2^(k-2), 2^(k-1)] (ebpf_exporter exp2zero)
 *   log2      [2^k, 2^(k+1)), slot 0 also 0 (libbpf-tools' log2l)
 *   bcc_log2  slot 0 holds 0, slot k [2^(k-1), 2^k) (BCC's bpf_log2l)
 *   linear    MIN WIDTH COUNT as bpftrace's lhist: slot 0 below MIN, slot k (1 .. COUNT)
 *             [MIN + (k-1) WIDTH, MIN + k WIDTH), slot COUNT + 1 from MIN + COUNT WIDTH on
 *   fixed     B0 .. Bn-1 increasing: slot 0 up to B0, slot k (B(k-1), Bk], slot n above B(n-1);
 *             with Layout "key" the key's bucket part is the bound itself (ebpf_exporter's
 *             fixed buckets): a value x counts in the first bound at or above x
 * The foreign conventions of powers of two are kept at precision 0 (their own resolution),
 * linear and fixed at the highest precision. */
#ifndef EBPF_PROGRAMS_SLOT_MAP_H
#define EBPF_PROGRAMS_SLOT_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/hist/hist.h"
#include "libcore/programs/program_model.h"

struct slot_map {
	const struct program_view *v;
	enum hist_unit unit;     /* what the engine's values are: ns (of the collectd unit) or units */
	double factor;           /* program unit -> engine unit */
	bool identity;           /* native slots taken as they are */
	unsigned int precision;  /* of the engine slots the series are kept in */
	unsigned int program_precision; /* native: the program's hist_precision */
};

/* For view v of a program recording native rows at `program_precision`. */
void slot_map_init(struct slot_map *m, const struct program_view *v, unsigned int program_precision);
/* The range of slot (or, fixed with Layout "key", bucket value) k in the program's unit:
 * lower and upper bound, both inclusive for whole numbers; an open end is reported as a
 * finite bound half a slot beyond the last edge. */
void slot_map_range(const struct slot_map *m, uint64_t k, double *lo, double *hi);
/* The engine slot of slot k. */
unsigned int slot_map_slot(const struct slot_map *m, uint64_t k);
/* An exact sum in the program's unit, in the engine's. */
uint64_t slot_map_sum(const struct slot_map *m, uint64_t sum);

#endif
