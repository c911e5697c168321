#define _GNU_SOURCE /* gettid */
/* Root test: loads the real process programs with every attach method. With the filter on
 * this process and its children, N fork+exec of /bin/true and one thread give exact fork,
 * exec, exit and thread-exit counts; without the filter the counts grow by at least N.
 * An OOM kill in a memory-limited cgroup is counted and its victim (pid, name) is what
 * user space receives and logs. With tp_btf and raw_tp every point sends "untraced" (its
 * witness, witness.h), 0 for that workload; with the exec program detached, the execs are
 * untraced and not counted. */
#include "base/log.h"
#include "libcore/engine/module.h"
#include "tests/support/oom_cgroup.h"
#include "tests/support/recording_sink.h"
#include "tests/support/attach_methods.h"
#include "tests/support/bpf_requirements.h"
#include "tests/support/detach_program.h"
#include "tests/support/start_on_method.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOG_COMM "ebpf_oom_hog"

struct seen {
	uint64_t forks, execs, exits, thread_exits, oom_kills, oom_lost;
	bool oom_lost_sent;
	/* the points' witnesses (witness.h): how many sent "untraced", and its sum and exec's */
	int untraced_points;
	uint64_t untraced, untraced_execs;
};

static struct seen read_module(struct module *m)
{
	struct recording r = { 0 };
	struct seen s = { 0 };

	CHECK(recording_read(&r, m) == 0);
	CHECK(recorded_count(&r, RECORDED_HISTOGRAM, NULL, NULL) == 0 && "the process module has no histogram");
	s.forks = recorded_counter(&r, "forks", NULL);
	s.execs = recorded_counter(&r, "execs", NULL);
	s.exits = recorded_counter(&r, "exits", NULL);
	s.thread_exits = recorded_counter(&r, "thread_exits", NULL);
	s.oom_kills = recorded_counter(&r, "oom_kills", NULL);
	s.oom_lost = recorded_counter(&r, "dropped", "oom_events");
	s.oom_lost_sent = recorded(&r, RECORDED_COUNTER, "dropped", "oom_events") != NULL;
	s.untraced_points = recorded_count(&r, RECORDED_COUNTER, "untraced", NULL);
	for (int i = 0; i < r.n; i++)
		if (r.values[i].kind == RECORDED_COUNTER && !strcmp(r.values[i].metric, "untraced"))
			s.untraced += r.values[i].counter;
	s.untraced_execs = recorded_counter(&r, "untraced", "sched_process_exec");
	recording_free(&r);
	CHECK(s.oom_lost_sent); /* the dropped counter is always sent */
	return s;
}

/* Log lines, kept for the OOM victim check. */
static char logged[16384];

static void capture_log(enum ebpf_log_level level, const char *msg)
{
	size_t used = strlen(logged);

	if (level > EBPF_LOG_INFO) /* libbpf's own chatter */
		return;
	fprintf(stderr, "log: %s\n", msg);
	snprintf(logged + used, sizeof(logged) - used, "%s\n", msg);
}

static void exec_true(int n)
{
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

static void *thread_body(void *arg)
{
	*(pid_t *)arg = gettid();
	return NULL;
}

/* Runs one thread to its end. pthread_join returns when the kernel clears the thread's tid
 * (exit_mm), and on older kernels do_exit fires sched_process_exit only after that (newer
 * ones moved the tracepoint ahead of exit_mm): a read right after the join can come before
 * the thread's exit event (on Debian's 6.1 and 6.12 it did, every time). The thread's /proc entry goes only in release_task, after the tracepoint on every
 * kernel, so its disappearance is the point from which the exit is countable. */
static void run_thread_to_exit(void)
{
	char path[64];
	pthread_t th;
	pid_t tid = 0;
	int i;

	CHECK(pthread_create(&th, NULL, thread_body, &tid) == 0);
	CHECK(pthread_join(th, NULL) == 0);
	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	for (i = 0; i < 500 && access(path, F_OK) == 0; i++)
		usleep(1000);
	CHECK(tid > 0 && access(path, F_OK) != 0);
}

static struct module *start_process(const char *method, bool filtered)
{
	struct module *m = module_new(module_find("process"), NULL);
	struct opt_value order = { .type = OPT_STRING, .string = method };
	struct option o = { .key = "AttachOrder", .values = &order, .nvalues = 1 };
	char err[ERR_MAX] = "";

	CHECK(m != NULL);
	if (filtered)
		m->filter_tgid = getpid();
	CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
	return start_on_method(m, method);
}

/* Exact counts for our own process tree. */
static void run_filtered(const char *method)
{
	const int n = 50;
	struct module *m = start_process(method, true);
	uint64_t untraced_before;
	struct seen s;

	if (!m)
		return;
	s = read_module(m);
	CHECK_EQ_U64(s.execs, 0);
	untraced_before = s.untraced;
	exec_true(n);
	run_thread_to_exit();
	s = read_module(m);
	printf("%-10s filtered: forks %llu execs %llu exits %llu thread_exits %llu\n", method,
	       (unsigned long long)s.forks, (unsigned long long)s.execs, (unsigned long long)s.exits,
	       (unsigned long long)s.thread_exits);
	CHECK_EQ_U64(s.forks, n + 1); /* n processes and one thread */
	CHECK_EQ_U64(s.execs, n);
	CHECK_EQ_U64(s.exits, n);
	CHECK_EQ_U64(s.thread_exits, 1);
	/* tp_btf and raw_tp have a witness per point; every point sends what its program
	 * missed, here nothing */
	CHECK_EQ_U64(s.untraced_points, strcmp(method, "tracepoint") ? 4 : 0);
	CHECK_EQ_U64(s.untraced - untraced_before, 0);
	module_free(m);
}

/* The exec witness counts what the program did not run for: with the module's exec
 * program detached (its link destroyed, as a kernel that skipped it would leave it), our n
 * execs are untraced and not counted. The witness sees the whole machine, so other
 * processes' execs (parallel tests) only add. */
static void run_witness_catches(const char *method)
{
	const int n = 20;
	struct module *m = start_process(method, true);
	struct seen a, b;

	if (!m)
		return;
	a = read_module(m);
	detach_module_program(m, "sched_process_exec");
	exec_true(n);
	b = read_module(m);
	printf("%-10s the exec program detached: %d execs, counted %llu, untraced %llu\n", method, n,
	       (unsigned long long)(b.execs - a.execs), (unsigned long long)(b.untraced_execs - a.untraced_execs));
	CHECK_EQ_U64(b.execs - a.execs, 0);
	CHECK(b.untraced_execs - a.untraced_execs >= (uint64_t)n);
	module_free(m);
}

/* The whole machine: at least our n; other processes (parallel tests) only add. The exact
 * upper bound is the filtered run's job. */
static void run_unfiltered(void)
{
	const int n = 100;
	struct module *m = start_process("tp_btf", false);
	struct seen a, b;

	if (!m)
		return;
	a = read_module(m);
	exec_true(n);
	b = read_module(m);
	printf("unfiltered: execs +%llu exits +%llu forks +%llu for %d exec of /bin/true\n",
	       (unsigned long long)(b.execs - a.execs), (unsigned long long)(b.exits - a.exits),
	       (unsigned long long)(b.forks - a.forks), n);
	CHECK(b.execs - a.execs >= (uint64_t)n);
	CHECK(b.exits - a.exits >= (uint64_t)n);
	CHECK(b.forks - a.forks >= (uint64_t)n);
	module_free(m);
}

static void run_oom(const char *method, const struct oom_cgroup *cg)
{
	struct module *m = start_process(method, false);
	char expect[128];
	int killed;
	pid_t victim;
	struct seen a, b;

	if (!m)
		return;
	a = read_module(m);
	logged[0] = '\0';
	victim = oom_cgroup_run_hog(cg, HOG_COMM, &killed);
	CHECK(victim > 0);
	CHECK(killed);
	b = read_module(m);
	printf("%-10s oom: victim %d, oom_kills +%llu, lost %llu\n", method, (int)victim,
	       (unsigned long long)(b.oom_kills - a.oom_kills), (unsigned long long)b.oom_lost);
	CHECK(b.oom_kills - a.oom_kills >= 1);
	CHECK_EQ_U64(b.oom_lost, 0);
	snprintf(expect, sizeof(expect), "OOM kill: victim pid %d (%s)", (int)victim, HOG_COMM);
	CHECK(strstr(logged, expect) != NULL);
	module_free(m);
}

int main(int argc, char **argv)
{
	struct method_list methods;
	struct oom_cgroup cg;
	char name[64], why[ERR_MAX];

	require_bpf_tracing("/sys/kernel/tracing/events/sched");
	ebpf_log_set_handler(capture_log);

	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n; i++)
		run_filtered(methods.names[i]);
	run_unfiltered();
	for (int i = 0; i < methods.n; i++)
		if (strcmp(methods.names[i], "tracepoint"))
			run_witness_catches(methods.names[i]);

	snprintf(name, sizeof(name), "ebpf-test-oom-%d", (int)getpid());
	if (oom_cgroup_create(&cg, name, 32 << 20, why, sizeof(why))) {
		/* Only the OOM part depends on the cgroup: report the rest, then skip. */
		int rc = testing_done();

		if (rc)
			return rc;
		SKIP("OOM part: %s", why);
	}
	printf("OOM cgroup: %s (cgroup v%d)\n", cg.path, cg.v2 ? 2 : 1);
	for (int i = 0; i < methods.n; i++)
		run_oom(methods.names[i], &cg);
	oom_cgroup_remove(&cg);
	return testing_done();
}
