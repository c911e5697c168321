/* A configuration option as the core sees it: a key and typed values. Front-ends convert
 * their own syntax (collectd's oconfig_item_t, command-line flags) into this, so config
 * validation lives in libcore/ and is unit-tested without collectd. */
#ifndef EBPF_BASE_OPTIONS_H
#define EBPF_BASE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

enum opt_type { OPT_STRING, OPT_NUMBER, OPT_BOOLEAN };

struct opt_value {
	enum opt_type type;
	const char *string;
	double number;
	bool boolean;
};

struct option {
	const char *key;
	const struct opt_value *values;
	int nvalues;
};

/* A block or a line of a nested configuration (`<Program>` and its `<Histogram>`, `<Label>`
 * ...): the line's key and values, and the lines inside it. Front-ends build the tree from
 * their own syntax, as they build flat options. */
struct conf_node {
	struct option opt;
	const struct conf_node *children;
	int nchildren;
};

/* Each returns 0, or -1 with a message in err that names the key and what it expects. */
int opt_expect_strings(const struct option *o, int min_values, char *err, size_t errlen);
int opt_expect_numbers(const struct option *o, int min_values, int max_values, char *err, size_t errlen);
int opt_get_boolean(const struct option *o, bool *out, char *err, size_t errlen);

/* A block's keys as users are told them, in a NULL-terminated table: "Key" for a line,
 * "<Key>" for a block inside it. Whether key (any case) is one of them. */
bool opt_key_in(const char *const *keys, const char *key);
/* "Layout, SlotsField, ...": keys as text, with front_keys (a front-end's own keys for the
 * same block, NULL-terminated; NULL for none) listed just before the key `before` (at the
 * end when keys lacks it). Cut at len. */
void opt_list_keys(const char *const *keys, const char *const *front_keys, const char *before, char *buf,
		   size_t len);

#endif
