#include "base/options.h"
#include "base/text_append.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *type_name(enum opt_type t)
{
	return t == OPT_STRING ? "a string" : t == OPT_NUMBER ? "a number" : "a boolean";
}

static int expect_type(const struct option *o, enum opt_type type, int min, int max, char *err, size_t errlen)
{
	if (o->nvalues < min || (max > 0 && o->nvalues > max)) {
		if (max == min)
			snprintf(err, errlen, "option \"%s\" takes %d value%s, got %d", o->key, min,
				 min == 1 ? "" : "s", o->nvalues);
		else
			snprintf(err, errlen, "option \"%s\" takes at least %d value%s, got %d", o->key, min,
				 min == 1 ? "" : "s", o->nvalues);
		return -1;
	}
	for (int i = 0; i < o->nvalues; i++) {
		const struct opt_value *v = &o->values[i];
		char text[96];

		if (v->type == type)
			continue;
		/* Quote the argument as written: `Percentile "99"` is a string to collectd. */
		if (v->type == OPT_STRING)
			snprintf(text, sizeof(text), "\"%s\"", v->string);
		else if (v->type == OPT_NUMBER)
			snprintf(text, sizeof(text), "%g", v->number);
		else
			snprintf(text, sizeof(text), "%s", v->boolean ? "true" : "false");
		snprintf(err, errlen, "option \"%s\": argument %d (%s) is %s, expected %s%s", o->key, i + 1, text,
			 type_name(v->type), type_name(type),
			 type == OPT_STRING ? " (put it in double quotes)" : v->type == OPT_STRING ? " (remove the quotes)" : "");
		return -1;
	}
	return 0;
}

int opt_expect_strings(const struct option *o, int min_values, char *err, size_t errlen)
{
	return expect_type(o, OPT_STRING, min_values, 0, err, errlen);
}

int opt_expect_numbers(const struct option *o, int min_values, int max_values, char *err, size_t errlen)
{
	return expect_type(o, OPT_NUMBER, min_values, max_values, err, errlen);
}

int opt_get_boolean(const struct option *o, bool *out, char *err, size_t errlen)
{
	if (o->nvalues == 1 && o->values[0].type == OPT_STRING) {
		/* collectd accepts quoted "true"/"false" too */
		if (!strcasecmp(o->values[0].string, "true") || !strcasecmp(o->values[0].string, "yes")) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(o->values[0].string, "false") || !strcasecmp(o->values[0].string, "no")) {
			*out = false;
			return 0;
		}
	}
	if (expect_type(o, OPT_BOOLEAN, 1, 1, err, errlen))
		return -1;
	*out = o->values[0].boolean;
	return 0;
}

void opt_refuse_unknown(const char *key, const char *const *keys, const char *valid, char *err, size_t errlen)
{
	char list[OPT_KEY_LIST_MAX];
	size_t used = 0;

	list[0] = '\0';
	for (int i = 0; keys[i]; i++)
		text_appendf(list, sizeof(list), &used, "%s%s", used ? ", " : "", keys[i]);
	snprintf(err, errlen, "unknown option \"%s\"; %s: %s", key, valid, list);
}

/* In an opt_refuse_unknown() message: where its list names `key`, or NULL. */
static char *refused_list_entry(char *err, const char *key)
{
	char *at = strstr(err, "unknown option \"");
	size_t n = strlen(key);

	at = at ? strchr(at + strlen("unknown option \""), '"') : NULL; /* the refused key's end */
	if (!at || strncmp(at, "\"; valid", strlen("\"; valid")) || !(at = strstr(at, ": ")))
		return NULL;
	for (at += 2; at; at = strstr(at, ", "), at = at ? at + 2 : NULL)
		if (!strncmp(at, key, n) && (at[n] == ',' || at[n] == '\0'))
			return at;
	return NULL;
}

void opt_refusal_add_keys(char *err, size_t errlen, const char *const *keys, const char *beside)
{
	char *at = refused_list_entry(err, beside);
	char *rest = at ? strdup(at) : NULL;
	size_t used;

	if (!rest)
		return;
	used = (size_t)(at - err);
	*at = '\0';
	for (int i = 0; keys[i]; i++)
		text_appendf(err, errlen, &used, "%s, ", keys[i]);
	text_appendf(err, errlen, &used, "%s", rest);
	free(rest);
}
