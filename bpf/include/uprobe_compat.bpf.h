/* BPF_UPROBE and BPF_URETPROBE for libbpf before 1.2 (Debian 12 has 1.1), which has
 * BPF_KPROBE and BPF_KRETPROBE but not these: without them `int BPF_UPROBE(gai_enter)`
 * compiles as an old-style function named BPF_UPROBE, which even attaches, and a second one
 * fails as its redefinition. They are libbpf's own definitions (the context of a uprobe is the
 * pt_regs of a kprobe). collectd-ebpf-cc includes this file first, and only when the
 * bpf_tracing.h the program gets lacks them; macros expand where they are used, so BPF_KPROBE
 * is bpf_tracing.h's by then. */
#ifndef EBPF_UPROBE_COMPAT_BPF_H
#define EBPF_UPROBE_COMPAT_BPF_H

#ifndef BPF_UPROBE
#define BPF_UPROBE(name, args...)  BPF_KPROBE(name, ##args)
#endif
#ifndef BPF_URETPROBE
#define BPF_URETPROBE(name, args...)  BPF_KRETPROBE(name, ##args)
#endif

#endif
