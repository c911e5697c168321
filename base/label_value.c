#include "base/label_value.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define HASH_SUFFIX_LEN 9 /* "~" and 8 hex digits */

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

char *label_value_safe(const char *in, char out[LABEL_VALUE_MAX])
{
	const char *s = in[0] == '/' && in[1] ? in + 1 : in;
	size_t n = strlen(s), keep = n;

	if (!strcmp(in, "/")) {
		strcpy(out, "root");
		return out;
	}
	if (n == 0) {
		strcpy(out, "empty");
		return out;
	}
	if (n > LABEL_VALUE_MAX - 1)
		keep = LABEL_VALUE_MAX - 1 - HASH_SUFFIX_LEN;
	for (size_t i = 0; i < keep; i++) {
		unsigned char ch = (unsigned char)s[i];

		out[i] = (ch == '/' || ch < 0x20 || ch == 0x7f) ? '_' : (char)ch;
	}
	out[keep] = '\0';
	if (keep < n)
		snprintf(out + keep, LABEL_VALUE_MAX - keep, "~%08x", fnv1a(in));
	return out;
}
