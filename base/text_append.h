/* Building a list in a fixed buffer, one item at a time. `used += snprintf(...)` overruns
 * the buffer once the list outgrows it (snprintf returns what it would have written, and
 * `len - used` then wraps); this never writes past len, and a cut list stays terminated. */
#ifndef EBPF_BASE_TEXT_APPEND_H
#define EBPF_BASE_TEXT_APPEND_H

#include <stddef.h>

/* Appends the formatted text at buf + *used (buf holds a string of length *used) and
 * advances *used; when it does not fit the text is cut, *used becomes len - 1 and later
 * calls append nothing. */
void text_appendf(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
