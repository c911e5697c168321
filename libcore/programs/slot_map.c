#include "libcore/programs/slot_map.h"

#include "bpf/include/hist_slot.h"

#include <math.h>

void slot_map_init(struct slot_map *m, const struct program_view *v, unsigned int program_precision)
{
	m->v = v;
	m->program_precision = program_precision;
	if (v->multiplier < 1) {
		m->unit = HIST_UNIT_NANOSECONDS;
		m->factor = v->multiplier / 1e-9;
	} else {
		m->unit = HIST_UNIT_BYTES;
		m->factor = v->multiplier;
	}
	if (fabs(m->factor - 1) < 1e-12)
		m->factor = 1;
	m->identity = v->buckets == SLOTS_NATIVE && m->factor == 1;
	switch (v->buckets) {
	case SLOTS_NATIVE: m->precision = program_precision; break;
	case SLOTS_LINEAR:
	case SLOTS_FIXED: m->precision = HIST_PRECISION_MAX; break;
	default: m->precision = 0; break;
	}
}

/* Slot k of fixed bounds B0 .. Bn-1 (a slot index), or with Layout "key" the slot of the
 * first bound at or above the key's bucket value. */
static uint64_t fixed_index(const struct program_view *v, uint64_t k)
{
	if (v->layout != HIST_LAYOUT_KEY)
		return k;
	for (int i = 0; i < v->nfixed_bounds; i++)
		if ((double)k <= v->fixed_bounds[i])
			return (uint64_t)i;
	return (uint64_t)v->nfixed_bounds;
}

static void fixed_range(const struct program_view *v, uint64_t k, double *lo, double *hi)
{
	const double *b = v->fixed_bounds;
	int n = v->nfixed_bounds;

	k = fixed_index(v, k);
	if (k == 0) {
		*lo = b[0] > 0 ? 0 : b[0];
		*hi = b[0];
	} else if (k < (uint64_t)n) {
		*lo = b[k - 1] + 1;
		*hi = b[k];
	} else { /* above the last bound: half a last width beyond it */
		double width = n > 1 ? b[n - 1] - b[n - 2] : (b[0] > 0 ? b[0] : 1);

		*lo = b[n - 1] + 1;
		*hi = b[n - 1] + width;
	}
}

static void linear_range(const struct program_view *v, uint64_t k, double *lo, double *hi)
{
	double min = v->linear_min, w = v->linear_width;
	uint64_t count = v->linear_count;

	if (k == 0) { /* below MIN */
		*lo = min - w;
		*hi = min - 1;
	} else {
		if (k > count + 1)
			k = count + 1; /* from MIN + COUNT WIDTH on */
		*lo = min + (double)(k - 1) * w;
		*hi = min + (double)k * w - 1;
	}
	if (*lo < 0)
		*lo = 0;
	if (*hi < *lo)
		*hi = *lo;
}

void slot_map_range(const struct slot_map *m, uint64_t k, double *lo, double *hi)
{
	unsigned int p = m->program_precision;

	switch (m->v->buckets) {
	case SLOTS_NATIVE:
		if (k > HIST_LAST_SLOT(p))
			k = HIST_LAST_SLOT(p);
		*lo = k ? (double)hist_slot_lower_bound(p, (unsigned int)k) + 1 : 0;
		*hi = k == HIST_LAST_SLOT(p) ? 2 * *lo : (double)hist_slot_upper_bound(p, (unsigned int)k);
		return;
	case SLOTS_EXP2: /* up to 2^k */
		*lo = k ? ldexp(1, (int)k - 1) + 1 : 0;
		*hi = ldexp(1, (int)(k < 64 ? k : 64));
		break;
	case SLOTS_EXP2ZERO: /* 0, then up to 2^(k-1) */
		*lo = k > 1 ? ldexp(1, (int)k - 2) + 1 : k;
		*hi = k ? ldexp(1, (int)(k - 1 < 64 ? k - 1 : 64)) : 0;
		break;
	case SLOTS_LOG2: /* [2^k, 2^(k+1)), 0 in slot 0 too */
		*lo = k ? ldexp(1, (int)(k < 64 ? k : 64)) : 0;
		*hi = ldexp(1, (int)(k + 1 < 64 ? k + 1 : 64)) - 1;
		break;
	case SLOTS_BCC_LOG2: /* 0, then [2^(k-1), 2^k) */
		*lo = k ? ldexp(1, (int)(k - 1 < 64 ? k - 1 : 64)) : 0;
		*hi = k ? ldexp(1, (int)(k < 64 ? k : 64)) - 1 : 0;
		break;
	case SLOTS_LINEAR:
		linear_range(m->v, k, lo, hi);
		break;
	case SLOTS_FIXED:
		fixed_range(m->v, k, lo, hi);
		break;
	}
	if (*hi < *lo)
		*hi = *lo;
}

static unsigned long long engine_value(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 1.8e19)
		return ~0ULL;
	return (unsigned long long)llround(v);
}

unsigned int slot_map_slot(const struct slot_map *m, uint64_t k)
{
	double lo, hi;

	if (m->identity)
		return k < HIST_NSLOTS(m->precision) ? (unsigned int)k : HIST_LAST_SLOT(m->precision);
	slot_map_range(m, k, &lo, &hi);
	return hist_slot_p(engine_value((lo + hi) / 2 * m->factor), m->precision);
}

uint64_t slot_map_sum(const struct slot_map *m, uint64_t sum)
{
	return m->factor == 1 ? sum : engine_value((double)sum * m->factor);
}
