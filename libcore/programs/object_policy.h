/* What a user's BPF object may do: checked on its bytes before anything is loaded.
 *
 * By default only tracing program types load (kprobe/uprobe/usdt/ksyscall, fentry/fexit/
 * tp_btf, tracepoint, raw_tp, perf_event): they observe. Types that act on packets, sockets,
 * cgroups or security decisions, and fentry's fmod_ret (which rewrites a function's return),
 * need `AllowProgramType`. Helpers that change the system (bpf_probe_write_user,
 * bpf_override_return, bpf_send_signal, bpf_send_signal_thread, bpf_sys_bpf) and every kfunc
 * are refused unless `AllowHelper` names them. Calls are read from every executable section of
 * the ELF file, subprograms included, not from what libbpf chooses to show.
 */
#ifndef EBPF_PROGRAMS_OBJECT_POLICY_H
#define EBPF_PROGRAMS_OBJECT_POLICY_H

#include <stddef.h>

struct bpf_object;

#define POLICY_MAX_ALLOWED 16

struct object_policy {
	/* Extra program types, by libbpf's name ("xdp", "lsm", "raw_tracepoint_writable") or
	 * "fmod_ret". */
	const char *program_types[POLICY_MAX_ALLOWED];
	int nprogram_types;
	/* Refused helpers or kfuncs allowed anyway, by name ("bpf_send_signal", "bpf_rcu_read_lock"). */
	const char *helpers[POLICY_MAX_ALLOWED];
	int nhelpers;
};

/* Program types of the programs that will load (autoload on) in an opened object. 0, or -1
 * with an error naming the program, its type and the option that would allow it. */
int object_policy_check_types(struct bpf_object *obj, const struct object_policy *pol, const char *file,
			      char *err, size_t errlen);

/* Helper and kfunc calls anywhere in the ELF bytes. 0, or -1 with an error naming the call,
 * the section it is in and the option that would allow it. */
int object_policy_check_calls(const void *elf, size_t len, const struct object_policy *pol, const char *file,
			      char *err, size_t errlen);

#endif
