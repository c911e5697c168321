/* Facts about the running kernel read from its BTF (/sys/kernel/btf/vmlinux) by user
 * space, before a BPF object is loaded: tracepoint signatures and enumerator values that
 * CO-RE cannot relocate on its own (anonymous enums, argument counts of tracepoints).
 * Decided from BTF, never from the kernel version. */
#ifndef EBPF_CORE_BTF_FACTS_H
#define EBPF_CORE_BTF_FACTS_H

#include <stdbool.h>

struct btf;

/* The running kernel's BTF, or NULL (errno set). Free with btf_facts_close(). */
struct btf *btf_facts_open(void);
void btf_facts_close(struct btf *btf);

/* Arguments of tracepoint `name` as tp_btf/raw_tp programs see them (the parameters of
 * the btf_trace_<name> typedef without its leading void *), or -1 if BTF has no such
 * tracepoint. */
int btf_tracepoint_nargs(const struct btf *btf, const char *name);

/* True if the kernel's BTF has a struct called `name` (a tracepoint's record type, say). */
bool btf_has_struct(const struct btf *btf, const char *name);

/* The value of enumerator `name` in any enum (named or not) of the kernel's BTF: true and
 * *value set, or false if no enum has it. */
bool btf_enum_value(const struct btf *btf, const char *name, long long *value);

#endif
