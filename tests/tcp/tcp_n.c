/* Workload for the tcp integration tests, on 127.0.0.1, in three roles so that the listener
 * and the connecting sockets can be in different cgroups (the tcp module counts a socket's
 * events for the cgroup it was made in):
 *
 *   tcp_n serve            listens on an ephemeral port and binds a second one without
 *                          listening (a closed port: a SYN to it is answered with a reset),
 *                          prints "OPEN CLOSED", then accepts and closes connections until
 *                          killed;
 *   tcp_n connect PORT N   N connects to PORT, one at a time; each waits for the server's
 *                          close, then closes its side and waits until the server has
 *                          acknowledged that (the socket CLOSED), so that every connection ends
 *                          with FIN/ACK on both sides: no reset, no SYN to a full queue;
 *   tcp_n refuse PORT N    N connects to the closed PORT, each refused with a reset.
 *
 * connect and refuse then print "retransmits R": the sum of their sockets' own counts of
 * segments resent (tcpi_total_retrans), read once each socket can send nothing more. On
 * loopback R is 0 unless the machine delayed or dropped a segment; the tests compare the
 * module's count to R, not to 0. Exit 0 when every connect did as its role says, 1
 * otherwise, 2 on bad usage. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in loopback(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* A TCP socket bound to an ephemeral port on loopback; its port in *port. */
static int bound_socket(unsigned *port)
{
	struct sockaddr_in a = loopback(0);
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("tcp_n: bind on 127.0.0.1");
		exit(1);
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static int serve(void)
{
	unsigned open_port, closed_port;
	int lfd = bound_socket(&open_port);
	int closed = bound_socket(&closed_port); /* held, never listened on */

	if (listen(lfd, 16)) {
		perror("tcp_n: listen");
		return 1;
	}
	printf("%u %u\n", open_port, closed_port);
	fflush(stdout);
	for (;;) {
		int c = accept(lfd, NULL, NULL);

		if (c >= 0)
			close(c);
		else if (errno != EINTR && errno != ECONNABORTED)
			break;
	}
	perror("tcp_n: accept");
	close(closed);
	return 1;
}

/* fd's TCP state and resent segments so far (tcpi_state, tcpi_total_retrans); -1 if unread. */
static int tcp_info_of(int fd, unsigned *retransmits)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return -1;
	*retransmits = ti.tcpi_total_retrans;
	return ti.tcpi_state;
}

/* Our FIN sent (shutdown) after the server's: waits until the server acknowledged it, the
 * socket CLOSED (10 s at most). 0, or -1. */
static int close_our_side(int fd, unsigned *retransmits)
{
	if (shutdown(fd, SHUT_WR))
		return -1;
	for (int ms = 0; ms < 10000; ms++) {
		if (tcp_info_of(fd, retransmits) == TCP_CLOSE)
			return 0;
		usleep(1000);
	}
	return -1;
}

/* One connect to port: 0 if it did what `refused` says (refused, or established, closed by
 * the server first, then by us), else -1 with the reason on stderr. Adds the socket's resent
 * segments to *retransmits. */
static int connect_once(unsigned port, int refused, unsigned long *retransmits)
{
	struct sockaddr_in a = loopback(port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = -1;
	unsigned resent = 0;
	char byte;

	if (fd < 0) {
		perror("tcp_n: socket");
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
		if (refused)
			fprintf(stderr, "tcp_n: port %u accepted a connect that should have been refused\n", port);
		else if (read(fd, &byte, 1) != 0)
			fprintf(stderr, "tcp_n: port %u did not close the connection (%s)\n", port, strerror(errno));
		else if (close_our_side(fd, &resent))
			fprintf(stderr, "tcp_n: port %u did not acknowledge our close\n", port);
		else
			rc = 0;
	} else if (refused && errno == ECONNREFUSED) {
		rc = tcp_info_of(fd, &resent) == TCP_CLOSE ? 0 : -1;
	} else {
		fprintf(stderr, "tcp_n: connect to port %u: %s\n", port, strerror(errno));
	}
	*retransmits += resent;
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned long retransmits = 0;
	int n, refused;
	long port;

	if (argc == 2 && !strcmp(argv[1], "serve"))
		return serve();
	if (argc != 4 || (strcmp(argv[1], "connect") && strcmp(argv[1], "refuse")) ||
	    (port = atol(argv[2])) < 1 || port > 65535 || (n = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: %s serve | connect PORT N | refuse PORT N\n", argv[0]);
		return 2;
	}
	refused = !strcmp(argv[1], "refuse");
	for (int i = 0; i < n; i++)
		if (connect_once((unsigned)port, refused, &retransmits))
			return 1;
	printf("retransmits %lu\n", retransmits);
	return 0;
}
