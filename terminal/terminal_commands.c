/* The "top commands" section (terminal_commands.h). */
#include "terminal/terminal_commands.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One command's counters, summed over its rows. */
struct command_row {
	const char *command;
	uint64_t v[TERMINAL_COMMAND_COLUMNS];
};

struct columns {
	const char *metric[TERMINAL_COMMAND_COLUMNS];
	int n;
};

/* The column of metric, a new one while there is room; -1 when none. */
static int column_of(struct columns *c, const char *metric, bool add)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->metric[i], metric))
			return i;
	if (!add || c->n == TERMINAL_COMMAND_COLUMNS)
		return -1;
	c->metric[c->n] = metric;
	return c->n++;
}

static int by_command(const void *a, const void *b)
{
	return strcmp(((const struct command_row *)a)->command, ((const struct command_row *)b)->command);
}

/* m's per-command counters summed by command, sorted by name, into *out (*n of them);
 * add: columns may be added (the current record's; the previous one only fills them). */
static int sum_by_command(const struct snapshot_module *m, struct columns *cols, bool add, struct command_row **out,
			  int *n)
{
	struct command_row *rows = calloc((size_t)m->ncounters + 1, sizeof(*rows));
	int used = 0;

	if (!rows)
		return -1;
	for (int k = 0; k < m->ncounters; k++) {
		const struct snapshot_counter *c = &m->counters[k];
		const char *command = snapshot_label(m, &c->labels, "command");
		int col = command ? column_of(cols, c->metric, add) : -1;

		if (col < 0)
			continue;
		rows[used].command = command;
		rows[used].v[col] = c->value;
		used++;
	}
	if (used)
		qsort(rows, (size_t)used, sizeof(*rows), by_command);
	*n = 0;
	for (int i = 0; i < used; i++) { /* each command's rows into its first */
		if (*n && !strcmp(rows[*n - 1].command, rows[i].command)) {
			for (int col = 0; col < TERMINAL_COMMAND_COLUMNS; col++)
				rows[*n - 1].v[col] += rows[i].v[col];
			continue;
		}
		rows[(*n)++] = rows[i];
	}
	*out = rows;
	return 0;
}

static int busiest_first(const void *a, const void *b)
{
	const struct command_row *x = a, *y = b;

	if (x->v[0] != y->v[0])
		return x->v[0] > y->v[0] ? -1 : 1;
	return strcmp(x->command, y->command);
}

/* rows minus what base had of each command; a count that went backwards (the maps were
 * made again) is what the new ones hold. */
static void subtract(struct command_row *rows, int n, const struct command_row *base, int nbase)
{
	for (int i = 0; i < n; i++) {
		const struct command_row *b = bsearch(&rows[i], base, (size_t)nbase, sizeof(*base), by_command);

		for (int col = 0; b && col < TERMINAL_COMMAND_COLUMNS; col++)
			if (b->v[col] <= rows[i].v[col])
				rows[i].v[col] -= b->v[col];
	}
}

int terminal_commands_draw(FILE *out, const struct snapshot_module *m, const struct snapshot_module *base,
			   double seconds, int top)
{
	struct columns cols = { .n = 0 };
	struct command_row *rows = NULL, *prev = NULL;
	int n = 0, nprev = 0, shown;

	if (sum_by_command(m, &cols, true, &rows, &n) || (base && sum_by_command(base, &cols, false, &prev, &nprev))) {
		free(rows);
		fprintf(out, "  (out of memory: the top commands not shown)\n");
		return -1;
	}
	if (n) {
		if (prev)
			subtract(rows, n, prev, nprev);
		qsort(rows, (size_t)n, sizeof(*rows), busiest_first);
		shown = top > 0 && n > top ? top : n;
		fprintf(out, "\n  top commands (By \"command\"; collectd's ebpf-%s.<command>/...), %s:\n", m->label,
			base ? "this interval" : "since start");
		fprintf(out, "  %-18s %12s", "COMMAND", "per second");
		for (int col = 0; col < cols.n; col++)
			fprintf(out, " %14s", cols.metric[col]);
		fprintf(out, "\n");
		for (int i = 0; i < shown; i++) {
			fprintf(out, "  %-18s", rows[i].command);
			if (seconds > 0)
				fprintf(out, " %12.1f", (double)rows[i].v[0] / seconds);
			else
				fprintf(out, " %12s", "-");
			for (int col = 0; col < cols.n; col++)
				fprintf(out, " %14" PRIu64, rows[i].v[col]);
			fprintf(out, "\n");
		}
		if (shown < n)
			fprintf(out, "  ... %d more commands (--top 0 shows all)\n", n - shown);
	}
	free(rows);
	free(prev);
	return n;
}
