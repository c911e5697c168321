/* Logging: front-ends route messages to their own log (collectd's plugin_log, stderr for
 * tools and tests). No libbpf here, so that the subagent and the terminal view can link it;
 * libbpf's own messages come in through libcore/engine/libbpf_log.h. */
#ifndef EBPF_BASE_LOG_H
#define EBPF_BASE_LOG_H

#include <stddef.h>

enum ebpf_log_level { EBPF_LOG_ERROR, EBPF_LOG_WARNING, EBPF_LOG_NOTICE, EBPF_LOG_INFO, EBPF_LOG_DEBUG };

typedef void (*ebpf_log_fn)(enum ebpf_log_level level, const char *msg);

/* NULL restores the default (stderr, INFO and above). */
void ebpf_log_set_handler(ebpf_log_fn fn);
/* The message reaches the handler escaped by log_escape(): always one line. */
void ebpf_log(enum ebpf_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Copies in to out (len bytes), writing newline, tab, CR and backslash as \n \t \r \\ and
 * other control characters as \xNN, so that text from outside (a process name is anyone's to
 * choose) cannot start a log line of its own or drive a terminal. Cut, never overrun. */
void log_escape(char *out, size_t len, const char *in);

#endif
