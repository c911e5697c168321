/* Map layout of the `tcp` module, shared by tcp.bpf.c and libcore/modules/tcp.c.
 * Fixed-width types only. Every value is a cumulative u64 that the kernel only adds to. */
#ifndef EBPF_TCP_H
#define EBPF_TCP_H

#include <linux/types.h>

#include "include/hist_row.h"

/* Port breakdown: at most this many listed ports get a row of their own; row 0 is
 * "other" (every port not listed), or the only row when there is no breakdown. The cap
 * keeps the number of collectd series bounded whatever the traffic. */
#define TCP_MAX_PORTS 32

/* Which port of a connection picks its row (rodata `port_mode`). */
enum tcp_port_mode {
	TCP_PORTS_NONE = 0,
	TCP_PORTS_LOCAL = 1,
	TCP_PORTS_REMOTE = 2,
};

/* Start times of connects in flight (SYN sent, not yet established), keyed by socket. */
#define TCP_CONNECT_START_CAP 8192

/* Value of map `counts` (per-CPU array, one row per port row). */
struct tcp_counts {
	__u64 retransmits;         /* skbs resent (tcp:tcp_retransmit_skb, err == 0); RetransSegs counts their segments */
	__u64 retransmit_failures; /* retransmissions the stack could not send (err != 0; kernels whose tracepoint has err) */
	__u64 resets_sent;         /* RSTs sent (tcp:tcp_send_reset) */
	__u64 resets_received;     /* RSTs received that reset a socket (tcp:tcp_receive_reset) */
};

/* Value of map `cgroup_counts` (By "cgroup": a shared hash keyed by cgroup and port row):
 * the counts of the socket's cgroup, and its connects that failed (host-wide a stat). */
struct tcp_cgroup_counts {
	struct tcp_counts counts;
	__u64 connect_failures;
};

/* Value of map `connect_latency` (per-CPU array, one row per port row): struct hist_row
 * of nanoseconds from SYN_SENT to ESTABLISHED. */

/* The module's probe points, in its points table's order: the row of each in map
 * `witness` (include/witness.bpf.h). */
enum tcp_point {
	TCP_POINT_RETRANSMIT,
	TCP_POINT_SEND_RESET,
	TCP_POINT_RECEIVE_RESET,
	TCP_POINT_STATE,
	TCP_POINTS,
};

/* Index into map `stats` (per-CPU array). */
enum tcp_stat {
	TCP_STAT_CONNECT_START_LOST = 0, /* connect start not stored: hash full */
	TCP_STAT_CONNECT_FAILED,         /* left SYN_SENT for anything but ESTABLISHED */
	TCP_STAT_COUNT,
};

#endif
