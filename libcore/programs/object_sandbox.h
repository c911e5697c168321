/* Checking a user's BPF object where a crash cannot take collectd down.
 *
 * libbpf 1.1 trusts more of an object than it checks: one byte of corrupt .BTF makes
 * bpf_object__open_mem() read out of bounds and die (SIGSEGV) inside collectd's config
 * callback, taking every module with it. So the whole check of a user's object runs once
 * in a forked child first: if the child dies, the object is refused with one error naming
 * it and the signal, and the parent never opens it; if the child lives, the parent runs
 * the same check on the same bytes (libbpf's open is deterministic: it asks the kernel
 * nothing). The child is also bounded in time (OBJECT_CHECK_SECONDS), so an object no
 * check finishes on is refused too.
 */
#ifndef EBPF_PROGRAMS_OBJECT_SANDBOX_H
#define EBPF_PROGRAMS_OBJECT_SANDBOX_H

#include <stddef.h>

#define OBJECT_CHECK_SECONDS 30u

/* Runs check(ctx) in a child process. 0 if it returned (whatever it returned: the caller
 * runs it again to learn the answer), -1 with err naming `file` if the child died by a
 * signal, ran out of time, or could not be started. */
int object_check_contained(int (*check)(void *ctx), void *ctx, const char *file, char *err, size_t errlen);

#endif
