#include "display_string.h"

#include "base/text_rule.h"

#include <string.h>

#define MARKER "..."

void display_string(char dst[DISPLAY_STRING_MAX + 1], const char *src)
{
	size_t n;

	if (text_clean(dst, DISPLAY_STRING_MAX + 1, src, TEXT_SHOW) <= DISPLAY_STRING_MAX)
		return;
	n = DISPLAY_STRING_MAX - strlen(MARKER);
	if (strlen(dst) < n) /* cut before an escape that did not fit */
		n = strlen(dst);
	/* dst[n] is the first byte left out; a continuation byte (10xxxxxx) there means the
	 * character it belongs to started earlier: leave that one out whole. */
	while (n > 0 && ((unsigned char)dst[n] & 0xc0) == 0x80)
		n--;
	memcpy(dst + n, MARKER, sizeof(MARKER));
}
