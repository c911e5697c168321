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

/* snprintf for a text that may be cut: an error that quotes another error buffer (one size,
 * ERR_MAX, so a full one cannot fit behind a prefix), or a field shorter than the text it
 * copies. The same result, without asking the compiler to prove that nothing is cut. */
void text_printf_cut(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
