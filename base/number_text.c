#include "base/number_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *number_text(double v, char *buf, size_t len)
{
	/* 17 significant digits always round-trip an IEEE double; start at %g's 6 so that
	 * the names users already graph stay the same. */
	for (int digits = 6; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

const char *number_split_hint(double prev, double next, char *buf, size_t len)
{
	char a[32], b[32];

	number_text(prev, a, sizeof(a));
	number_text(next, b, sizeof(b));
	buf[0] = '\0';
	/* The scanner's float is digits, '.', digits: the second number's text starts at '.' */
	if (next > 0 && next < 1 && !strncmp(b, "0.", 2) && strchr(a, '.') && !strpbrk(a, "eE"))
		snprintf(buf, len, "; collectd reads %s%s as the two numbers %s and %s", a, b + 1, a, b + 1);
	return buf;
}
