/* Root test: loads the real tcp programs with every attach method and runs a known TCP
 * workload inside a network namespace of its own (ip netns add, lo up, the test process
 * joins it with setns()):
 *  - N connects to a listener give exactly N connect-latency samples on the listener's
 *    port row (the connect start is filtered on this process);
 *  - a connect to a closed port gives one reset received on that port's row, a reset
 *    sent, and a failed connect;
 *  - an nftables rule drops the first data segments to the listener (a byte quota), which
 *    forces retransmits: at least as many as nft dropped, and as many as the sending
 *    socket's own count (TCP_INFO tcpi_total_retrans);
 *  - with tp_btf and raw_tp every point sends "untraced" (its witness, witness.h), and
 *    the retransmits counted plus untraced are the socket's count, at most one untraced;
 *    with the classic tracepoint method, counted plus the skips the kernel counted
 *    (dropped-recursion) is at least the socket's count (tcp_retransmits.h);
 *    with the module's retransmit program detached, none is counted and the retransmits
 *    the socket counts are untraced (at most one short: the witness can be skipped too).
 * The namespace is deleted on every exit path. */
#define _GNU_SOURCE
#include "base/log.h"
#include "libcore/engine/module.h"
#include "tests/support/attach_methods.h"
#include "tests/support/bpf_requirements.h"
#include "tests/support/detach_program.h"
#include "tests/support/start_on_method.h"
#include "tests/tcp/tcp_netns.h"
#include "tests/tcp/tcp_retransmits.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <arpa/inet.h>
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define NCONNECT 20
#define NDROP 3

struct row {
	uint64_t retransmits, resets_sent, resets_received;
	struct hist_interval connect;
	bool has_connect;
};

struct seen {
	struct row open, closed, other;
	uint64_t connect_failures, start_lost;
	bool start_lost_sent;
	/* firings of tcp_retransmit_skb no program of ours ran for (witness.h), and how many
	 * points sent "untraced" */
	uint64_t untraced_retransmits;
	int untraced_points;
	uint64_t recursion; /* dropped-recursion: the classic tracepoint method's counted skips */
};

/* Rows are named by port ("443", "other"), histograms "connect-<row>". */
static struct row *row_for(struct seen *s, const char *instance)
{
	char open_name[16], closed_name[16];

	if (!strncmp(instance, "connect-", 8))
		instance += 8;
	snprintf(open_name, sizeof(open_name), "%u", port_open);
	snprintf(closed_name, sizeof(closed_name), "%u", port_closed);
	if (!strcmp(instance, open_name))
		return &s->open;
	if (!strcmp(instance, closed_name))
		return &s->closed;
	return &s->other;
}

static void note_counter(struct seen *s, const struct recorded_value *v)
{
	const char *metric = v->metric, *instance = v->instance;

	if (!strcmp(metric, "retransmits"))
		row_for(s, instance)->retransmits = v->counter;
	else if (!strcmp(metric, "resets_sent"))
		row_for(s, instance)->resets_sent = v->counter;
	else if (!strcmp(metric, "resets_received"))
		row_for(s, instance)->resets_received = v->counter;
	else if (!strcmp(metric, "connect_failures"))
		s->connect_failures = v->counter;
	else if (!strcmp(metric, "untraced")) {
		s->untraced_points++;
		if (!strcmp(instance, "tcp_retransmit_skb"))
			s->untraced_retransmits = v->counter;
	} else if (!strcmp(metric, "dropped") && !strcmp(instance, "recursion")) {
		s->recursion = v->counter;
	} else if (!strcmp(metric, "dropped") && !strcmp(instance, "connect_start_lost")) {
		s->start_lost = v->counter;
		s->start_lost_sent = true;
	}
}

static void note_histogram(struct seen *s, const struct recorded_value *v)
{
	struct row *r = row_for(s, v->instance);

	CHECK_STR(v->metric, "latency");
	CHECK(!strncmp(v->instance, "connect-", 8));
	r->connect = *v->hist;
	r->has_connect = true;
}

/* In the order sent, as the module sent them: the last value of a row wins. */
static struct seen read_module(struct module *m)
{
	struct recording rec = { 0 };
	struct seen s = { 0 };

	CHECK(recording_read(&rec, m) == 0);
	for (int i = 0; i < rec.n; i++) {
		if (rec.values[i].kind == RECORDED_COUNTER)
			note_counter(&s, &rec.values[i]);
		else if (rec.values[i].kind == RECORDED_HISTOGRAM)
			note_histogram(&s, &rec.values[i]);
	}
	recording_free(&rec);
	CHECK(s.start_lost_sent);
	CHECK_EQ_U64(s.start_lost, 0);
	return s;
}

/* Resets sent without a socket (to a closed port) pass tcp_send_reset only on kernels whose
 * BTF has its own record type for it (6.10+); Debian's 5.10 and 6.1 have none. The test
 * reads that fact itself, and the module must have said so when it started. */
static bool kernel_traces_socketless_resets;
static bool module_said_resets_partial;

static void capture_log(enum ebpf_log_level level, const char *msg)
{
	if (level <= EBPF_LOG_INFO)
		fprintf(stderr, "ebpf: %s\n", msg);
	if (strstr(msg, "tcp_send_reset does not fire for resets sent without a socket"))
		module_said_resets_partial = true;
}

static void read_kernel_reset_coverage(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	CHECK(btf != NULL);
	kernel_traces_socketless_resets = btf && btf__find_by_name_kind(btf, "trace_event_raw_tcp_send_reset",
									 BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	printf("this kernel %s resets sent without a socket through tcp_send_reset\n",
	       kernel_traces_socketless_resets ? "traces" : "does not trace");
}

/* The reset a connect to the closed port makes the listener's stack send: counted where the
 * kernel traces it, and announced as not counted where it does not. */
static uint64_t closed_port_resets_expected(void)
{
	CHECK(module_said_resets_partial == !kernel_traces_socketless_resets);
	return kernel_traces_socketless_resets ? 1 : 0;
}

/* ---- workload ------------------------------------------------------------------------- */

static void connect_n(int lfd, int n)
{
	for (int i = 0; i < n; i++) {
		int server, client = connect_pair(lfd, &server);

		CHECK(client >= 0);
		close(client);
		close(server);
	}
}

/* One PAYLOAD-byte write through the drop rule; returns what nft dropped. */
/* Returns how many segments nft dropped; the connection stays open (*client, *server) so
 * that the client's own retransmit count can be read beside the module's. */
static long send_through_drops(int lfd, int *client, int *server)
{
	struct timeval tv = { .tv_sec = 20 };
	char buf[PAYLOAD];

	*client = *server = -1;
	if (add_drop_rule(NDROP))
		return -1;
	*client = connect_pair(lfd, server);
	CHECK(*client >= 0);
	setsockopt(*server, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(buf, 'x', sizeof(buf));
	CHECK(send(*client, buf, sizeof(buf), 0) == PAYLOAD);
	CHECK(recv(*server, buf, sizeof(buf), MSG_WAITALL) == PAYLOAD); /* arrives after the resends */
	return nft_dropped();
}

/* Reads m until the client socket's own retransmit count is the same on both sides of the
 * read (a slow VM can still be retransmitting the last segment; seen: module 4, witness read
 * just before it 3), and the read has every retransmit that count has, counted since
 * `before` or in the method's loss counter (tcp_read_complete). Returns that count. */
static long read_settled(struct module *m, int client, const char *method, const struct seen *before, struct seen *s)
{
	long count;

	for (int tries = 0;; tries++) {
		long before_read = socket_retransmits(client);
		uint64_t lost;

		*s = read_module(m);
		count = socket_retransmits(client);
		lost = tcp_method_witnessed(method) ? s->untraced_retransmits - before->untraced_retransmits
						    : s->recursion - before->recursion;
		if ((count == before_read && tcp_read_complete(s->open.retransmits - before->open.retransmits, lost, count)) ||
		    tries == TCP_SETTLE_TRIES)
			return count;
		usleep(TCP_SETTLE_USEC);
	}
}

/* ---- per attach method ------------------------------------------------------------------ */

static struct module *start_tcp(const char *method, const char *breakdown)
{
	struct module *m = module_new(module_find("tcp"), NULL);
	struct opt_value order = { .type = OPT_STRING, .string = method };
	module_said_resets_partial = false;
	struct opt_value mode = { .type = OPT_STRING, .string = breakdown };
	struct opt_value ports[] = { { .type = OPT_NUMBER, .number = port_open },
				     { .type = OPT_NUMBER, .number = port_closed } };
	struct option o[] = { { .key = "AttachOrder", .values = &order, .nvalues = 1 },
			      { .key = "PortBreakdown", .values = &mode, .nvalues = 1 },
			      { .key = "Ports", .values = ports, .nvalues = 2 } };
	char err[ERR_MAX] = "";

	m->filter_tgid = getpid();
	for (int i = 0; i < 3; i++)
		CHECK(module_set_option(m, &o[i], err, sizeof(err)) == 0);
	return start_on_method(m, method);
}

static void run_method(const char *method, int lfd)
{
	struct module *m = start_tcp(method, "remote");
	long witness, dropped;
	int client, server;
	uint64_t row_before, untraced_before, recursion_before;
	struct seen s, before;

	if (!m)
		return;
	s = read_module(m);
	CHECK(!s.open.has_connect);

	connect_n(lfd, NCONNECT);
	s = read_module(m);
	CHECK(s.open.has_connect);
	CHECK_EQ_U64(s.open.connect.count, NCONNECT);
	CHECK_EQ_U64(s.open.connect.total_count, NCONNECT);
	CHECK(s.open.connect.sum > 0);
	CHECK(!s.other.has_connect && !s.closed.has_connect);
	CHECK_EQ_U64(s.open.resets_received, 0);
	printf("%-10s %d connects: %llu samples, mean %.1f us, p99 %.1f us\n", method, NCONNECT,
	       (unsigned long long)s.open.connect.count, hist_mean(&s.open.connect) / 1e3,
	       hist_percentile(&s.open.connect, 99) / 1e3);

	CHECK(connect_closed_port() == 0);
	s = read_module(m);
	CHECK_EQ_U64(s.closed.resets_received, 1);
	CHECK(s.closed.resets_sent + s.other.resets_sent + s.open.resets_sent >= closed_port_resets_expected());
	CHECK(s.connect_failures >= 1);
	CHECK_EQ_U64(s.open.connect.count, 0); /* the failed connect is no latency sample */
	printf("%-10s closed port: resets received %llu, sent %llu, failed connects %llu\n", method,
	       (unsigned long long)s.closed.resets_received,
	       (unsigned long long)(s.closed.resets_sent + s.other.resets_sent + s.open.resets_sent),
	       (unsigned long long)s.connect_failures);

	/* The row's count before this connection: the earlier connections' sockets are gone. */
	before = s;
	row_before = s.open.retransmits;
	untraced_before = s.untraced_retransmits;
	recursion_before = s.recursion;
	dropped = send_through_drops(lfd, &client, &server);
	witness = read_settled(m, client, method, &before, &s);
	close(client);
	close(server);
	printf("%-10s nft dropped %ld segments: retransmits %llu (port %u), the socket's own count %ld, untraced %llu, "
	       "dropped-recursion %llu\n",
	       method, dropped, (unsigned long long)(s.open.retransmits - row_before), port_open, witness,
	       (unsigned long long)(s.untraced_retransmits - untraced_before),
	       (unsigned long long)(s.recursion - recursion_before));
	CHECK(dropped >= NDROP);
	CHECK_EQ_U64(s.untraced_points, tcp_method_witnessed(method) ? 4 : 0);
	/* What the product guarantees (tcp_retransmits.h): every retransmit the socket made is
	 * counted or in the method's loss counter. */
	CHECK(witness >= dropped);
	tcp_check_retransmits(method, s.open.retransmits - row_before,
			      tcp_method_witnessed(method) ? s.untraced_retransmits - untraced_before : s.recursion - recursion_before,
			      witness);
	CHECK_EQ_U64(s.open.connect.total_count, NCONNECT + 1);
	module_free(m);
}

/* By local port: a reset sent for a segment no socket wanted (no socket, so the port comes
 * from the segment's TCP header) lands on the closed port's row. */
static void run_local_mode(const char *method)
{
	struct module *m = start_tcp(method, "local");
	struct seen s;

	if (!m)
		return;
	CHECK(connect_closed_port() == 0);
	s = read_module(m);
	printf("%-10s by local port: resets sent on %u: %llu, received elsewhere: %llu\n", method, port_closed,
	       (unsigned long long)s.closed.resets_sent, (unsigned long long)s.other.resets_received);
	CHECK_EQ_U64(s.closed.resets_sent, closed_port_resets_expected());
	CHECK_EQ_U64(s.closed.resets_received, 0);
	CHECK_EQ_U64(s.other.resets_received, 1); /* the client's local port is ephemeral */
	module_free(m);
}

/* The witness counts what the program did not run for: with the module's own retransmit
 * program detached (its link destroyed, as a kernel that skipped it would leave it) and the
 * witness still attached, the retransmits the socket counts are untraced and none is
 * counted. The witness sees the whole host; the test's namespace is where retransmits
 * happen on an idle test machine. */
static void run_witness_catches(const char *method, int lfd)
{
	struct module *m = start_tcp(method, "remote");
	uint64_t row_before, untraced_before;
	long resent, dropped;
	int client, server;
	struct seen s, before;

	if (!m)
		return;
	s = before = read_module(m);
	row_before = s.open.retransmits;
	untraced_before = s.untraced_retransmits;
	detach_module_program(m, "tcp_retransmit_skb");
	dropped = send_through_drops(lfd, &client, &server);
	resent = read_settled(m, client, method, &before, &s);
	close(client);
	close(server);
	printf("%-10s the retransmit program detached: the socket resent %ld, counted %llu, untraced %llu\n", method,
	       resent, (unsigned long long)(s.open.retransmits - row_before),
	       (unsigned long long)(s.untraced_retransmits - untraced_before));
	CHECK(dropped >= NDROP);
	CHECK(resent >= NDROP);
	CHECK_EQ_U64(s.open.retransmits - row_before, 0);
	/* The witness is a program too, and the kernel can skip it as it skips ours: seen once
	 * in a sanitized CI run, raw_tp, 2 of 3 (retransmits come from the timer softirq, where
	 * the uncounted skips were seen; doc/modules.md, Known limits). So untraced never
	 * overstates (at most what the socket resent) and, as the counts above, misses at most
	 * one of them. */
	CHECK(s.untraced_retransmits - untraced_before <= (uint64_t)resent);
	CHECK(s.untraced_retransmits - untraced_before + 1 >= (uint64_t)resent);
	module_free(m);
}

static void test_option_errors(void)
{
	struct module *m = module_new(module_find("tcp"), NULL);
	struct opt_value p = { .type = OPT_NUMBER, .number = 443 };
	struct option o = { .key = "Ports", .values = &p, .nvalues = 1 };
	char err[ERR_MAX];

	/* Ports without PortBreakdown is refused at start, naming the missing option. */
	CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
	CHECK(module_start(m) == -1);
	CHECK(m->state == MODULE_FAILED);
	CHECK(strstr(m->last_error, "PortBreakdown") != NULL);
	module_free(m);
}

int main(int argc, char **argv)
{
	struct method_list methods;
	int lfd;

	require_bpf_tracing("/sys/kernel/tracing/events/tcp");
	if (system("command -v ip >/dev/null && command -v nft >/dev/null"))
		SKIP("needs ip (iproute2) and nft (nftables): apt-get install iproute2 nftables");

	ebpf_log_set_handler(capture_log);
	read_kernel_reset_coverage();
	if (enter_netns("ebpf-test-tcp")) {
		CHECK(!"created and entered a network namespace");
		return testing_done();
	}
	tracepoint_methods_from(argc, argv, &methods);
	lfd = listener();
	CHECK(lfd >= 0);
	for (int i = 0; i < methods.n && lfd >= 0; i++)
		MEASURED_UNDER_LOAD(3) run_method(methods.names[i], lfd);
	for (int i = 0; i < methods.n; i++)
		run_local_mode(methods.names[i]);
	for (int i = 0; i < methods.n && lfd >= 0; i++)
		if (tcp_method_witnessed(methods.names[i]))
			run_witness_catches(methods.names[i], lfd);
	close(lfd);
	test_option_errors();
	delete_netns();
	return testing_done();
}
