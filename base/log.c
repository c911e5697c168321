#include "base/log.h"
#include "base/text_rule.h"

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
	if (len)
		text_clean(out, len, in, TEXT_LOG);
}

void log_vformat(char *out, size_t len, enum text_form form, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (len)
		text_clean(out, len, msg, form);
}

/* Every message is escaped here, once, rather than at each call: messages quote what the
 * kernel hands us (process names anyone can set, libbpf's verifier log, function names),
 * and one forgotten call site would be one forged log line. */
void ebpf_log(enum ebpf_log_level level, const char *fmt, ...)
{
	char escaped[2048];
	va_list ap;

	va_start(ap, fmt);
	log_vformat(escaped, sizeof(escaped), TEXT_LOG, fmt, ap);
	va_end(ap);
	if (handler)
		handler(level, escaped);
	else if (level <= EBPF_LOG_INFO)
		fprintf(stderr, "ebpf: %s\n", escaped);
}
