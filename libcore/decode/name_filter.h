/* Which names to collect, in collectd's ignorelist style (`Disk "sda"`, `Disk "/^loop/"`,
 * `IgnoreSelected false|true`):
 *   no entries               -> every name is collected
 *   entries, IgnoreSelected false (default) -> only the names that match
 *   entries, IgnoreSelected true            -> every name but those that match
 * An entry between slashes is an extended regular expression, anything else an exact name. */
#ifndef EBPF_CORE_NAME_FILTER_H
#define EBPF_CORE_NAME_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#define NAME_FILTER_MAX 64

struct name_filter_entry {
	char *name;   /* exact name, or NULL for a regex */
	regex_t re;
};

struct name_filter {
	struct name_filter_entry entries[NAME_FILTER_MAX];
	int n;
	bool ignore_selected;
};

/* 0, or -1 with err naming `option` and the fix (bad regex, too many entries). */
int name_filter_add(struct name_filter *f, const char *option, const char *entry, char *err, size_t errlen);
bool name_filter_collects(const struct name_filter *f, const char *name);
void name_filter_free(struct name_filter *f);

#endif
