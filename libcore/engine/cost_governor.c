#include "libcore/engine/cost_governor.h"

#include <string.h>

void governor_init(struct governor *g)
{
	memset(g, 0, sizeof(*g));
	g->hold = GOVERNOR_HOLD_READS;
}

int governor_max_level(const struct governor_rule *r)
{
	return r->max_shift + (r->can_shed ? 1 : 0);
}

const char *governor_action_name(enum governor_action a)
{
	switch (a) {
	case GOVERNOR_HOLD: return "hold";
	case GOVERNOR_DOWN: return "down";
	case GOVERNOR_UP: return "up";
	case GOVERNOR_OVER: return "over";
	case GOVERNOR_UNDER: return "under";
	}
	return "?";
}

static enum governor_action step_down(struct governor *g)
{
	/* back down soon after a step back: the edge is near, step back more slowly */
	if (g->last_up && g->reads - g->last_up <= 4 * (uint64_t)g->hold)
		g->hold = g->hold * 2 > GOVERNOR_HOLD_MAX ? GOVERNOR_HOLD_MAX : g->hold * 2;
	g->level++;
	g->stepping = true;
	g->over = g->under = 0;
	return GOVERNOR_DOWN;
}

static enum governor_action step_up(struct governor *g)
{
	if (g->last_up && g->reads - g->last_up > 4 * (uint64_t)g->hold)
		g->hold = GOVERNOR_HOLD_READS; /* the last step back held: start again */
	g->level--;
	g->last_up = g->reads;
	g->told_over = false; /* the step back says it is under */
	g->over = g->under = 0;
	return GOVERNOR_UP;
}

enum governor_action governor_read(struct governor *g, const struct governor_rule *r, double cost, bool fresh)
{
	int top = governor_max_level(r);

	g->reads++;
	if (!fresh)
		return GOVERNOR_HOLD;
	if (cost > r->budget) {
		g->under = 0;
		g->over++;
		if (g->level < top && (g->stepping || g->over >= GOVERNOR_DOWN_READS))
			return step_down(g);
		if (g->level == top && !g->told_over && g->over >= GOVERNOR_DOWN_READS) {
			g->told_over = true;
			return GOVERNOR_OVER;
		}
		return GOVERNOR_HOLD;
	}
	g->over = 0;
	g->stepping = false;
	if (cost > r->budget * GOVERNOR_UP_MARGIN) {
		g->under = 0;
		return GOVERNOR_HOLD;
	}
	if (++g->under < g->hold)
		return GOVERNOR_HOLD;
	if (g->level > 0)
		return step_up(g);
	g->under = 0;
	if (g->told_over) {
		g->told_over = false;
		return GOVERNOR_UNDER;
	}
	return GOVERNOR_HOLD;
}
