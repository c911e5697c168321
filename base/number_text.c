#include "base/number_text.h"

#include <stdio.h>
#include <stdlib.h>

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
