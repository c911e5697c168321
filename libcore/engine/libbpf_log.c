#include "libcore/engine/libbpf_log.h"

#include "base/log.h"

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static __thread char last_libbpf_warning[512];

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
