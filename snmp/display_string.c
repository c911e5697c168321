#include "display_string.h"

#include <string.h>

#define MARKER "..."

void display_string(char dst[DISPLAY_STRING_MAX + 1], const char *src)
{
	size_t n = strlen(src);

	if (n <= DISPLAY_STRING_MAX) {
		memcpy(dst, src, n + 1);
		return;
	}
	n = DISPLAY_STRING_MAX - strlen(MARKER);
	/* src[n] is the first byte left out; a continuation byte (10xxxxxx) there means the
	 * character it belongs to started earlier: leave that one out whole. */
	while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
		n--;
	memcpy(dst, src, n);
	memcpy(dst + n, MARKER, sizeof(MARKER));
}
