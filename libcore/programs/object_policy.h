/* What a user's BPF object may do: checked on its bytes before anything is loaded.
 *
 * By default only tracing program types load (kprobe/uprobe/usdt/ksyscall, fentry/fexit/
 * tp_btf, tracepoint, raw_tp): they observe. Types that act on packets, sockets, cgroups or
 * security decisions, fentry's fmod_ret (which rewrites a function's return) and BPF
 * iterators need `AllowProgramType`. Helpers that change the system (bpf_probe_write_user,
 * bpf_override_return, bpf_send_signal, bpf_send_signal_thread, bpf_sys_bpf) and every kfunc
 * are refused unless `AllowHelper` names them, and so is any call instruction that names
 * nothing (a raw kfunc call by BTF id). Calls are read twice: from every executable section
 * of the ELF file, subprograms included, before anything is opened; and from what libbpf
 * hands the kernel after its relocations (bpf_program__insns() after load), before anything
 * is attached. Checking an object is linear in its size and bounded (sections, instructions,
 * relocations below), so a large hostile object costs milliseconds, not hours.
 */
#ifndef EBPF_PROGRAMS_OBJECT_POLICY_H
#define EBPF_PROGRAMS_OBJECT_POLICY_H

#include <stdbool.h>
#include <stddef.h>

struct bpf_object;

#define POLICY_MAX_ALLOWED 16

/* What an object may hold for collectd to check it (the largest libbpf-tools object has
 * about 60 sections, 20,000 instructions and 3,000 relocations). The kernel loads at most
 * 1 million instructions per program. */
#define OBJECT_MAX_SECTIONS 10000u
#define OBJECT_MAX_INSNS 1000000u
#define OBJECT_MAX_RELOCATIONS 1000000u

struct object_policy {
	/* Extra program types, by libbpf's name ("xdp", "lsm", "raw_tracepoint_writable") or
	 * "fmod_ret". */
	const char *program_types[POLICY_MAX_ALLOWED];
	int nprogram_types;
	/* Refused helpers or kfuncs allowed anyway, by name ("bpf_send_signal", "bpf_rcu_read_lock"). */
	const char *helpers[POLICY_MAX_ALLOWED];
	int nhelpers;
};

/* Program types of every program of an opened object, autoload on or off (SEC("?...")),
 * except those left_out(name, ctx) says are left out (Skip). 0, or -1 with an error naming
 * the program, its type and the option that would allow it. */
int object_policy_check_types(struct bpf_object *obj, const struct object_policy *pol,
			      bool (*left_out)(const char *program, void *ctx), void *ctx, const char *file,
			      char *err, size_t errlen);

/* Helper and kfunc calls anywhere in the ELF bytes. 0, or -1 with an error naming the call,
 * the section it is in and the option that would allow it, or the bound an object exceeds. */
int object_policy_check_calls(const void *elf, size_t len, const struct object_policy *pol, const char *file,
			      char *err, size_t errlen);

/* The same on what the kernel got: the final instructions of every loaded program of obj.
 * 0, or -1 with an error naming the program, the instruction and the call. */
int object_policy_check_loaded(struct bpf_object *obj, const struct object_policy *pol, const char *file,
			       char *err, size_t errlen);

#endif
