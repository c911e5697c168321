// SPDX-License-Identifier: GPL-2.0
/* signals module: signals delivered, per signal number (signal:signal_deliver, which fires
 * in the receiving task when it takes the signal: a handler runs, or the default action
 * such as a core dump on SIGSEGV). A crash shows as a SEGV, BUS, FPE, ILL or ABRT count
 * without a core file or a log line to find.
 *
 * One probe point in three attach flavours; user space loads one. The receiving task is
 * the current task, so the tests' filter is the usual tgid check.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include "signals.h"
#define WITNESS_POINTS SIGNALS_POINTS
#include "include/witness.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid = 0; /* 0: every process; tests set their own */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SIGNALS_ROWS);
	__type(key, __u32);
	__type(value, __u64);
} delivered SEC(".maps");

/* The classic tracepoint's record (tracefs events/signal/signal_deliver/format), the same
 * on every kernel since 3.x. */
struct signal_deliver_record {
	__u64 common;
	int sig;
	int errno_;
	int code;
	unsigned long sa_handler;
	unsigned long sa_flags;
};

static __always_inline void on_deliver(int sig)
{
	if (sig > 0 && sig < SIGNALS_ROWS && tgid_filter_passes(filter_tgid))
		add_to_row(&delivered, (__u32)sig, 1);
}

/* tp_btf and raw_tp: signal_deliver(int sig, struct kernel_siginfo *info, struct k_sigaction *ka) */
SEC("tp_btf/signal_deliver")
int deliver_btf(unsigned long long *ctx)
{
	witness_count_ran(SIGNALS_POINT_DELIVER);
	on_deliver((int)ctx[0]);
	return 0;
}

SEC("raw_tp/signal_deliver")
int deliver_raw(unsigned long long *ctx)
{
	witness_count_ran(SIGNALS_POINT_DELIVER);
	on_deliver((int)ctx[0]);
	return 0;
}

/* What the kernel did not hand to deliver_btf / deliver_raw: "untraced" (witness.h). */
WITNESS_PROGRAMS(deliver, "signal_deliver", SIGNALS_POINT_DELIVER)

SEC("tp/signal/signal_deliver")
int deliver_tp(struct signal_deliver_record *ctx)
{
	on_deliver(ctx->sig);
	return 0;
}
