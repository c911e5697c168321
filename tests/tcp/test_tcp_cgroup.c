/* Root test: tcp with By "cgroup" in the running kernel, every attach method, inside a
 * network namespace of its own (tcp_netns.h). Three cgroups made here under a private
 * parent in the cgroup2 mount:
 *  - a child in cgroup a connects NCONNECT times to the listener: a's connect latency has
 *    exactly NCONNECT samples, no reset, no failure;
 *  - a child in cgroup b connects NREFUSED times to a closed port: b has exactly NREFUSED
 *    resets received and NREFUSED connect failures, no latency sample, no reset sent (the
 *    stack's reset answers with no socket, so it has no cgroup);
 *  - the test makes a socket while in cgroup c, goes back to its own cgroup and sends through
 *    an nftables rule that drops the first segments: the retransmits, which fire from the
 *    retransmit timer in whichever task the CPU runs, are c's: the socket's own count, but
 *    for the ones the kernel did not hand to the program, which are in the module's loss
 *    counter (tcp_retransmits.h).
 * Without and with PortBreakdown (the port rows within each cgroup); with a breakdown the
 * host-wide rows of the test's ports are exact too, as they are without By "cgroup". With
 * By "cgroup" off none of its maps exist. */
#define _GNU_SOURCE
#include "libcore/engine/module.h"
#include "tests/support/attach_methods.h"
#include "tests/support/bpf_requirements.h"
#include "tests/tcp/tcp_netns.h"
#include "tests/tcp/tcp_retransmits.h"
#include "tests/support/test_cgroups.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <sys/time.h>

#define NCONNECT 20
#define NREFUSED 7
#define NDROP 3

static int lfd = -1;
static char na[300], nb[300], nc[300]; /* the cgroups as sent */

static int connect_listener_n(void *arg)
{
	for (int i = 0; i < *(const int *)arg; i++) {
		int server, client = connect_pair(lfd, &server);

		if (client < 0)
			return 4;
		close(client);
		close(server);
	}
	return 0;
}

static int connect_closed_n(void *arg)
{
	for (int i = 0; i < *(const int *)arg; i++)
		if (connect_closed_port())
			return 4;
	return 0;
}

static struct module *cgroup_tcp(const char *method, bool ports)
{
	struct module *m = module_new(module_find("tcp"), NULL);
	char glob[1100];
	struct opt_value pv[] = { { .type = OPT_NUMBER, .number = port_open },
				  { .type = OPT_NUMBER, .number = port_closed } };
	struct option po = { .key = "Ports", .values = pv, .nvalues = 2 };
	char err[ERR_MAX] = "";

	tcg_option(m, "AttachOrder", method, 0);
	tcg_option(m, "By", "cgroup", 0);
	tcg_option(m, "Cgroup", tcg_glob(glob, sizeof(glob)), 0);
	if (ports) {
		tcg_option(m, "PortBreakdown", "remote", 0);
		CHECK(module_set_option(m, &po, err, sizeof(err)) == 0);
	}
	m->filter_tgid = 0; /* the workloads are other processes: the glob keeps ours */
	return m;
}

/* The instance of a row: "<cgroup>/<row>" ("<cgroup>/" without a breakdown), the host-wide
 * one with cgroup NULL; latency rows are "connect" or "connect-<port>". */
static const char *inst(char *out, size_t len, const char *cgroup, bool latency, bool ports, uint16_t port)
{
	char row[32];

	snprintf(row, sizeof(row), "%s%s", latency ? "connect" : "", latency && ports ? "-" : "");
	if (ports)
		snprintf(row + strlen(row), sizeof(row) - strlen(row), "%u", port);
	if (cgroup)
		snprintf(out, len, "%s/%s", cgroup, row);
	else
		snprintf(out, len, "%s", row);
	return out;
}

static uint64_t count_of(const struct recording *r, const char *metric, const char *cgroup, bool ports,
			 uint16_t port)
{
	char i[600];

	return recorded_counter(r, metric, inst(i, sizeof(i), cgroup, false, ports, port));
}

static uint64_t samples_of(const struct recording *r, const char *cgroup, bool ports)
{
	char i[600];
	const struct hist_interval *h =
		recorded_histogram(r, "latency", inst(i, sizeof(i), cgroup, true, ports, port_open), HIST_UNIT_NANOSECONDS);

	return h ? h->total_count : 0;
}

/* Connects and refusals in cgroups a and b, each exactly its own. */
static void check_connects(struct module *m, bool ports, const char *method)
{
	struct recording r = { 0 };
	char a[1100], b[1100];
	int nconnect = NCONNECT, nrefused = NREFUSED;

	tcg_run_in(tcg_dir("a", a, sizeof(a)), connect_listener_n, &nconnect);
	tcg_run_in(tcg_dir("b", b, sizeof(b)), connect_closed_n, &nrefused);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(samples_of(&r, na, ports), NCONNECT);
	CHECK_EQ_U64(count_of(&r, "resets_received", na, ports, port_open), 0);
	CHECK_EQ_U64(count_of(&r, "connect_failures", na, ports, port_open), 0);
	CHECK_EQ_U64(samples_of(&r, nb, ports), 0);
	CHECK_EQ_U64(count_of(&r, "resets_received", nb, ports, port_closed), NREFUSED);
	CHECK_EQ_U64(count_of(&r, "connect_failures", nb, ports, port_closed), NREFUSED);
	CHECK_EQ_U64(count_of(&r, "resets_sent", nb, ports, port_closed), 0);
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
	/* Host-wide as without By "cgroup": with the test's ports as rows, exactly ours. */
	if (ports) {
		CHECK_EQ_U64(samples_of(&r, NULL, true), NCONNECT);
		CHECK_EQ_U64(count_of(&r, "resets_received", NULL, true, port_closed), NREFUSED);
	} else {
		CHECK(samples_of(&r, NULL, false) >= NCONNECT);
		CHECK(count_of(&r, "resets_received", NULL, false, 0) >= NREFUSED);
	}
	CHECK(recorded_counter(&r, "connect_failures", "") >= NREFUSED);
	printf("%-10s ports=%d: %s %llu connects; %s %llu resets received, %llu failed connects; host-wide %llu "
	       "connects\n", method, ports, na, (unsigned long long)samples_of(&r, na, ports), nb,
	       (unsigned long long)count_of(&r, "resets_received", nb, ports, port_closed),
	       (unsigned long long)count_of(&r, "connect_failures", nb, ports, port_closed),
	       (unsigned long long)samples_of(&r, NULL, ports));
	recording_free(&r);
}

/* A socket made in cgroup c (the test goes back to its own cgroup before using it). */
static int socket_in_c(void)
{
	char c[1100], back[1600];
	int fd;

	tcg_own(back, sizeof(back));
	CHECK(back[0] && tcg_join(tcg_dir("c", c, sizeof(c))) == 0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(tcg_join(back) == 0);
	return fd;
}

/* Retransmits of c's socket, sent from the test's own cgroup and resent by the timer. */
static void check_retransmits(struct module *m, bool ports, const char *method)
{
	struct timeval tv = { .tv_sec = 20 };
	struct recording r = { 0 };
	char buf[PAYLOAD];
	int server = -1, client;
	long dropped, witness;
	uint64_t host_before, loss_before, counted, lost;

	CHECK(recording_read(&r, m) == 0);
	host_before = count_of(&r, "retransmits", NULL, ports, port_open);
	loss_before = tcp_loss_counter(&r, method);
	CHECK(add_drop_rule(NDROP) == 0);
	client = connect_pair_on(socket_in_c(), lfd, &server);
	CHECK(client >= 0);
	setsockopt(server, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(buf, 'x', sizeof(buf));
	CHECK(send(client, buf, sizeof(buf), 0) == PAYLOAD);
	CHECK(recv(server, buf, sizeof(buf), MSG_WAITALL) == PAYLOAD); /* arrives after the resends */
	dropped = nft_dropped();
	/* Read the witness on both sides of the module's read until no resend lands between,
	 * and until the read has the resends the socket counted (tcp_read_complete). */
	for (int tries = 0;; tries++) {
		long before_read = socket_retransmits(client);

		CHECK(recording_read(&r, m) == 0);
		witness = socket_retransmits(client);
		counted = count_of(&r, "retransmits", nc, ports, port_open);
		lost = tcp_loss_counter(&r, method) - loss_before;
		if ((witness == before_read && tcp_read_complete(counted, lost, witness)) || tries == TCP_SETTLE_TRIES)
			break;
		usleep(TCP_SETTLE_USEC);
	}
	printf("%-10s ports=%d: nft dropped %ld: %s retransmits %llu (failed %llu), the socket's own count %ld, %s %llu\n",
	       method, ports, dropped, nc, (unsigned long long)counted,
	       (unsigned long long)count_of(&r, "retransmit_failures", nc, ports, port_open), witness,
	       tcp_method_witnessed(method) ? "untraced" : "dropped-recursion", (unsigned long long)lost);
	CHECK(dropped >= NDROP);
	CHECK(witness >= dropped);
	/* What the product guarantees, as test_tcp says: a retransmit the kernel did not hand
	 * to the program is not in the cgroup's count but in the module's loss counter. */
	tcp_check_retransmits(method, counted, lost, witness);
	if (ports) /* as test_tcp: the listener's row holds the client side only */
		tcp_check_retransmits(method, count_of(&r, "retransmits", NULL, true, port_open) - host_before, lost,
				      witness);
	close(client);
	close(server);
	recording_free(&r);
}

static void run_method(const char *method, bool ports)
{
	const char *children[] = { "a", "b", "c" };
	char dir[1100];
	struct module *m;

	for (int i = 0; i < 3; i++)
		CHECK(mkdir(tcg_dir(children[i], dir, sizeof(dir)), 0755) == 0);
	m = cgroup_tcp(method, ports);
	if (module_start(m)) {
		fprintf(stderr, "%s: start failed: %s\n", method, m->last_error);
		CHECK(!"module started");
	} else {
		check_connects(m, ports, method);
		check_retransmits(m, ports, method);
	}
	module_free(m);
	for (int i = 0; i < 3; i++)
		CHECK(tcg_remove(tcg_dir(children[i], dir, sizeof(dir))) == 0);
}

/* Off (the default): none of the per-cgroup maps is created. */
static void test_off(void)
{
	static const char *const maps[] = { "cgroup_counts", "cgroup_latency", "cgroup_zero", "cgroup_full",
					    "cgroup_ignored" };

	tcg_check_off(module_new(module_find("tcp"), NULL), maps, 5);
}

int main(int argc, char **argv)
{
	struct method_list methods;

	require_bpf_tracing("/sys/kernel/tracing/events/tcp");
	if (system("command -v ip >/dev/null && command -v nft >/dev/null"))
		SKIP("needs ip (iproute2) and nft (nftables): apt-get install iproute2 nftables");
	/* Depth 2 is our cgroups: the private parent is at depth 1. */
	tcg_setup("ebpf-test-tcpcg");
	tcg_name("a", na, sizeof(na));
	tcg_name("b", nb, sizeof(nb));
	tcg_name("c", nc, sizeof(nc));
	if (enter_netns("ebpf-test-tcpcg")) {
		CHECK(!"created and entered a network namespace");
		rmdir(tcg_parent);
		return testing_done();
	}
	lfd = listener();
	CHECK(lfd >= 0);
	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n && lfd >= 0; i++) {
		MEASURED_UNDER_LOAD(3) run_method(methods.names[i], false);
		MEASURED_UNDER_LOAD(3) run_method(methods.names[i], true);
	}
	test_off();
	close(lfd);
	delete_netns();
	CHECK(rmdir(tcg_parent) == 0);
	return testing_done();
}
