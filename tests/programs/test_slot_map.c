/* slot_map: every slot convention's exact bounds (README "Slot conventions"), the engine slot
 * each foreign slot lands in, and Multiplier's unit and factor. */
#include "bpf/include/hist_slot.h"
#include "libcore/programs/slot_map.h"
#include "tests/support/testing.h"

static struct program_view view(enum slot_convention c, double multiplier)
{
	struct program_view v = { .kind = VIEW_KIND_HISTOGRAM, .buckets = c, .multiplier = multiplier };

	return v;
}

static void check_range(const struct slot_map *m, uint64_t k, double lo, double hi)
{
	double l, h;

	slot_map_range(m, k, &l, &h);
	if (l != lo || h != hi)
		fprintf(stderr, "  %s slot %llu: [%g, %g], expected [%g, %g]\n", slot_convention_name(m->v->buckets),
			(unsigned long long)k, l, h, lo, hi);
	CHECK(l == lo && h == hi);
}

/* The engine slot of slot k holds value `value` (in engine units). */
static void check_lands(const struct slot_map *m, uint64_t k, unsigned long long value)
{
	unsigned int got = slot_map_slot(m, k), want = hist_slot_p(value, m->precision);

	if (got != want)
		fprintf(stderr, "  %s slot %llu: engine slot %u, expected %u (of %llu)\n",
			slot_convention_name(m->v->buckets), (unsigned long long)k, got, want, value);
	CHECK_EQ_U64(got, want);
}

static void test_powers_of_two(void)
{
	struct program_view v;
	struct slot_map m;

	v = view(SLOTS_EXP2, 1);
	slot_map_init(&m, &v, 5);
	CHECK_EQ_U64(m.precision, 0);
	check_range(&m, 0, 0, 1);
	check_range(&m, 3, 5, 8);      /* up to 2^3 */
	for (unsigned int k = 0; k < 30; k++)
		CHECK_EQ_U64(slot_map_slot(&m, k), k); /* (2^(k-1), 2^k]: the engine's own at precision 0 */

	v = view(SLOTS_EXP2ZERO, 1);
	slot_map_init(&m, &v, 5);
	check_range(&m, 0, 0, 0);
	check_range(&m, 1, 1, 1);
	check_range(&m, 4, 5, 8);      /* up to 2^(4-1) */
	CHECK_EQ_U64(slot_map_slot(&m, 0), 0);
	CHECK_EQ_U64(slot_map_slot(&m, 4), 3);

	v = view(SLOTS_LOG2, 1);
	slot_map_init(&m, &v, 5);
	check_range(&m, 0, 0, 1);      /* [1, 2) and 0 */
	check_range(&m, 4, 16, 31);    /* [2^4, 2^5) */
	CHECK_EQ_U64(slot_map_slot(&m, 0), 0);
	CHECK_EQ_U64(slot_map_slot(&m, 4), 5); /* (16, 32]: one unit off at each edge */

	v = view(SLOTS_BCC_LOG2, 1);
	slot_map_init(&m, &v, 5);
	check_range(&m, 0, 0, 0);
	check_range(&m, 1, 1, 1);      /* [2^0, 2^1) */
	check_range(&m, 5, 16, 31);
	CHECK_EQ_U64(slot_map_slot(&m, 5), 5);
}

static void test_linear(void)
{
	struct program_view v = view(SLOTS_LINEAR, 1);
	struct slot_map m;

	v.linear_min = 100;
	v.linear_width = 10;
	v.linear_count = 20;
	slot_map_init(&m, &v, 5);
	CHECK_EQ_U64(m.precision, HIST_PRECISION_MAX);
	check_range(&m, 0, 90, 99);    /* below MIN */
	check_range(&m, 1, 100, 109);  /* [100, 110) */
	check_range(&m, 20, 290, 299); /* [290, 300) */
	check_range(&m, 21, 300, 309); /* 300 and above */
	check_range(&m, 40, 300, 309); /* a map with more slots: the same overflow */
	check_lands(&m, 1, 105);       /* the middle, 104.5 rounded */
	check_lands(&m, 20, 295);
	/* Every linear slot keeps an engine slot of its own, in order (no two merge). */
	for (uint64_t k = 1; k <= 21; k++)
		CHECK(slot_map_slot(&m, k) > slot_map_slot(&m, k - 1));
}

static void test_fixed(void)
{
	struct program_view v = view(SLOTS_FIXED, 1);
	struct slot_map m;

	v.fixed_bounds[0] = 100;
	v.fixed_bounds[1] = 1000;
	v.fixed_bounds[2] = 5000;
	v.nfixed_bounds = 3;
	slot_map_init(&m, &v, 5);
	check_range(&m, 0, 0, 100);
	check_range(&m, 1, 101, 1000);
	check_range(&m, 2, 1001, 5000);
	check_range(&m, 3, 5001, 9000); /* above the last: a last width beyond it */
	check_lands(&m, 1, 551);        /* 550.5 */
	/* Layout "key", ebpf_exporter's fixed buckets: the key is the bound. */
	v.layout = HIST_LAYOUT_KEY;
	check_range(&m, 1000, 101, 1000);
	check_range(&m, 100, 0, 100);
	check_range(&m, 700, 101, 1000); /* not a bound: the first bound above it */
	check_range(&m, 6000, 5001, 9000);
}

static void test_multiplier(void)
{
	struct program_view v = view(SLOTS_NATIVE, 1e-9);
	struct slot_map m;

	slot_map_init(&m, &v, 4);
	CHECK(m.unit == HIST_UNIT_NANOSECONDS && m.factor == 1 && m.identity && m.precision == 4);
	CHECK_EQ_U64(slot_map_slot(&m, 77), 77);
	CHECK_EQ_U64(slot_map_sum(&m, 12345), 12345);

	v = view(SLOTS_NATIVE, 1);
	slot_map_init(&m, &v, 5);
	CHECK(m.unit == HIST_UNIT_BYTES && m.identity);

	/* Microseconds to seconds: kept as nanoseconds, 1000 a microsecond. */
	v = view(SLOTS_NATIVE, 1e-6);
	slot_map_init(&m, &v, 5);
	CHECK(m.unit == HIST_UNIT_NANOSECONDS && !m.identity);
	CHECK_NEAR(m.factor, 1000, 1e-9);
	CHECK_EQ_U64(slot_map_sum(&m, 250), 250000);
	/* Native slot of exactly 250 us (slot holds 250 alone at precision 5? no: (248, 256]) */
	check_lands(&m, hist_slot_p(250, 5), 252000);

	/* KiB to bytes: units, 1024 each. */
	v = view(SLOTS_LINEAR, 1024);
	v.linear_min = 0;
	v.linear_width = 4;
	v.linear_count = 8;
	slot_map_init(&m, &v, 5);
	CHECK(m.unit == HIST_UNIT_BYTES);
	check_lands(&m, 2, 5632);       /* [4, 8) KiB: 5.5 KiB */
	CHECK_EQ_U64(slot_map_sum(&m, 3), 3072);
}

int main(void)
{
	test_powers_of_two();
	test_linear();
	test_fixed();
	test_multiplier();
	return testing_done();
}
