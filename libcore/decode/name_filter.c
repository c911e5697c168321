#include "libcore/decode/name_filter.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int name_filter_add(struct name_filter *f, const char *option, const char *entry, char *err, size_t errlen)
{
	struct name_filter_entry *e;
	size_t len = strlen(entry);

	if (f->n >= NAME_FILTER_MAX) {
		snprintf(err, errlen, "%s: more than %d entries; use a regular expression (\"/^sd/\") to match many",
			 option, NAME_FILTER_MAX);
		return -1;
	}
	if (len == 0) {
		snprintf(err, errlen, "%s: empty name; give a name as in /proc/diskstats (\"sda\") or \"/regex/\"",
			 option);
		return -1;
	}
	e = &f->entries[f->n];
	if (len >= 2 && entry[0] == '/' && entry[len - 1] == '/') {
		char *pattern = strndup(entry + 1, len - 2);
		int rc;

		if (!pattern)
			return -1;
		rc = regcomp(&e->re, pattern, REG_EXTENDED | REG_NOSUB);
		free(pattern);
		if (rc) {
			char why[ERR_MAX];

			regerror(rc, &e->re, why, sizeof(why));
			snprintf(err, errlen, "%s: \"%s\" is not a valid regular expression (%s)", option, entry, why);
			return -1;
		}
		e->name = NULL;
	} else {
		e->name = strdup(entry);
		if (!e->name)
			return -1;
	}
	f->n++;
	return 0;
}

static bool matches(const struct name_filter *f, const char *name)
{
	for (int i = 0; i < f->n; i++) {
		const struct name_filter_entry *e = &f->entries[i];

		if (e->name ? !strcmp(e->name, name) : !regexec(&e->re, name, 0, NULL, 0))
			return true;
	}
	return false;
}

bool name_filter_collects(const struct name_filter *f, const char *name)
{
	if (f->n == 0)
		return true;
	return matches(f, name) != f->ignore_selected;
}

void name_filter_free(struct name_filter *f)
{
	for (int i = 0; i < f->n; i++) {
		if (f->entries[i].name)
			free(f->entries[i].name);
		else
			regfree(&f->entries[i].re);
	}
	f->n = 0;
}
