/* Does the running kernel have a function we can hook? Checked cheaply before a load is
 * tried, the way libbpf-tools' kprobe_exists and fentry_can_attach do:
 *
 *   kprobe: the name is in tracefs' available_filter_functions (functions ftrace can
 *           patch), else in /proc/kallsyms;
 *   fentry: the name is a BTF function of vmlinux or of a loaded module.
 *
 * A source that cannot be read answers "maybe" (true): the load or attach that follows is
 * the real test. Each source is read once, on first use, and kept until kernel_funcs_free.
 */
#ifndef EBPF_CORE_KERNEL_FUNCS_H
#define EBPF_CORE_KERNEL_FUNCS_H

#include <stdbool.h>

struct kernel_funcs;

struct kernel_funcs *kernel_funcs_new(void);
/* A kprobe on `name` can be tried. */
bool kernel_funcs_traceable(struct kernel_funcs *kf, const char *name);
/* An fentry/fexit on `name` can be tried. */
bool kernel_funcs_in_btf(struct kernel_funcs *kf, const char *name);
/* True if the kernel has BTF for any loaded module (5.11+, CONFIG_DEBUG_INFO_BTF_MODULES):
 * without it, fentry cannot reach a module's functions even where kprobes can. */
bool kernel_funcs_have_module_btf(struct kernel_funcs *kf);
void kernel_funcs_free(struct kernel_funcs *kf);

#endif
