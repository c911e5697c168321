/* Shared by the tcp kernel tests: a network namespace of the test's own (ip netns add, lo
 * up, the test process joins it with setns(); deleted on every exit path), a listener and
 * a closed port on loopback, and an nftables rule that drops the first data segments to the
 * listener to force retransmits. */
#ifndef EBPF_TESTS_TCP_NETNS_H
#define EBPF_TESTS_TCP_NETNS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setns() */
#endif
#include "tests/support/testing.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PAYLOAD 100

static char netns[64];
static int orig_netns = -1;
static uint16_t port_open, port_closed;

static inline int run(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

static inline void delete_netns(void)
{
	char cmd[128];

	if (!netns[0])
		return;
	if (orig_netns >= 0)
		setns(orig_netns, CLONE_NEWNET);
	snprintf(cmd, sizeof(cmd), "ip netns delete %s", netns);
	run(cmd);
	netns[0] = '\0';
}

static inline void on_signal(int sig)
{
	delete_netns();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Makes and joins the namespace "<prefix>-<pid>"; picks the ports. 0 or -1. */
static inline int enter_netns(const char *prefix)
{
	char cmd[256], path[128];
	int fd;

	port_open = 20000 + getpid() % 20000;
	port_closed = port_open + 1;
	snprintf(netns, sizeof(netns), "%s-%d", prefix, (int)getpid());
	atexit(delete_netns);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	snprintf(cmd, sizeof(cmd), "ip netns add %s && ip -n %s link set lo up", netns, netns);
	if (run(cmd))
		return -1;
	orig_netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (orig_netns < 0 || fd < 0 || setns(fd, CLONE_NEWNET))
		return -1;
	close(fd);
	return 0;
}

/* Drops the first `ndrop` data segments of PAYLOAD bytes to the listener, at the input
 * hook (after a successful transmit, so every resend is a real retransmit). */
static inline int add_drop_rule(int ndrop)
{
	const int seg_len = 20 + 32 + PAYLOAD; /* IPv4 + TCP with timestamps + payload */
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "nft -f - <<'EOF'\n"
		 "table inet ebpf_test {\n"
		 "  chain input {\n"
		 "    type filter hook input priority 0; policy accept;\n"
		 "    tcp dport %u ip length > 100 quota until %d bytes counter drop\n"
		 "  }\n"
		 "}\n"
		 "EOF",
		 port_open, ndrop * seg_len + seg_len / 2);
	return run(cmd);
}

/* How many segments the rule dropped; removes it. */
static inline long nft_dropped(void)
{
	FILE *p = popen("nft list table inet ebpf_test", "r");
	char line[512];
	long packets = -1;

	while (p && fgets(line, sizeof(line), p)) {
		char *c = strstr(line, "counter packets ");

		if (c)
			packets = strtol(c + strlen("counter packets "), NULL, 10);
	}
	if (p)
		pclose(p);
	run("nft delete table inet ebpf_test");
	return packets;
}

/* The kernel's own count of the segments a socket retransmitted (tp->total_retrans, added
 * where the tcp_retransmit_skb tracepoint fires). The witness for the listener's port row:
 * that row holds the client side of the connection (its remote port is the listener's).
 * Not the namespace's TcpRetransSegs: it also counts the server side's resends (a SYN-ACK
 * or FIN resent when the VM stalls past the RTO), which the module puts in other rows, and
 * once read 3 against the row's 2 for that reason. */
static inline long socket_retransmits(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return -1;
	return ti.tcpi_total_retrans;
}

static inline struct sockaddr_in addr_of(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static inline int listener(void)
{
	struct sockaddr_in a = addr_of(port_open);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64))
		return -1;
	return fd;
}

/* Connects fd (a new socket when fd < 0) and accepts; returns the client fd, the accepted
 * one in *server, -1 on failure. */
static inline int connect_pair_on(int fd, int lfd, int *server)
{
	struct sockaddr_in a = addr_of(port_open);

	*server = -1;
	if (fd < 0)
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	*server = accept(lfd, NULL, NULL);
	return *server < 0 ? -1 : fd;
}

static inline int connect_pair(int lfd, int *server)
{
	return connect_pair_on(-1, lfd, server);
}

/* A connect to the closed port: refused (a reset received, a failed connect). 0 or -1. */
static inline int connect_closed_port(void)
{
	struct sockaddr_in a = addr_of(port_closed);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == -1 && errno == ECONNREFUSED;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

#endif
