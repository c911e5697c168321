/* The "waited behind" line (terminal_behind.h). */
#include "terminal/terminal_behind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct holder_share {
	const char *holder;
	uint64_t ns;
};

/* What base had of the counter (metric, instance): 0 when none, or when it was more (the
 * module started again). */
static uint64_t base_value(const struct snapshot_module *base, const struct snapshot_counter *c)
{
	for (int k = 0; base && k < base->ncounters; k++)
		if (!strcmp(base->counters[k].metric, c->metric) && !strcmp(base->counters[k].instance, c->instance))
			return base->counters[k].value <= c->value ? base->counters[k].value : 0;
	return 0;
}

static int most_first(const void *a, const void *b)
{
	const struct holder_share *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->holder, y->holder);
}

int terminal_behind_draw(FILE *out, const struct snapshot_module *m, const struct snapshot_module *base,
			 const struct terminal_cgroup *c)
{
	struct holder_share *h = calloc((size_t)c->ncounters + 1, sizeof(*h));
	uint64_t total = 0, rest = 0;
	int n = 0;

	if (!h) {
		fprintf(out, "  (out of memory: waited behind not shown)\n");
		return 0;
	}
	for (int i = 0; i < c->ncounters; i++) {
		const struct snapshot_counter *k = &m->counters[c->counters[i]];
		const char *holder;

		if (strcmp(k->metric, "wait_behind"))
			continue;
		terminal_cgroup_split(k->instance, &holder);
		h[n] = (struct holder_share){ .holder = holder, .ns = k->value - base_value(base, k) };
		total += h[n++].ns;
	}
	if (n) {
		qsort(h, (size_t)n, sizeof(*h), most_first);
		fprintf(out, "  waited behind:");
		if (!total)
			fprintf(out, " nobody (no wait)");
		for (int i = 0; i < n && total; i++) {
			double pct = 100.0 * (double)h[i].ns / (double)total;

			if (i >= TERMINAL_BEHIND_SHOWN) {
				rest += h[i].ns;
				continue;
			}
			if (!h[i].ns)
				break;
			fprintf(out, "%s %s %s", i ? "," : "", h[i].holder, pct >= 0.5 ? "" : "<1%");
			if (pct >= 0.5)
				fprintf(out, "%.0f%%", pct);
		}
		if (rest)
			fprintf(out, ", others %.0f%%", 100.0 * (double)rest / (double)total);
		fprintf(out, " (of %.3f s waited)\n", (double)total / 1e9);
	}
	free(h);
	return n;
}
