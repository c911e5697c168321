// SPDX-License-Identifier: GPL-2.0
/* tcp module: retransmissions (skbs resent), resets sent and received, and the connect latency
 * distribution (SYN sent to established), optionally broken down by a capped list of
 * local or remote ports, and optionally per cgroup of the socket (By "cgroup").
 *
 * Four probe points, each in three attach flavours (tp_btf, raw_tp, classic tracepoint);
 * user space loads one flavour per point. Every flavour reduces its arguments to socket
 * and skb pointers and calls the same always-inline worker, which reads the ports through
 * CO-RE. Each point has a witness (include/witness.bpf.h) for its tp_btf and raw_tp
 * flavours: events in softirq and timer context are where the kernel was seen to skip a
 * program without a count.
 */
#include "include/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include "include/counting.bpf.h"
#include "include/hist_row.bpf.h"
#include "include/start_time.bpf.h"
#include "include/cgroup_key.bpf.h"
#include "include/cgroup_hist.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "tcp.h"

#define WITNESS_POINTS TCP_POINTS
#include "include/witness.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define TCP_ESTABLISHED 1
#define TCP_SYN_SENT 2
#define PROTO_TCP 6

/* Set by user space before load. */
const volatile __u32 filter_tgid = 0;         /* tests: only connects this process starts */
const volatile __u8 port_mode = TCP_PORTS_NONE;
const volatile __u8 port_row[65536];         /* 0: "other"; else the port's row */
const volatile bool retransmit_has_err = false; /* btf_trace_tcp_retransmit_skb has `err` */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* resized by user space to the number of rows */
	__type(key, __u32);
	__type(value, struct tcp_counts);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* resized like `counts` */
	__uint(key_size, sizeof(__u32));
	/* Sized by user space for its precision (hist_row.h): no BTF types to disagree. */
	__uint(value_size, sizeof(struct hist_row));
} connect_latency SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TCP_STAT_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* SYN_SENT start times by socket address. Every transition out of SYN_SENT deletes the
 * entry, so entries live for one handshake; a full map is counted, never evicts. */
START_HASH_MAP(connect_start, __u64, TCP_CONNECT_START_CAP);

/* ---- By "cgroup": the same values per cgroup of the socket (cgroup_key.bpf.h) ----------- */

/* Keyed by (cgroup, port row); sized by user space and created only with By "cgroup", as
 * cgroup_zero (one zeroed row, what new rows are inserted from) and cgroup_full (events no
 * row could take). */
CGROUP_COUNTS_MAP(cgroup_counts, struct tcp_cgroup_counts);
CGROUP_HIST_MAP(cgroup_latency);
CGROUP_AUX_MAPS(struct hist_row);

/* The row of (the socket's cgroup, port row) in `map`; NULL without a cgroup (no socket, or
 * one that carries none) or room. */
static __always_inline void *sock_cgroup_row(void *map, const struct sock *sk, __u32 row)
{
	struct cgroup_row_key key = { .cgroup = sock_cgroup_at_depth(sk), .row = row };
	void *zero;

	if (!key.cgroup)
		return NULL;
	zero = cgroup_zero_row();
	return zero ? cgroup_row(map, &key, zero, &cgroup_full) : NULL;
}

static __always_inline void count_stat(__u32 which)
{
	add_to_row(&stats, which, 1);
}

/* The row of one port. A port is 0..65535, but after a byte swap (bpf_ntohs) the verifiers
 * of Debian's 6.1 and 6.12 know no bound ("math between map_value pointer and register with
 * unbounded min value"): the mask restates it, and barrier_var keeps clang from dropping a
 * mask it can prove redundant. */
static __always_inline __u32 port_row_of(__u32 port)
{
	barrier_var(port);
	port &= 0xffff;
	return port_row[port];
}

/* Row of a connection: by its local or remote port, or 0. */
static __always_inline __u32 row_of_ports(__u16 lport, __u16 rport)
{
	if (port_mode == TCP_PORTS_LOCAL)
		return port_row_of(lport);
	if (port_mode == TCP_PORTS_REMOTE)
		return port_row_of(rport);
	return 0;
}

static __always_inline __u32 row_of_sock(const struct sock *sk)
{
	__u16 lport, rport;

	if (port_mode == TCP_PORTS_NONE || !sk)
		return 0;
	lport = BPF_CORE_READ(sk, __sk_common.skc_num);
	rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	return row_of_ports(lport, rport);
}

/* A reset answering a segment no socket wanted: the segment's destination is our port. */
static __always_inline __u32 row_of_incoming_skb(const struct sk_buff *skb)
{
	unsigned char *head;
	struct tcphdr th;
	__u16 off;

	if (port_mode == TCP_PORTS_NONE || !skb)
		return 0;
	head = BPF_CORE_READ(skb, head);
	off = BPF_CORE_READ(skb, transport_header);
	if (bpf_probe_read_kernel(&th, sizeof(th), head + off))
		return 0;
	return row_of_ports(bpf_ntohs(th.dest), bpf_ntohs(th.source));
}

/* ---- workers ------------------------------------------------------------------------ */

enum tcp_event { EV_RETRANSMIT, EV_RETRANSMIT_FAILED, EV_RESET_SENT, EV_RESET_RECEIVED };

static __always_inline void add_event(struct tcp_counts *c, enum tcp_event ev)
{
	switch (ev) {
	case EV_RETRANSMIT: counter_add(&c->retransmits, 1); break;
	case EV_RETRANSMIT_FAILED: counter_add(&c->retransmit_failures, 1); break;
	case EV_RESET_SENT: counter_add(&c->resets_sent, 1); break;
	case EV_RESET_RECEIVED: counter_add(&c->resets_received, 1); break;
	}
}

/* A reset sent without a socket (answering a segment no socket wanted) has no cgroup: it
 * counts host-wide only. */
static __always_inline void count_event(enum tcp_event ev, const struct sock *sk, const struct sk_buff *skb)
{
	__u32 row = sk ? row_of_sock(sk) : row_of_incoming_skb(skb);
	struct tcp_counts *c = bpf_map_lookup_elem(&counts, &row);
	struct tcp_cgroup_counts *cc;

	if (c)
		add_event(c, ev);
	if (!by_cgroup || !sk)
		return;
	cc = sock_cgroup_row(&cgroup_counts, sk, row);
	if (cc)
		add_event(&cc->counts, ev);
}

static __always_inline void on_retransmit(const struct sock *sk, const struct sk_buff *skb, int err)
{
	count_event(err ? EV_RETRANSMIT_FAILED : EV_RETRANSMIT, sk, skb);
}

static __always_inline void on_state(const struct sock *sk, int oldstate, int newstate, __u16 protocol)
{
	__u64 key = (__u64)(unsigned long)sk, start, delta;
	struct tcp_cgroup_counts *c;
	struct hist_row *h;
	__u32 row;

	if (protocol != PROTO_TCP)
		return;
	if (newstate == TCP_SYN_SENT) {
		if (!tgid_filter_passes(filter_tgid))
			return;
		start_hash_put(&connect_start, &key, bpf_ktime_get_ns(), &stats, TCP_STAT_CONNECT_START_LOST);
		return;
	}
	if (oldstate != TCP_SYN_SENT)
		return;
	/* Leaving SYN_SENT, whichever way: forget the start so no entry outlives its socket. */
	start = start_hash_take(&connect_start, &key);
	if (!start)
		return; /* began before we attached, or filtered out */
	delta = bpf_ktime_get_ns() - start;
	row = row_of_sock(sk);
	if (newstate != TCP_ESTABLISHED) {
		count_stat(TCP_STAT_CONNECT_FAILED);
		if (by_cgroup && (c = sock_cgroup_row(&cgroup_counts, sk, row)))
			counter_add(&c->connect_failures, 1);
		return;
	}
	h = bpf_map_lookup_elem(&connect_latency, &row);
	if (h)
		hist_record(h, delta);
	if (by_cgroup && (h = sock_cgroup_row(&cgroup_latency, sk, row)))
		cgroup_hist_record(h, delta);
}

static __always_inline __u16 sock_protocol(const struct sock *sk)
{
	return (__u16)BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol);
}

WITNESS_PROGRAMS(retransmit, "tcp_retransmit_skb", TCP_POINT_RETRANSMIT)
WITNESS_PROGRAMS(send_reset, "tcp_send_reset", TCP_POINT_SEND_RESET)
WITNESS_PROGRAMS(receive_reset, "tcp_receive_reset", TCP_POINT_RECEIVE_RESET)
WITNESS_PROGRAMS(state, "inet_sock_set_state", TCP_POINT_STATE)

/* ---- tcp:tcp_retransmit_skb ---------------------------------------------------------
 * `err` exists in recent kernels (6.18 here; the tracepoint then fires for failed attempts too); user space
 * reads the signature from BTF, and the verifier drops the branch this kernel lacks. */

SEC("tp_btf/tcp_retransmit_skb")
int retransmit_btf(unsigned long long *ctx)
{
	int err = retransmit_has_err ? (int)ctx[2] : 0;

	witness_count_ran(TCP_POINT_RETRANSMIT);
	on_retransmit((const struct sock *)ctx[0], (const struct sk_buff *)ctx[1], err);
	return 0;
}

SEC("raw_tp/tcp_retransmit_skb")
int retransmit_raw(unsigned long long *ctx)
{
	int err = retransmit_has_err ? (int)ctx[2] : 0;

	witness_count_ran(TCP_POINT_RETRANSMIT);
	on_retransmit((const struct sock *)ctx[0], (const struct sk_buff *)ctx[1], err);
	return 0;
}

SEC("tp/tcp/tcp_retransmit_skb")
int retransmit_tp(void *ctx)
{
	if (bpf_core_type_exists(struct trace_event_raw_tcp_retransmit_skb)) {
		struct trace_event_raw_tcp_retransmit_skb *r = ctx;

		on_retransmit(r->skaddr, r->skbaddr, bpf_core_field_exists(r->err) ? r->err : 0);
	} else {
		struct trace_event_raw_tcp_event_sk_skb *r = ctx;

		on_retransmit(r->skaddr, r->skbaddr, 0);
	}
	return 0;
}

/* ---- tcp:tcp_send_reset (socket may be NULL) ------------------------------------------ */

SEC("tp_btf/tcp_send_reset")
int send_reset_btf(unsigned long long *ctx)
{
	witness_count_ran(TCP_POINT_SEND_RESET);
	count_event(EV_RESET_SENT, (const struct sock *)ctx[0], (const struct sk_buff *)ctx[1]);
	return 0;
}

SEC("raw_tp/tcp_send_reset")
int send_reset_raw(unsigned long long *ctx)
{
	witness_count_ran(TCP_POINT_SEND_RESET);
	count_event(EV_RESET_SENT, (const struct sock *)ctx[0], (const struct sk_buff *)ctx[1]);
	return 0;
}

SEC("tp/tcp/tcp_send_reset")
int send_reset_tp(void *ctx)
{
	if (bpf_core_type_exists(struct trace_event_raw_tcp_send_reset)) {
		struct trace_event_raw_tcp_send_reset *r = ctx;

		count_event(EV_RESET_SENT, r->skaddr, r->skbaddr);
	} else {
		struct trace_event_raw_tcp_event_sk_skb *r = ctx;

		count_event(EV_RESET_SENT, r->skaddr, r->skbaddr);
	}
	return 0;
}

/* ---- tcp:tcp_receive_reset ------------------------------------------------------------ */

SEC("tp_btf/tcp_receive_reset")
int receive_reset_btf(unsigned long long *ctx)
{
	witness_count_ran(TCP_POINT_RECEIVE_RESET);
	count_event(EV_RESET_RECEIVED, (const struct sock *)ctx[0], NULL);
	return 0;
}

SEC("raw_tp/tcp_receive_reset")
int receive_reset_raw(unsigned long long *ctx)
{
	witness_count_ran(TCP_POINT_RECEIVE_RESET);
	count_event(EV_RESET_RECEIVED, (const struct sock *)ctx[0], NULL);
	return 0;
}

SEC("tp/tcp/tcp_receive_reset")
int receive_reset_tp(struct trace_event_raw_tcp_event_sk *ctx)
{
	count_event(EV_RESET_RECEIVED, ctx->skaddr, NULL);
	return 0;
}

/* ---- sock:inet_sock_set_state ----------------------------------------------------------- */

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(state_btf, const struct sock *sk, int oldstate, int newstate)
{
	witness_count_ran(TCP_POINT_STATE);
	on_state(sk, oldstate, newstate, sock_protocol(sk));
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(state_raw, const struct sock *sk, int oldstate, int newstate)
{
	witness_count_ran(TCP_POINT_STATE);
	on_state(sk, oldstate, newstate, sock_protocol(sk));
	return 0;
}

SEC("tp/sock/inet_sock_set_state")
int state_tp(struct trace_event_raw_inet_sock_set_state *ctx)
{
	on_state(ctx->skaddr, ctx->oldstate, ctx->newstate, ctx->protocol);
	return 0;
}
