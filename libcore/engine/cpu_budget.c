#include "libcore/engine/cpu_budget.h"

#include "base/options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* From 0.001% (10 us/s) to 100 CPUs: anything outside is a typo, not a budget. */
#define BUDGET_MIN_NS 1e4
#define BUDGET_MAX_NS 1e11

static int refuse(const struct option *o, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s \"%s\": %s; give a share of one CPU (\"0.5%%\", \"10%%\"; 100%% is one CPU busy) "
		 "or milliseconds of CPU per second (\"5ms\"), from 0.001%% (0.01ms) to 10000%% (100000ms), "
		 "or \"off\"", o->key, o->nvalues == 1 && o->values[0].string ? o->values[0].string : "", what);
	return -1;
}

int cpu_budget_parse(const struct option *o, double *ns_per_s, char *err, size_t errlen)
{
	const char *s;
	char *end;
	double v;

	if (o->nvalues != 1 || o->values[0].type != OPT_STRING)
		return refuse(o, "takes one quoted value", err, errlen);
	s = o->values[0].string;
	if (!strcasecmp(s, "off")) {
		*ns_per_s = CPU_BUDGET_OFF;
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		return refuse(o, "not a number with a unit", err, errlen);
	while (*end == ' ')
		end++;
	if (!strcmp(end, "%"))
		v *= 1e7; /* 1% of one CPU: 10 ms of CPU per second */
	else if (!strcasecmp(end, "ms"))
		v *= 1e6;
	else
		return refuse(o, *end ? "unknown unit" : "no unit", err, errlen);
	if (!(v >= BUDGET_MIN_NS && v <= BUDGET_MAX_NS))
		return refuse(o, "out of range", err, errlen);
	*ns_per_s = v;
	return 0;
}

const char *cpu_budget_text(double ns, char *buf, size_t len)
{
	if (ns <= 0)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "%g%% of one CPU (%g ms/s)", ns / 1e7, ns / 1e6);
	return buf;
}
