/* A witness on a module's tracepoint: a second, minimal program that counts every firing,
 * so that a firing the kernel did not hand to the module's program is a value
 * (libcore/engine/witness.h explains the count and how it is read).
 *
 * Per probe point (its index in the module's points table, `point`) and per CPU, two
 * counters: `ran`, added by the module's program at its first instruction
 * (witness_count_ran), and `fired`, added by the witness program, which the engine
 * attaches after the module's own (probe.h, WITNESSED_TRACEPOINT_CANDIDATES): a tracepoint
 * calls its programs in the order they were attached, so for every event the run is
 * counted before the firing. Include after <bpf/bpf_helpers.h>, with WITNESS_POINTS
 * defined as the number of points (the map `witness` has a row for each).
 *
 * Atomic adds although the rows are per-CPU: an interrupt can fire the same tracepoint on
 * the same CPU between a plain add's load and store. */
#ifndef EBPF_WITNESS_BPF_H
#define EBPF_WITNESS_BPF_H

/* `fired` first: the kernel copies a per-CPU value to user space in field order, so a read
 * that sees an event's firing also sees its run (x86 orders stores and loads). */
struct witness_count {
	__u64 fired;
	__u64 ran;
};

#ifndef WITNESS_POINTS
#error "define WITNESS_POINTS, the module's probe points, before including witness.bpf.h"
#endif

/* `Witness false` (or a module whose witnesses are opt-in, module.h): the engine loads no
 * witness program and sets this false, so the verifier drops the run count too. */
const volatile bool witness_on = true;

/* The module's witness rows, one per probe point of its points table. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WITNESS_POINTS);
	__type(key, __u32);
	__type(value, struct witness_count);
} witness SEC(".maps");

static __always_inline void witness_add(__u32 point, bool fired)
{
	struct witness_count *w = bpf_map_lookup_elem(&witness, &point);

	if (w)
		__sync_fetch_and_add(fired ? &w->fired : &w->ran, 1);
}

/* First in the module's tp_btf and raw_tp programs of a witnessed point. */
static __always_inline void witness_count_ran(__u32 point)
{
	if (witness_on)
		witness_add(point, false);
}

/* The witness programs of one point, `<prog>_btf` and `<prog>_raw` as the candidates name
 * them ("witness_" prog), on `tracepoint` (its name without the system: "sched_switch").
 * The classic tracepoint method has none: the kernel runs every program of a classic
 * tracepoint event under one guard (trace_call_bpf), so a witness would be skipped with
 * the module's program, and such skips are counted as recursion misses. */
#define WITNESS_PROGRAMS(prog, tracepoint, point)                     \
	SEC("tp_btf/" tracepoint)                                     \
	int witness_##prog##_btf(void *ctx)                           \
	{                                                             \
		witness_add(point, true);                             \
		return 0;                                             \
	}                                                             \
	SEC("raw_tp/" tracepoint)                                     \
	int witness_##prog##_raw(void *ctx)                           \
	{                                                             \
		witness_add(point, true);                             \
		return 0;                                             \
	}

/* TP_ALL_FLAVOURS (entry_points.bpf.h) of a witnessed point: the tp_btf and raw_tp
 * programs count their run first, and the point's witness programs are defined beside. */
#define WITNESSED_TP_ALL_FLAVOURS(category, tp, name, point, call)                        \
	TP_BTF_RAW(#tp, name##_btf, name##_raw, witness_count_ran(point); call)            \
	SEC("tp/" #category "/" #tp) int name##_tp(void *ctx) { call; return 0; }          \
	WITNESS_PROGRAMS(name, #tp, point)

#endif
