/* The one size of an error buffer: every `char err[ERR_MAX]` (or `why`, a reason a message
 * quotes) handed on as err/errlen, and every error text kept for later (a module's
 * last_error). Room for a path (PATH_MAX, 4096 bytes) and the reason around it, the longest
 * message there is (a snapshot's path and what its parser refused).
 *
 * Texts that are not error buffers keep their own sizes: a log line (base/log.c and libbpf's
 * lines and last warning in libcore/engine/libbpf_log.c: 1024 bytes, where collectd's
 * plugin_log cuts a line anyway), a field of the snapshot file or of the subagent's status
 * (snapshot_module.error, snapshot_cache.error: their bound is the format's), an event's
 * text (EBPF_EVENT_TEXT_LEN). */
#ifndef EBPF_BASE_ERR_MAX_H
#define EBPF_BASE_ERR_MAX_H

#define ERR_MAX 4600

#endif
