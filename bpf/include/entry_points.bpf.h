/* A module's thin entry points, one line per probe point and flavour pair: they differ
 * only in section, name and arguments, and call one __always_inline worker (doc/
 * contributing.md, Adding a module). Macros, because a program is a definition. Include
 * after <bpf/bpf_tracing.h>; the names are the programs' (user space finds them by name). */
#ifndef EBPF_ENTRY_POINTS_BPF_H
#define EBPF_ENTRY_POINTS_BPF_H

/* <name>_fentry and <name>_kprobe at one kernel function, both with the function's leading
 * arguments as declared after call (none, or those they read), both doing call. */
#define FENTRY_KPROBE(name, call, ...)                                                        \
	SEC("fentry") int BPF_PROG(name##_fentry, ##__VA_ARGS__) { call; return 0; }          \
	SEC("kprobe") int BPF_KPROBE(name##_kprobe, ##__VA_ARGS__) { call; return 0; }

/* <name>_fexit and <name>_kretprobe at one kernel function's return, both doing call with
 * its return value `ret` of ret_type: fexit after the function's arguments, declared
 * after ret_type (all of them up to the one it reads). */
#define FEXIT_KRETPROBE(name, call, ret_type, ...)                                            \
	SEC("fexit") int BPF_PROG(name##_fexit, __VA_ARGS__, ret_type ret) { call; return 0; } \
	SEC("kretprobe") int BPF_KRETPROBE(name##_kretprobe, ret_type ret) { call; return 0; }

/* tp_btf and raw_tp programs btf and raw at tracepoint tp, both with its typed arguments
 * as declared after call, both doing call (ctx is the raw argument array in both). */
#define TP_BTF_RAW(tp, btf, raw, call, ...)                                                   \
	SEC("tp_btf/" tp) int BPF_PROG(btf, ##__VA_ARGS__) { call; return 0; }                \
	SEC("raw_tp/" tp) int BPF_PROG(raw, ##__VA_ARGS__) { call; return 0; }

/* <name>_btf, <name>_raw and <name>_tp at tracepoint category:tp, all doing call, which
 * reads no argument. */
#define TP_ALL_FLAVOURS(category, tp, name, call)                                             \
	TP_BTF_RAW(#tp, name##_btf, name##_raw, call)                                         \
	SEC("tp/" #category "/" #tp) int name##_tp(void *ctx) { call; return 0; }

#endif
