/* The cost governor's rule (libcore/engine/cost_governor.h) and CpuBudget's values
 * (cpu_budget.h), without BPF: costs fed read by read, the steps checked.
 *  - a cost over the budget for one read does nothing; two in a row step down (N = 2); each
 *    fresh read still over steps again (N = 4, ...); reads not fresh (the window has not
 *    measured the new level yet) neither step nor count;
 *  - at the last sampling level still over: the next step sheds; at the shed level still
 *    over: said once (GOVERNOR_OVER), not again;
 *  - under the budget but above half of it: holds (no step back);
 *  - under half the budget for GOVERNOR_HOLD_READS fresh reads: one step back; a read above
 *    half restarts the count;
 *  - a workload at the edge (over at level L - 1, well under at level L): the step backs come
 *    ever more slowly (the hold doubles), so in 400 reads it steps at most a handful of times,
 *    where a rule without hysteresis would step at every read;
 *  - a module with nothing to sample or shed: GOVERNOR_OVER once, GOVERNOR_UNDER once;
 *  - CpuBudget "0.5%", "5ms", "off" and bad values with a message naming option and value. */
#include "libcore/engine/cost_governor.h"
#include "libcore/engine/cpu_budget.h"
#include "base/options.h"

#include "tests/support/testing.h"

#define BUDGET 1e7 /* 1% of one CPU */

static enum governor_action feed(struct governor *g, const struct governor_rule *r, double cost)
{
	return governor_read(g, r, cost, true);
}

static void steps_down_and_back(void)
{
	struct governor_rule r = { .budget = BUDGET, .max_shift = 6, .can_shed = true };
	struct governor g;

	governor_init(&g);
	CHECK(governor_max_level(&r) == 7);
	CHECK(feed(&g, &r, 2 * BUDGET) == GOVERNOR_HOLD); /* one read over: not yet */
	CHECK(feed(&g, &r, 0.9 * BUDGET) == GOVERNOR_HOLD);
	CHECK(feed(&g, &r, 2 * BUDGET) == GOVERNOR_HOLD); /* the count started again */
	CHECK(feed(&g, &r, 2 * BUDGET) == GOVERNOR_DOWN);
	CHECK(g.level == 1);
	CHECK(governor_read(&g, &r, 2 * BUDGET, false) == GOVERNOR_HOLD); /* not measured yet */
	CHECK(g.level == 1);
	for (int level = 2; level <= 7; level++) {
		CHECK(feed(&g, &r, 2 * BUDGET) == GOVERNOR_DOWN); /* still over: at once */
		CHECK(g.level == level);
	}
	CHECK(feed(&g, &r, 2 * BUDGET) == GOVERNOR_HOLD);
	CHECK(feed(&g, &r, 2 * BUDGET) == GOVERNOR_OVER);
	for (int i = 0; i < 10; i++)
		CHECK(feed(&g, &r, 2 * BUDGET) == GOVERNOR_HOLD); /* said once */
	CHECK(g.level == 7);

	/* under, not by half: stays */
	for (int i = 0; i < 20; i++)
		CHECK(feed(&g, &r, 0.8 * BUDGET) == GOVERNOR_HOLD);
	CHECK(g.level == 7);
	/* under half: a step back after GOVERNOR_HOLD_READS reads; one read above half restarts */
	for (int i = 0; i < GOVERNOR_HOLD_READS - 1; i++)
		CHECK(feed(&g, &r, 0.4 * BUDGET) == GOVERNOR_HOLD);
	CHECK(feed(&g, &r, 0.6 * BUDGET) == GOVERNOR_HOLD);
	for (int i = 0; i < GOVERNOR_HOLD_READS - 1; i++)
		CHECK(feed(&g, &r, 0.4 * BUDGET) == GOVERNOR_HOLD);
	CHECK(feed(&g, &r, 0.4 * BUDGET) == GOVERNOR_UP);
	CHECK(g.level == 6);
	/* all the way back to 1 in 1, one step per GOVERNOR_HOLD_READS quiet reads */
	int ups = 1, reads = 0;

	while (g.level > 0 && reads < 1000) {
		reads++;
		if (feed(&g, &r, 0.01 * BUDGET) == GOVERNOR_UP)
			ups++;
	}
	CHECK(g.level == 0);
	CHECK(ups == 7);
	CHECK(reads == 6 * GOVERNOR_HOLD_READS);
	for (int i = 0; i < 50; i++)
		CHECK(feed(&g, &r, 0.01 * BUDGET) == GOVERNOR_HOLD); /* the UP said it: no UNDER */
	printf("  down 1 level per fresh read over, OVER once at level 7, back to 1 in 1 in %d reads\n", reads);
}

/* The cost at each level of a workload whose sampled part halves with each doubling of N:
 * at level 1 it is just over the budget, at level 2 well under (under half). */
static double edge_cost(int level)
{
	return level <= 1 ? 1.1 * BUDGET : 0.45 * BUDGET;
}

static void never_flaps(void)
{
	struct governor_rule r = { .budget = BUDGET, .max_shift = 6, .can_shed = true };
	struct governor g;
	int steps = 0, downs = 0, last_up_gap = 0, prev_up = -1;

	governor_init(&g);
	for (int i = 0; i < 400; i++) {
		enum governor_action a = feed(&g, &r, edge_cost(g.level));

		if (a == GOVERNOR_DOWN || a == GOVERNOR_UP)
			steps++;
		if (a == GOVERNOR_DOWN)
			downs++;
		if (a == GOVERNOR_UP) {
			if (prev_up >= 0)
				last_up_gap = i - prev_up;
			prev_up = i;
		}
	}
	printf("  at the edge: %d steps in 400 reads, the last two steps back %d reads apart, hold %d\n", steps,
	       last_up_gap, g.hold);
	CHECK(g.level >= 1 && g.level <= 2);
	CHECK(steps <= 14); /* 2 + 2 per doubling of the hold: 5 .. 320 */
	CHECK(g.hold == GOVERNOR_HOLD_MAX);
	CHECK(last_up_gap > 4 * GOVERNOR_HOLD_READS);
	CHECK(downs >= 2);
}

static void report_only(void)
{
	struct governor_rule r = { .budget = BUDGET };
	struct governor g;
	int over = 0, under = 0;

	governor_init(&g);
	for (int i = 0; i < 10; i++)
		over += feed(&g, &r, 3 * BUDGET) == GOVERNOR_OVER;
	for (int i = 0; i < 10; i++)
		under += feed(&g, &r, 0.1 * BUDGET) == GOVERNOR_UNDER;
	CHECK(over == 1);
	CHECK(under == 1);
	CHECK(g.level == 0);
}

static int parse(const char *text, double *ns, char *err, size_t errlen)
{
	struct opt_value v = { .type = OPT_STRING, .string = text };
	struct option o = { .key = "CpuBudget", .values = &v, .nvalues = 1 };

	return cpu_budget_parse(&o, ns, err, errlen);
}

static void budget_values(void)
{
	static const char *const bad[] = { "5", "5 s", "abc", "0%", "-1%", "200000ms", "nan%", "" };
	char err[512], text[64];
	double ns = 0;

	CHECK(parse("0.5%", &ns, err, sizeof(err)) == 0 && ns == 5e6);
	CHECK(parse("5ms", &ns, err, sizeof(err)) == 0 && ns == 5e6);
	CHECK(parse("10 %", &ns, err, sizeof(err)) == 0 && ns == 1e8);
	CHECK(parse("OFF", &ns, err, sizeof(err)) == 0 && ns == CPU_BUDGET_OFF);
	CHECK_STR(cpu_budget_text(CPU_BUDGET_DEFAULT_NS, text, sizeof(text)), "10% of one CPU (100 ms/s)");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[64];

		err[0] = '\0';
		CHECK(parse(bad[i], &ns, err, sizeof(err)) == -1);
		snprintf(want, sizeof(want), "CpuBudget \"%s\": ", bad[i]);
		CHECK(strncmp(err, want, strlen(want)) == 0);
		CHECK(strstr(err, "\"0.5%\"") && strstr(err, "\"5ms\"") && strstr(err, "\"off\""));
	}
	printf("  e.g. %s\n", err);
}

int main(void)
{
	steps_down_and_back();
	never_flaps();
	report_only();
	budget_values();
	return testing_done();
}
