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

/* The refusal of a key the block does not take, as every block words it:
 * `unknown option "key"; <valid>: A, B, ...` with the block's keys (a NULL-terminated
 * table as users are told them: "Key" for a line, "<Key>" for a block inside it) and valid
 * its word for them ("valid" or "valid options"); the list is cut at
 * OPT_KEY_LIST_MAX - 1 characters, the whole at errlen. */
#define OPT_KEY_LIST_MAX 256
void opt_refuse_unknown(const char *key, const char *const *keys, const char *valid, char *err, size_t errlen);
/* A front-end that takes keys of its own from a block before handing the rest to the core
 * adds them to the core's refusal: when err holds an opt_refuse_unknown() message (after
 * any prefix) whose list has the key `beside`, keys (NULL-terminated) go just before it,
 * where the block's users look for them; any other message is left as it is. Cut at
 * errlen. */
void opt_refusal_add_keys(char *err, size_t errlen, const char *const *keys, const char *beside);

#endif
