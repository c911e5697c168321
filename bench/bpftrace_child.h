/* bpftrace as a child process, for comparing against a tool people already use. */
#ifndef EBPF_BENCH_BPFTRACE_CHILD_H
#define EBPF_BENCH_BPFTRACE_CHILD_H

#include <stddef.h>
#include <sys/types.h>

struct bpftrace_child {
	pid_t pid;
	int out; /* read end of the child's stdout + stderr */
};

/* Runs `bpftrace -B none -e script` and returns 0 once its probes are attached, which it
 * signals by printing a line starting with `ready` (the script must print it from BEGIN);
 * -1 with the reason in err, the child reaped. */
int bpftrace_start(struct bpftrace_child *c, const char *bpftrace, const char *script, int timeout_ms,
		   char *err, size_t errlen);
/* configure passes its BPFTRACE through `make bench`: a path, or "no"; run by hand, a
 * bench looks in PATH. Mounts tracefs if /sys/kernel/tracing/events/<event_dir> is
 * missing. The program to run, or NULL with the reason in why. */
const char *bpftrace_find(const char *event_dir, char *why, size_t len);
/* Interrupts it, discards the maps it prints on exit, reaps it (SIGKILL if it hangs). */
void bpftrace_stop(struct bpftrace_child *c);

#endif
