/* Root test of the `signals` module, once per attach method: this process takes exactly
 * N1 SIGUSR1, N2 SIGUSR2 and N3 of a real-time signal (queued, so none coalesce), and the
 * module must count exactly those, under the names users see ("usr1", "usr2", "rt<n>"),
 * and nothing else of this process. A child that gets signals of its own is another
 * process: the test's filter must leave it out. With tp_btf and raw_tp the point's witness
 * (witness.h) sends "untraced", 0 for this workload unless the kernel skipped a run (at
 * most one is allowed, the bound test_tcp has), and with the module's program detached,
 * every signal of ours is untraced and none counted. */
#include "tests/support/detach_program.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"

#include <signal.h>
#include <sys/wait.h>

#define MAX_SEEN 80

struct seen {
	int untraced_points; /* points that sent "untraced" (the witness) */
	uint64_t untraced;
	int n;
	char instance[MAX_SEEN][32];
	uint64_t value[MAX_SEEN];
};

static uint64_t value_of(const struct seen *s, const char *instance)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->instance[i], instance))
			return s->value[i];
	return 0;
}

static uint64_t total(const struct seen *s)
{
	uint64_t t = 0;

	for (int i = 0; i < s->n; i++)
		t += s->value[i];
	return t;
}

static struct seen read_module(struct module *m)
{
	struct recording r = { 0 };
	struct seen s = { 0 };

	CHECK(recording_read(&r, m) == 0);
	CHECK(recorded_count(&r, RECORDED_HISTOGRAM, NULL, NULL) == 0 && "signals sends no histogram");
	s.untraced_points = recorded_count(&r, RECORDED_COUNTER, "untraced", NULL);
	s.untraced = recorded_counter(&r, "untraced", "signal_deliver");
	for (int i = 0; i < r.n; i++) {
		const struct recorded_value *v = &r.values[i];

		if (v->kind != RECORDED_COUNTER || strcmp(v->metric, "signals"))
			continue; /* self-metrics (dropped-recursion) */
		CHECK(s.n < MAX_SEEN);
		if (s.n == MAX_SEEN)
			break;
		snprintf(s.instance[s.n], sizeof(s.instance[s.n]), "%.*s", (int)sizeof(s.instance[s.n]) - 1, v->instance);
		s.value[s.n++] = v->counter;
	}
	recording_free(&r);
	return s;
}

static volatile sig_atomic_t handled;

static void handler(int sig)
{
	handled++;
}

enum { N1 = 300, N2 = 7, N3 = 41 };

/* A child that takes signals of its own, then exits: not this process, never counted. */
static void signal_a_child(void)
{
	pid_t child = fork();
	int status;

	if (child == 0) {
		for (int i = 0; i < 50; i++)
			kill(getpid(), SIGUSR1);
		_exit(0);
	}
	CHECK(child > 0);
	CHECK(waitpid(child, &status, 0) == child);
}

/* Sent to this single-threaded process, each is taken before kill() returns. */
static void send_own_signals(int rt)
{
	union sigval v = { 0 };

	handled = 0;
	for (int i = 0; i < N1; i++)
		CHECK(kill(getpid(), SIGUSR1) == 0);
	for (int i = 0; i < N2; i++)
		CHECK(kill(getpid(), SIGUSR2) == 0);
	for (int i = 0; i < N3; i++)
		CHECK(sigqueue(getpid(), rt, v) == 0);
	CHECK_EQ_U64(handled, N1 + N2 + N3);
}

static void workload_and_check(struct module *m, bool witnessed)
{
	int rt = SIGRTMIN + 1;
	char rt_name[16];
	struct seen s0, s1;

	snprintf(rt_name, sizeof(rt_name), "rt%d", rt);
	s0 = read_module(m);
	send_own_signals(rt);
	signal_a_child();
	s1 = read_module(m);
	printf("  usr1 +%llu, usr2 +%llu, %s +%llu, all +%llu\n",
	       (unsigned long long)(value_of(&s1, "usr1") - value_of(&s0, "usr1")),
	       (unsigned long long)(value_of(&s1, "usr2") - value_of(&s0, "usr2")), rt_name,
	       (unsigned long long)(value_of(&s1, rt_name) - value_of(&s0, rt_name)),
	       (unsigned long long)(total(&s1) - total(&s0)));
	CHECK_EQ_U64(value_of(&s1, "usr1") - value_of(&s0, "usr1"), N1);
	CHECK_EQ_U64(value_of(&s1, "usr2") - value_of(&s0, "usr2"), N2);
	CHECK_EQ_U64(value_of(&s1, rt_name) - value_of(&s0, rt_name), N3);
	/* SIGCHLD from the child is ignored by default but still delivered to this process. */
	CHECK(value_of(&s1, "chld") - value_of(&s0, "chld") <= 1);
	CHECK_EQ_U64(total(&s1) - total(&s0) - (value_of(&s1, "chld") - value_of(&s0, "chld")), N1 + N2 + N3);
	CHECK_EQ_U64(s1.untraced_points, witnessed ? 1 : 0);
	CHECK(s1.untraced - s0.untraced <= 1);
}

/* The module's program detached, the witness kept: what a kernel that skipped the program
 * leaves. Every signal of ours is untraced (others' signals only add) and none counted. */
static void witness_catches(struct module *m)
{
	struct seen s0, s1;

	s0 = read_module(m);
	detach_module_program(m, "signal_deliver");
	send_own_signals(SIGRTMIN + 1);
	s1 = read_module(m);
	printf("  the program detached: %d signals, counted %llu, untraced %llu\n", N1 + N2 + N3,
	       (unsigned long long)(total(&s1) - total(&s0)), (unsigned long long)(s1.untraced - s0.untraced));
	CHECK_EQ_U64(total(&s1) - total(&s0), 0);
	CHECK(s1.untraced - s0.untraced >= N1 + N2 + N3);
}

static void run_method(const char *method)
{
	int before = testing_failures;
	struct module *m = mt_module("signals", method, NULL);

	mt_log_reset();
	if (!m)
		return;
	if (!mt_start(m, "test_signals", method, before, NULL))
		return;
	CHECK(m->state == MODULE_RUNNING || m->state == MODULE_DEGRADED);
	workload_and_check(m, strcmp(method, "tracepoint") != 0); /* the classic method has no witness */
	if (strcmp(method, "tracepoint"))
		witness_catches(m);
	CHECK(mt_log.errors == 0);
	mt_result("test_signals", method, before, NULL);
	module_free(m);
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "tp_btf", "raw_tp", "tracepoint", NULL };
	struct method_list ml;
	struct sigaction sa = { .sa_handler = handler };

	mt_require_root();
	methods_from(argc, argv, defaults, &ml);
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	CHECK(sigaction(SIGRTMIN + 1, &sa, NULL) == 0);
	for (int i = 0; i < ml.n; i++)
		run_method(ml.names[i]);
	return testing_done();
}
