/* The `signals` module: signals delivered per signal ("signals-segv", "signals-term", ...),
 * the module that shows what adding one takes (README, "Adding a module"): this
 * descriptor, bpf/signals.bpf.c, tests/signals/test_signals.c, a line in module_table.c and
 * one in Makefile.am. No hook but the one that names the rows: the engine reads the map. */
#define _GNU_SOURCE /* sigabbrev_np */
#include "libcore/engine/module.h"

#include "signals.h"
#include "signals.skel.h"

MODULE_SKELETON(signals);

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* With a witness (witness.h): signals come at most thousands a second, so it is on. */
static const struct module_point points[] = {
	MODULE_WITNESSED_TRACEPOINT("signal_deliver", deliver),
};

/* Only series with data: a signal nobody got has no file, no graph. */
static const struct view_field fields[] = {
	{ "signals", VALUE_COUNTER, 0 },
};

/* The signal's name, given at start (the C library's names). */
static const struct view_label labels[] = { ROW_LABEL("signal") };

static const struct map_view views[] = {
	{ .map = MAP_NAME(delivered), .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(uint64_t), .nrows = SIGNALS_ROWS,
	  VIEW_LABELLED_FIELDS(labels, fields) },
};

/* "segv" for SIGSEGV (as kill -l, lower case, without SIG); real-time signals by number,
 * "rt34", since the C library reserves some of them and their names differ. */
static const char *signal_name(uint32_t row, char *buf, size_t len)
{
	const char *abbrev = row < 32 ? sigabbrev_np((int)row) : NULL;

	if (!abbrev) {
		snprintf(buf, len, "%s%u", row < 32 ? "sig" : "rt", row);
		return buf;
	}
	snprintf(buf, len, "%s", abbrev);
	for (char *c = buf; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return buf;
}

static int name_signals(struct module *m, char *err, size_t errlen)
{
	char texts[SIGNALS_ROWS][16];
	const char *names[SIGNALS_ROWS];

	for (uint32_t row = 0; row < SIGNALS_ROWS; row++)
		names[row] = signal_name(row, texts[row], sizeof(texts[row]));
	return view_label_names(m, 0, 0, names, SIGNALS_ROWS, err, errlen);
}

const struct module_ops signals_module = {
	.name = "signals",
	.description = "signals delivered, per signal (crashes show as segv, bus, fpe, ill, abrt)",
	MODULE_OBJECT(signals),
	.start = name_signals,
	/* every delivery is counted (no filter but the tests'), so a storm of signals between
	 * two cost windows shows in cpu_cost as it comes */
	.cost_events = (const char *const[]){ "signals", NULL },
};
