/* The cost governor's rule: when a module's measured CPU cost (cost_window.h) stays over its
 * CpuBudget, degrade it one step at a time, and step back when the cost stays well under.
 * Pure: costs in, steps out; applying a step is cost_control.c's job (doc/modules.md, Cost).
 *
 * Levels: 0 is the module as configured; 1 to max_shift sample its expensive part 1 in 2^level
 * (N = 2, 4, ... 64); max_shift + 1, when the module can shed, detaches its most expensive
 * programs. A module with neither has level 0 only: the governor then only says when the
 * cost stays over the budget and when it is back under.
 *
 * The rule (all counted in reads, one per interval):
 *  - over: cost > budget. A first step down needs GOVERNOR_DOWN_READS reads over in a row;
 *    once stepping, each fresh read still over steps again (the storm has shown it stays).
 *    cost_control.c prices the first read over again by a window of its own before the
 *    second counts (a price from another load can be off several times).
 *  - fresh: after a step the cost read is the old level's until a cost window measured the
 *    new one (cost_window_renew); reads that are not fresh neither step nor count.
 *  - under with margin: cost <= budget * GOVERNOR_UP_MARGIN (0.5). Halving N at most doubles
 *    the sampled part, so a step back from a read this far under lands under the budget.
 *    A step back needs `hold` fresh reads under with margin in a row; hold starts at
 *    GOVERNOR_HOLD_READS and doubles (up to GOVERNOR_HOLD_MAX) when the module has to step
 *    down again within 4 * hold reads of a step back, and returns to its start after a step
 *    back that lasts that long: a workload that sits at the edge is stepped ever more slowly,
 *    never flapped.
 *  - at the last level and still over (GOVERNOR_DOWN_READS reads): told once (GOVERNOR_OVER);
 *    back under with margin for `hold` reads at level 0 after that: told once (GOVERNOR_UNDER). */
#ifndef EBPF_CORE_COST_GOVERNOR_H
#define EBPF_CORE_COST_GOVERNOR_H

#include <stdbool.h>
#include <stdint.h>

#define GOVERNOR_DOWN_READS 2
#define GOVERNOR_UP_MARGIN 0.5
#define GOVERNOR_HOLD_READS 5
#define GOVERNOR_HOLD_MAX 320

struct governor_rule {
	double budget;  /* nanoseconds of CPU per second, > 0 */
	int max_shift;  /* 0: nothing to sample; else N up to 2^max_shift */
	bool can_shed;  /* a last level that detaches programs */
};

struct governor {
	int level;
	int over, under;      /* reads in a row over the budget / under it with margin */
	bool stepping;        /* stepped down and not yet under: the next fresh read over steps */
	bool told_over;       /* GOVERNOR_OVER said, GOVERNOR_UNDER not yet */
	int hold;             /* fresh reads under with margin a step back needs */
	uint64_t reads;       /* reads seen */
	uint64_t last_up;     /* the read of the last step back; 0: none */
};

enum governor_action {
	GOVERNOR_HOLD,  /* nothing to do */
	GOVERNOR_DOWN,  /* level went up by one: sample more, or shed */
	GOVERNOR_UP,    /* level went down by one: re-attach, or sample less */
	GOVERNOR_OVER,  /* at the last level and still over the budget */
	GOVERNOR_UNDER, /* back under the budget after GOVERNOR_OVER */
};

void governor_init(struct governor *g);
/* The levels of a rule: max_shift + can_shed. */
int governor_max_level(const struct governor_rule *r);
/* One read: the module's cost (ns of CPU per second) and whether it measures the current
 * level (fresh). Returns what to do; g->level is the level to run at. */
enum governor_action governor_read(struct governor *g, const struct governor_rule *r, double cost, bool fresh);
/* "down", "up", ... */
const char *governor_action_name(enum governor_action a);

#endif
