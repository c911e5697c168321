#include "base/text_append.h"

#include <stdarg.h>
#include <stdio.h>

void text_appendf(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len == 0 || *used >= len - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[*used] = '\0'; /* an encoding error: append nothing */
		return;
	}
	*used = (size_t)n < len - *used ? *used + (size_t)n : len - 1;
}

void text_printf_cut(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
