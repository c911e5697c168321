#include "terminal/terminal_cgroup.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the bracket expression opened at glob[i] ('[') closes, -1 when it never does:
 * fnmatch(3) would then take the '[' as a character, which is never what was meant. */
static long bracket_end(const char *glob, size_t i)
{
	size_t j = i + 1;

	if (glob[j] == '!' || glob[j] == '^')
		j++;
	if (glob[j] == ']') /* a ']' first is one of the characters */
		j++;
	for (; glob[j]; j++)
		if (glob[j] == ']')
			return (long)j;
	return -1;
}

int terminal_cgroup_glob(const char *arg, char out[TERMINAL_CGROUP_GLOB_MAX], char *err, size_t errlen)
{
	const char *s = arg[0] == '/' && arg[1] ? arg + 1 : arg;
	size_t n = strlen(s);

	if (!arg[0]) {
		snprintf(err, errlen, "--cgroup needs a glob of cgroups, e.g. --cgroup '/system.slice/*.service' "
			 "or --cgroup 'system.slice_cron.service' ('*': every cgroup)");
		return -1;
	}
	if (n >= TERMINAL_CGROUP_GLOB_MAX) {
		snprintf(err, errlen, "--cgroup \"%.40s...\" is %zu characters: a cgroup glob is at most %d "
			 "(collectd's names are at most 127)", arg, n, TERMINAL_CGROUP_GLOB_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\' && s[i + 1]) {
			i++;
			continue;
		}
		if (c == '[' && bracket_end(s, i) < 0) {
			snprintf(err, errlen, "--cgroup \"%s\": the '[' at character %zu has no ']'. Close the set "
				 "('system.slice_[ab]*'), or write a literal '[' as '\\['", arg, (size_t)(s - arg) + i + 1);
			return -1;
		}
		if (c < 0x20 || c == 0x7f) {
			snprintf(err, errlen, "--cgroup: the glob has a control character at character %zu; cgroup "
				 "names have none (collectd writes them '_')", (size_t)(s - arg) + i + 1);
			return -1;
		}
	}
	/* As label_value_safe() names a cgroup path: "/" is the root cgroup, "root". */
	if (!strcmp(arg, "/")) {
		snprintf(out, TERMINAL_CGROUP_GLOB_MAX, "root");
		return 0;
	}
	for (size_t i = 0; i <= n; i++)
		out[i] = s[i] == '/' ? '_' : s[i];
	return 0;
}

size_t terminal_cgroup_split(const char *instance, const char **row)
{
	const char *slash = strchr(instance, '/');

	*row = slash ? slash + 1 : instance;
	return slash ? (size_t)(slash - instance) : 0;
}

/* A row of a matching cgroup: its cgroup (in the row's instance), whether it is a counter,
 * its index. */
struct cg_row {
	const char *cgroup;
	size_t len;
	int counter, index;
};

static bool is_other(const struct cg_row *r)
{
	return r->len == 5 && !memcmp(r->cgroup, "other", 5);
}

/* By cgroup name ("other", the cgroups beyond MaxSeries, last: they are no service), then
 * histograms before counters, each in the module's order. */
static int by_cgroup(const void *a, const void *b)
{
	const struct cg_row *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int d;

	if (is_other(x) != is_other(y))
		return is_other(x) ? 1 : -1;
	d = memcmp(x->cgroup, y->cgroup, n);
	if (d)
		return d;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->counter != y->counter)
		return x->counter - y->counter;
	return x->index - y->index;
}

/* Appends the row when its instance has a cgroup that glob matches. */
static void add_row(struct cg_row *rows, int *n, const char *instance, const char *glob, int counter, int index)
{
	char name[sizeof(((struct snapshot_counter *)0)->instance)];
	const char *row;
	size_t len = terminal_cgroup_split(instance, &row);

	if (!len)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)len, instance);
	if (fnmatch(glob, name, 0))
		return;
	rows[(*n)++] = (struct cg_row){ .cgroup = instance, .len = len, .counter = counter, .index = index };
}

/* Whether rows[i] (rows sorted by_cgroup) is its cgroup's first. */
static bool starts_group(const struct cg_row *rows, int i)
{
	return !i || rows[i].len != rows[i - 1].len || memcmp(rows[i].cgroup, rows[i - 1].cgroup, rows[i].len);
}

/* The module's rows whose cgroup glob matches, sorted by_cgroup, into *rows (the caller
 * frees it); their count, or -1 when out of memory. */
static int matching_rows(const struct snapshot_module *m, const char *glob, struct cg_row **rows)
{
	int nrows = 0;

	*rows = malloc(((size_t)m->nhistograms + (size_t)m->ncounters + 1) * sizeof(**rows));
	if (!*rows)
		return -1;
	/* A per-command row (By "command", label command=) names a command, not a cgroup. */
	for (int i = 0; i < m->nhistograms; i++)
		if (!snapshot_label(m, &m->histograms[i].labels, "command"))
			add_row(*rows, &nrows, m->histograms[i].instance, glob, 0, i);
	for (int i = 0; i < m->ncounters; i++)
		if (!snapshot_label(m, &m->counters[i].labels, "command"))
			add_row(*rows, &nrows, m->counters[i].instance, glob, 1, i);
	if (nrows)
		qsort(*rows, (size_t)nrows, sizeof(**rows), by_cgroup);
	return nrows;
}

/* The sorted rows as ngroups cgroups, into groups, each's indexes a run of the one array
 * indexes: its histograms, then its counters. 0, or -1 when out of memory, with *made the
 * groups whose names were made. */
static int fill_groups(const struct cg_row *rows, int nrows, struct terminal_cgroup *groups, int *indexes, int *made)
{
	for (int i = 0, g = -1; i < nrows; i++) {
		struct terminal_cgroup *c;

		if (starts_group(rows, i)) {
			c = &groups[++g];
			if (!(c->name = strndup(rows[i].cgroup, rows[i].len))) {
				*made = g;
				return -1;
			}
			c->histograms = c->counters = &indexes[i];
		}
		c = &groups[g];
		indexes[i] = rows[i].index;
		if (rows[i].counter) {
			c->ncounters++;
		} else {
			c->nhistograms++;
			c->counters++;
		}
	}
	return 0;
}

int terminal_cgroup_list(const struct snapshot_module *m, const char *glob, struct terminal_cgroup **out, int *n)
{
	struct cg_row *rows;
	int nrows, *indexes = NULL, ngroups = 0;
	struct terminal_cgroup *groups = NULL;

	*out = NULL;
	*n = 0;
	nrows = matching_rows(m, glob, &rows);
	if (nrows <= 0) {
		free(rows);
		return nrows;
	}
	for (int i = 0; i < nrows; i++)
		if (starts_group(rows, i))
			ngroups++;
	/* One array of indexes for all: each group's histograms, then its counters, in a run. */
	indexes = malloc((size_t)nrows * sizeof(*indexes));
	groups = calloc((size_t)ngroups, sizeof(*groups));
	if (!indexes || !groups || fill_groups(rows, nrows, groups, indexes, &ngroups))
		goto oom;
	free(rows);
	*out = groups;
	*n = ngroups;
	return 0;
oom:
	free(rows);
	if (groups) {
		groups[0].histograms = indexes; /* the names made so far are freed */
		terminal_cgroup_free(groups, ngroups);
	} else {
		free(indexes);
	}
	return -1;
}

/* The index array is one, starting at the first group's histograms. */
void terminal_cgroup_free(struct terminal_cgroup *cgroups, int n)
{
	if (!cgroups)
		return;
	for (int i = 0; i < n; i++)
		free(cgroups[i].name);
	free(cgroups[0].histograms);
	free(cgroups);
}
