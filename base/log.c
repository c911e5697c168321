#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static ebpf_log_fn handler;

void ebpf_log_set_handler(ebpf_log_fn fn)
{
	handler = fn;
}

void log_escape(char *out, size_t len, const char *in)
{
	size_t used = 0;

	if (len == 0)
		return;
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		char esc[5];

		if (c == '\n' || c == '\t' || c == '\r' || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : '\\');
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		else
			esc[0] = (char)c, esc[1] = '\0';
		if (used + strlen(esc) >= len)
			break; /* cut whole escapes only */
		memcpy(out + used, esc, strlen(esc));
		used += strlen(esc);
	}
	out[used] = '\0';
}

/* Every message is escaped here, once, rather than at each call: messages quote what the
 * kernel hands us (process names anyone can set, libbpf's verifier log, function names),
 * and one forgotten call site would be one forged log line. */
void ebpf_log(enum ebpf_log_level level, const char *fmt, ...)
{
	char msg[1024], escaped[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_escape(escaped, sizeof(escaped), msg);
	if (handler)
		handler(level, escaped);
	else if (level <= EBPF_LOG_INFO)
		fprintf(stderr, "ebpf: %s\n", escaped);
}
