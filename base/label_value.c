#include "base/label_value.h"

#include "base/text_hash.h"
#include "base/text_rule.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define HASH_SUFFIX_LEN 9 /* "~" and 8 hex digits */

char *label_value_safe(const char *in, char out[LABEL_VALUE_MAX])
{
	const char *s = in[0] == '/' && in[1] ? in + 1 : in;

	if (!strcmp(in, "/")) {
		strcpy(out, "root");
		return out;
	}
	if (!*s) {
		strcpy(out, "empty");
		return out;
	}
	/* base/text_rule.h's rule, TEXT_NAME: a refused unit is '_'; a long value is cut at a
	 * whole character that leaves room for the hash. */
	if (text_clean(out, LABEL_VALUE_MAX, s, TEXT_NAME) > LABEL_VALUE_MAX - 1) {
		size_t keep;

		text_clean(out, LABEL_VALUE_MAX - HASH_SUFFIX_LEN, s, TEXT_NAME);
		keep = strlen(out);
		snprintf(out + keep, LABEL_VALUE_MAX - keep, "~%08x", text_hash32(in));
	}
	for (char *p = out; (p = strchr(p, '/')); p++)
		*p = '_';
	return out;
}

char *label_value_word(const char *in, char out[LABEL_VALUE_MAX])
{
	label_value_safe(in, out);
	for (char *p = out; (p = strpbrk(p, " :#")); p++)
		*p = '_';
	return out;
}
