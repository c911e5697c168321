/* Logging: front-ends route messages to their own log (collectd's plugin_log, stderr for
 * tools and tests). No libbpf here, so that the subagent and the terminal view can link it;
 * libbpf's own messages come in through libcore/engine/libbpf_log.h. */
#ifndef EBPF_BASE_LOG_H
#define EBPF_BASE_LOG_H

#include <stdarg.h>
#include <stddef.h>

#include "base/text_rule.h"

enum ebpf_log_level { EBPF_LOG_ERROR, EBPF_LOG_WARNING, EBPF_LOG_NOTICE, EBPF_LOG_INFO, EBPF_LOG_DEBUG };

typedef void (*ebpf_log_fn)(enum ebpf_log_level level, const char *msg);

/* NULL restores the default (stderr, INFO and above). */
void ebpf_log_set_handler(ebpf_log_fn fn);
/* The message reaches the handler escaped by log_escape(): always one line. */
void ebpf_log(enum ebpf_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Copies in to out (len bytes) under base/text_rule.h's rule, form TEXT_LOG: newline, tab,
 * CR and backslash as \n \t \r \\, every other refused byte (C0 and C1 controls, DEL, bidi
 * controls, U+2028/U+2029, bytes that are not UTF-8) as \xNN, valid UTF-8 kept; so that text
 * from outside (a process name is anyone's to choose) cannot start a log line of its own or
 * drive a terminal. Cut at a whole escape, never overrun. */
void log_escape(char *out, size_t len, const char *in);
/* The message of fmt (at most 1023 bytes) into out under base/text_rule.h's rule in form:
 * TEXT_LOG is log_escape(); a message that quotes the user's own configuration is written
 * TEXT_SHOW, its backslashes kept (a regexp's \d, systemd's \x2d), as the plugin's
 * configuration errors and collectd-ebpf-import's messages are. */
void log_vformat(char *out, size_t len, enum text_form form, const char *fmt, va_list ap);

#endif
