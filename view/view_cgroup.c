#include "view/view_cgroup.h"

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

int view_cgroup_glob(const char *arg, char out[VIEW_CGROUP_GLOB_MAX], char *err, size_t errlen)
{
	const char *s = arg[0] == '/' && arg[1] ? arg + 1 : arg;
	size_t n = strlen(s);

	if (!arg[0]) {
		snprintf(err, errlen, "--cgroup needs a glob of cgroups, e.g. --cgroup '/system.slice/*.service' "
			 "or --cgroup 'system.slice_cron.service' ('*': every cgroup)");
		return -1;
	}
	if (n >= VIEW_CGROUP_GLOB_MAX) {
		snprintf(err, errlen, "--cgroup \"%.40s...\" is %zu characters: a cgroup glob is at most %d "
			 "(collectd's names are at most 127)", arg, n, VIEW_CGROUP_GLOB_MAX - 1);
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
		snprintf(out, VIEW_CGROUP_GLOB_MAX, "root");
		return 0;
	}
	for (size_t i = 0; i <= n; i++)
		out[i] = s[i] == '/' ? '_' : s[i];
	return 0;
}

size_t view_cgroup_split(const char *instance, const char **row)
{
	const char *slash = strchr(instance, '/');

	*row = slash ? slash + 1 : instance;
	return slash ? (size_t)(slash - instance) : 0;
}

bool view_cgroup_owns(const char *cgroup, const char *instance)
{
	const char *row;
	size_t len = view_cgroup_split(instance, &row);

	return len && len == strlen(cgroup) && !strncmp(instance, cgroup, len);
}

/* Adds the cgroup of instance to names when glob matches it and it is not the last one
 * added (a cgroup's rows mostly come together; view_cgroup_list() removes the other
 * repeats once sorted). */
static int add_cgroup(const char *instance, const char *glob, char ***names, int *n, int *cap)
{
	const char *row;
	size_t len = view_cgroup_split(instance, &row);
	char name[sizeof(((struct snapshot_counter *)0)->instance)];

	if (!len)
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)len, instance);
	if (fnmatch(glob, name, 0))
		return 0;
	if (*n && !strcmp((*names)[*n - 1], name))
		return 0;
	if (*n == *cap) {
		int ncap = *cap ? 2 * *cap : 16;
		char **grown = realloc(*names, (size_t)ncap * sizeof(*grown));

		if (!grown)
			return -1;
		*names = grown;
		*cap = ncap;
	}
	if (!((*names)[*n] = strdup(name)))
		return -1;
	(*n)++;
	return 0;
}

/* By name, the cgroups beyond MaxSeries ("other") last: they are no service. */
static int by_name(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	bool xo = !strcmp(x, "other"), yo = !strcmp(y, "other");

	if (xo != yo)
		return xo ? 1 : -1;
	return strcmp(x, y);
}

int view_cgroup_list(const struct snapshot_module *m, const char *glob, char ***out, int *n)
{
	int cap = 0;

	int kept = 0;

	*out = NULL;
	*n = 0;
	/* At most one name per row, which SNAPSHOT_MAX_ROWS bounds. */
	for (int i = 0; i < m->nhistograms; i++)
		if (add_cgroup(m->histograms[i].instance, glob, out, n, &cap))
			goto oom;
	for (int i = 0; i < m->ncounters; i++)
		if (add_cgroup(m->counters[i].instance, glob, out, n, &cap))
			goto oom;
	if (!*n)
		return 0;
	qsort(*out, (size_t)*n, sizeof(**out), by_name);
	for (int i = 0; i < *n; i++) {
		if (kept && !strcmp((*out)[kept - 1], (*out)[i]))
			free((*out)[i]);
		else
			(*out)[kept++] = (*out)[i];
	}
	*n = kept;
	return 0;
oom:
	view_cgroup_free(*out, *n);
	*out = NULL;
	*n = 0;
	return -1;
}

void view_cgroup_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
