#include "log.h"

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static ebpf_log_fn handler;
static __thread char last_libbpf_warning[512];

void ebpf_log_set_handler(ebpf_log_fn fn)
{
	handler = fn;
}

void ebpf_log(enum ebpf_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (handler)
		handler(level, msg);
	else if (level <= EBPF_LOG_INFO)
		fprintf(stderr, "ebpf: %s\n", msg);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char msg[1024];
	size_t len;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = strlen(msg);
	while (len && msg[len - 1] == '\n')
		msg[--len] = '\0';
	/* libbpf ends a failure with a generic "failed to load object" line; the line before
	 * it names the real cause, so keep the first warning after each clear. */
	if (level == LIBBPF_WARN && last_libbpf_warning[0] == '\0')
		snprintf(last_libbpf_warning, sizeof(last_libbpf_warning), "%s", msg);
	ebpf_log(EBPF_LOG_DEBUG, "libbpf: %s", msg);
	return 0;
}

void ebpf_log_capture_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

const char *ebpf_log_last_libbpf_warning(void)
{
	return last_libbpf_warning;
}

void ebpf_log_clear_libbpf_warning(void)
{
	last_libbpf_warning[0] = '\0';
}
