/* libbpf's own messages, routed into ebpf_log (base/log.h): kept apart from the log itself
 * so that what links the log without libbpf (the subagent, the terminal view) can. */
#ifndef EBPF_ENGINE_LIBBPF_LOG_H
#define EBPF_ENGINE_LIBBPF_LOG_H

/* Routes libbpf's own messages into ebpf_log at DEBUG and remembers the last warning of
 * the calling thread, which libcore/engine/probe.c quotes when a load or attach fails. */
void ebpf_log_capture_libbpf(void);
const char *ebpf_log_last_libbpf_warning(void);
void ebpf_log_clear_libbpf_warning(void);

#endif
