/* The options of `By "cgroup"` (cgroup_options.h). */
#include "libcore/engine/cgroup_options.h"

#include "base/options.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cgroup_options_init(struct cgroup_options *o)
{
	memset(o, 0, sizeof(*o));
	o->depth = CGROUP_DEPTH_DEFAULT;
	o->max_series = CGROUP_MAX_SERIES_DEFAULT;
	hist_config_init(&o->hist);
}

/* A whole number from lo to hi, or -1 with err naming the option. */
static int whole_number(const struct option *opt, uint32_t lo, uint32_t hi, const char *example, uint32_t *out,
			char *err, size_t errlen)
{
	double v;

	if (opt_expect_numbers(opt, 1, 1, err, errlen))
		return -1;
	v = opt->values[0].number;
	if (!(v >= lo && v <= hi) || v != (double)(uint32_t)v) {
		snprintf(err, errlen, "%s takes one whole number from %u to %u, e.g. %s", opt->key, lo, hi, example);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* By "cgroup" | "command": one of them per module. */
static int set_by(struct cgroup_options *o, const struct option *opt, char *err, size_t errlen)
{
	bool command;

	if (opt_expect_strings(opt, 1, err, errlen))
		return -1;
	command = opt->nvalues == 1 && !strcasecmp(opt->values[0].string, "command");
	if (opt->nvalues != 1 || (!command && strcasecmp(opt->values[0].string, "cgroup"))) {
		snprintf(err, errlen, "By takes one value, \"cgroup\" (the module's values per cgroup v2 cgroup "
			 "as well)%s: By \"cgroup\"",
			 o->command_ok ? " or \"command\" (per command: the task's name, as ps and biosnoop show it)" : "");
		return -1;
	}
	if (command && !o->command_ok) {
		snprintf(err, errlen, "By \"command\": this module's events are not counted where the task that "
			 "acts is known (a socket's, completed in softirq or a timer); By \"cgroup\" names the socket's "
			 "cgroup");
		return -1;
	}
	if (o->on && o->command != command) {
		snprintf(err, errlen, "By \"cgroup\" and By \"command\" cannot be combined in one module: its rows are "
			 "per cgroup or per command, and collectd's plugin_instance names one of them (rows per "
			 "pair would fold under MaxSeries by pairs and cost a second key per event); keep one, or run "
			 "the module twice, a second block with an instance name and the other (e.g. <Module \"block\" \"cg\">)");
		return -1;
	}
	o->on = true;
	o->command = command;
	return 1;
}

/* Cgroup "/glob" ...: paths below the cgroup2 root, at most CGROUP_GLOBS_MAX in all. */
static int add_globs(struct cgroup_options *o, const struct option *opt, char *err, size_t errlen)
{
	if (opt_expect_strings(opt, 1, err, errlen))
		return -1;
	for (int i = 0; i < opt->nvalues; i++) {
		const char *g = opt->values[i].string;

		if (g[0] != '/') {
			snprintf(err, errlen, "Cgroup: \"%s\" is not a path below the cgroup2 root; start it with '/', "
				 "e.g. Cgroup \"/system.slice/*.service\"", g);
			return -1;
		}
		if (o->nglobs == CGROUP_GLOBS_MAX) {
			snprintf(err, errlen, "Cgroup: more than %d globs; join them into fewer ones", CGROUP_GLOBS_MAX);
			return -1;
		}
		if (!(o->globs[o->nglobs] = strdup(g))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		o->nglobs++;
	}
	return 1;
}

int cgroup_options_set(struct cgroup_options *o, const struct option *opt, char *err, size_t errlen)
{
	if (!strcasecmp(opt->key, "By"))
		return set_by(o, opt, err, errlen);
	if (!strcasecmp(opt->key, "CgroupDepth")) {
		o->tuned = o->chooses_cgroups = true;
		return whole_number(opt, 1, CGROUP_DEPTH_MAX, "CgroupDepth 2 (system.slice/ssh.service)", &o->depth, err,
				    errlen) ? -1 : 1;
	}
	if (!strcasecmp(opt->key, "MaxSeries")) {
		o->tuned = true;
		return whole_number(opt, 1, CGROUP_MAX_SERIES_MAX, "MaxSeries 100", &o->max_series, err, errlen) ? -1 : 1;
	}
	if (!strcasecmp(opt->key, "CgroupPrecision")) {
		o->tuned = true;
		return hist_config_set_precision(&o->hist, opt, err, errlen);
	}
	if (!strcasecmp(opt->key, "Pressure")) {
		o->tuned = o->chooses_cgroups = true;
		return opt_get_boolean(opt, &o->pressure, err, errlen) ? -1 : 1;
	}
	if (!strcasecmp(opt->key, "CgroupIgnoreSelected")) {
		o->tuned = o->chooses_cgroups = true;
		return opt_get_boolean(opt, &o->ignore_selected, err, errlen) ? -1 : 1;
	}
	if (!strcasecmp(opt->key, "Cgroup")) {
		o->tuned = o->chooses_cgroups = true;
		return add_globs(o, opt, err, errlen);
	}
	return 0;
}

int cgroup_options_check(const struct cgroup_options *o, char *err, size_t errlen)
{
	if (o->tuned && !o->on) {
		snprintf(err, errlen, "CgroupDepth, Cgroup, CgroupIgnoreSelected, CgroupPrecision, MaxSeries and Pressure "
			 "shape the values per cgroup, which By \"cgroup\" turns on (MaxSeries and CgroupPrecision also "
			 "By \"command\"): add By \"cgroup\", or remove them");
		return -1;
	}
	if (o->command && o->chooses_cgroups) {
		snprintf(err, errlen, "CgroupDepth, Cgroup, CgroupIgnoreSelected and Pressure (a cgroup's PSI) choose "
			 "cgroups, and By \"command\" counts per command, not per cgroup: remove them, or use By \"cgroup\"");
		return -1;
	}
	return 0;
}

bool cgroup_options_selects(const struct cgroup_options *o, const char *path)
{
	bool match = false;

	if (!o->nglobs)
		return true;
	for (int i = 0; i < o->nglobs && !match; i++)
		match = !fnmatch(o->globs[i], path, 0);
	return o->ignore_selected ? !match : match;
}

/* The literal directory glob g lies below: up to the '/' before the first component with a
 * wildcard (fnmatch's '*', '?', '[' and its escape '\\'), or all of it without one. */
static struct cgroup_prefix glob_prefix(const char *g, int glob)
{
	struct cgroup_prefix p = { .glob = glob };
	size_t wild = strcspn(g, "*?[\\"), end = wild;

	if (g[wild])
		while (end > 0 && g[end] != '/')
			end--;
	while (end > 1 && g[end - 1] == '/') /* "/a/" is /a */
		end--;
	p.len = (uint32_t)end;
	for (size_t i = 0; i < end; i++)
		p.level += g[i] != '/' && (i == 0 || g[i - 1] == '/');
	return p;
}

/* Whether directory a (n bytes) is b (m bytes) or one of its ancestors. */
static bool dir_contains(const char *a, size_t n, const char *b, size_t m)
{
	return n <= m && !memcmp(a, b, n) && (n == m || b[n] == '/');
}

int cgroup_options_prefixes(const struct cgroup_options *o, struct cgroup_prefix *out, int max, const char **why)
{
	struct cgroup_prefix all[CGROUP_GLOBS_MAX];
	int n = 0;

	if (!o->nglobs || o->ignore_selected) {
		*why = o->ignore_selected ? "CgroupIgnoreSelected sends the cgroups outside the globs" : "no Cgroup glob";
		return 0;
	}
	for (int i = 0; i < o->nglobs; i++) {
		all[i] = glob_prefix(o->globs[i], i);
		if (!all[i].level) {
			*why = "a glob names no directory below the root before its first wildcard";
			return 0;
		}
	}
	/* Each directory once, and none below another (the outer one lets its events through). */
	for (int i = 0; i < o->nglobs; i++) {
		bool inside = false;

		for (int j = 0; j < o->nglobs && !inside; j++) {
			const struct cgroup_prefix *a = &all[j], *b = &all[i];

			inside = j != i && dir_contains(o->globs[a->glob], a->len, o->globs[b->glob], b->len) &&
				 (a->len < b->len || j < i);
		}
		if (inside)
			continue;
		if (n == max) {
			*why = "the globs lie below more directories than the kernel's filter holds";
			return 0;
		}
		out[n++] = all[i];
	}
	return n;
}

void cgroup_options_free(struct cgroup_options *o)
{
	for (int i = 0; i < o->nglobs; i++)
		free(o->globs[i]);
	o->nglobs = 0;
}
