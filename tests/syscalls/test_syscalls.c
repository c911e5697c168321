/* Root test: loads the real syscalls programs into the running kernel with every attach
 * method, runs a workload with a known number of calls from this process (the programs
 * filter on our tgid), and asserts exact counts and latencies consistent with the wall
 * time measured around each call. The witnesses (witness.h) run only with `Witness true`:
 * then, with tp_btf and raw_tp, the point sends "untraced", and with the module's program
 * detached every call of ours is in it. */
#include "base/log.h"
#include "libcore/engine/module.h"
#include "tests/support/attach_methods.h"
#include "tests/support/bpf_requirements.h"
#include "tests/support/detach_program.h"
#include "tests/support/start_on_method.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct seen {
	uint64_t fsync_calls, fsync_errors, close_errors, close_calls, start_lost, out_of_range;
	int latency_series;
	int untraced_points;   /* points that sent "untraced" (only with Witness true) */
	uint64_t untraced;
	struct hist_interval fsync;
	bool got_fsync_latency;
};

static struct seen read_module(struct module *m)
{
	struct recording r = { 0 };
	struct seen s = { 0 };
	const struct recorded_value *fsync;

	CHECK(recording_read(&r, m) == 0);
	s.fsync_calls = recorded_counter(&r, "calls", "fsync");
	s.fsync_errors = recorded_counter(&r, "errors", "fsync");
	s.close_calls = recorded_counter(&r, "calls", "close");
	s.close_errors = recorded_counter(&r, "errors", "close");
	s.start_lost = recorded_counter(&r, "dropped", "start_lost");
	s.out_of_range = recorded_counter(&r, "dropped", "out_of_range");
	s.latency_series = recorded_count(&r, RECORDED_HISTOGRAM, NULL, NULL);
	s.untraced_points = recorded_count(&r, RECORDED_COUNTER, "untraced", NULL);
	s.untraced = recorded_counter(&r, "untraced", NULL);
	fsync = recorded(&r, RECORDED_HISTOGRAM, "latency", "fsync");
	if (fsync) {
		s.fsync = *fsync->hist;
		s.got_fsync_latency = true;
	}
	recording_free(&r);
	return s;
}

static void on_sigusr1(int sig)
{
	(void)sig;
}

/* n fsync() calls on a file with one dirty byte each; returns the summed wall time of the
 * calls themselves, and fills the slots the user-space durations fall in. */
/* tmpfs and ramfs keep no device behind a file: fsync returns without writing. */
static bool on_ram_filesystem(int fd)
{
	struct statfs st;

	return fstatfs(fd, &st) == 0 && (st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC);
}

static uint64_t fsync_workload(int fd, int n, uint64_t *max_call_ns)
{
	uint64_t total = 0;

	for (int i = 0; i < n; i++) {
		uint64_t t0, dt;

		if (pwrite(fd, "x", 1, i % 4096) != 1)
			abort();
		t0 = testing_now_ns();
		if (fsync(fd))
			abort();
		dt = testing_now_ns() - t0;
		total += dt;
		if (dt > *max_call_ns)
			*max_call_ns = dt;
	}
	return total;
}

static struct module *start_syscalls(const char *method, bool latency, char *err, size_t len)
{
	struct module *m = module_new(module_find("syscalls"), NULL);
	struct opt_value order = { .type = OPT_STRING, .string = method };
	struct opt_value fsync_name = { .type = OPT_STRING, .string = "fsync" };
	struct option o1 = { .key = "AttachOrder", .values = &order, .nvalues = 1 };
	struct option o2 = { .key = "Latency", .values = &fsync_name, .nvalues = 1 };

	m->filter_tgid = getpid();
	CHECK(module_set_option(m, &o1, err, len) == 0);
	if (latency)
		CHECK(module_set_option(m, &o2, err, len) == 0);
	return m;
}

static void set_witness_on(struct module *m)
{
	struct opt_value on = { .type = OPT_BOOLEAN, .boolean = true };
	struct option o = { .key = "Witness", .values = &on, .nvalues = 1 };
	char err[ERR_MAX] = "";

	CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
}

/* `Witness true` (tp_btf, raw_tp): the running point sends "untraced". With its first
 * program detached (sys_exit's counter, or the latency point's sys_enter), a kernel that
 * skipped it made on purpose: n fsyncs of ours are untraced. The witness sees the whole
 * machine, so others' syscalls only add. Counters alone: none of them counted. With
 * latency: all counted at sys_exit, none timed (their start was never stored). */
static void run_witness(const char *method, bool latency, int fd)
{
	char err[ERR_MAX] = "";
	struct module *m = start_syscalls(method, latency, err, sizeof(err));
	const char *point = latency ? "sys_enter+sys_exit" : "sys_exit";
	const int n = 300;
	uint64_t max_call = 0;
	struct seen a, b;

	set_witness_on(m);
	if (!start_or_fail(m, method))
		return;
	a = read_module(m);
	/* a variant that shares the witnesses with another got them loaded too */
	CHECK(!strstr(m->probes.points[latency ? 1 : 0].failures, "witness"));
	CHECK_EQ_U64(a.untraced_points, 1); /* the running point only */
	detach_module_program(m, point);
	fsync_workload(fd, n, &max_call);
	b = read_module(m);
	printf("%-10s latency=%d, Witness true, %s's first program detached: %d fsyncs, counted %llu, timed %llu, "
	       "untraced %llu\n",
	       method, latency, point, n, (unsigned long long)(b.fsync_calls - a.fsync_calls),
	       (unsigned long long)(b.got_fsync_latency ? b.fsync.count : 0),
	       (unsigned long long)(b.untraced - a.untraced));
	CHECK_EQ_U64(b.untraced_points, 1);
	CHECK(b.untraced - a.untraced >= (uint64_t)n);
	CHECK_EQ_U64(b.fsync_calls - a.fsync_calls, latency ? (uint64_t)n : 0);
	if (latency)
		CHECK_EQ_U64(b.got_fsync_latency ? b.fsync.count : 0, 0);
	module_free(m);
}

static void run_method(const char *method, bool latency, int fd)
{
	char err[ERR_MAX] = "", used[64];
	struct module *m = start_syscalls(method, latency, err, sizeof(err));
	const int n1 = 1000, n2 = 500, nclose = 200;
	uint64_t wall1, wall2, max_call = 0;
	struct seen s;

	if (module_start(m)) {
		fprintf(stderr, "%s%s: start failed: %s\n", method, latency ? "+latency" : "", m->last_error);
		CHECK(!"module started");
		module_free(m);
		return;
	}
	probe_point_method(&m->probes.points[latency ? 1 : 0], used, sizeof(used));
	printf("%-10s latency=%d attached via %s\n", method, latency, used);
	CHECK(!strncmp(used, method, strlen(method)));

	s = read_module(m);
	CHECK_EQ_U64(s.fsync_calls, 0);

	wall1 = fsync_workload(fd, n1, &max_call);
	for (int i = 0; i < nclose; i++)
		CHECK(close(-1) == -1 && errno == EBADF);
	s = read_module(m);
	CHECK_EQ_U64(s.fsync_calls, n1);
	CHECK_EQ_U64(s.fsync_errors, 0);
	CHECK_EQ_U64(s.close_errors, nclose);
	CHECK(s.close_calls >= nclose); /* libc and libbpf close fds of their own too */
	if (latency) {
		CHECK(s.got_fsync_latency);
		CHECK_EQ_U64(s.fsync.count, n1);
		CHECK_EQ_U64(s.fsync.total_count, n1);
		CHECK_EQ_U64(s.start_lost, 0);
		/* The kernel's time in fsync lies inside the user-space measurement of each call,
		 * and where fsync writes to a device that write is most of the call. On a RAM
		 * filesystem (the VMs' initramfs) fsync does nothing (0.7 us a call) while the
		 * user-space measurement holds the emulated syscall entry and exit and every
		 * preemption by a loaded host (25 us a call seen): there only a floor of 10 ns a
		 * call, which empty or misplaced slots would break. */
		CHECK(s.fsync.sum <= wall1);
		CHECK(s.fsync.sum >= (uint64_t)n1 * 10);
		if (!on_ram_filesystem(fd))
			CHECK(s.fsync.sum >= wall1 / 10);
		CHECK(hist_percentile(&s.fsync, 100) <= 2.0 * (double)max_call);
		CHECK(s.latency_series == 1); /* only fsync has latency enabled */
		printf("  fsync: %d calls, kernel %.1f us mean, user %.1f us mean, p50 %.1f us, p99 %.1f us\n", n1,
		       hist_mean(&s.fsync) / 1e3, (double)wall1 / n1 / 1e3, hist_percentile(&s.fsync, 50) / 1e3,
		       hist_percentile(&s.fsync, 99) / 1e3);
	} else {
		CHECK(s.latency_series == 0);
	}
	CHECK_EQ_U64(s.untraced_points, 0); /* the witnesses are opt-in here */

	/* Every signal handler returns through rt_sigreturn, whose exit the kernel reports with
	 * syscall number -1: not a syscall we lost, so nothing is counted as dropped. */
	signal(SIGUSR1, on_sigusr1);
	for (int i = 0; i < 100; i++)
		raise(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	s = read_module(m);
	CHECK_EQ_U64(s.out_of_range, 0);

	/* Interval deltas: the next read sees only the new calls; lifetime counts keep growing. */
	wall2 = fsync_workload(fd, n2, &max_call);
	s = read_module(m);
	CHECK_EQ_U64(s.fsync_calls, n1 + n2);
	if (latency) {
		CHECK_EQ_U64(s.fsync.count, n2);
		CHECK_EQ_U64(s.fsync.total_count, n1 + n2);
		CHECK(s.fsync.sum <= wall2);
	}
	module_free(m);
}

static void test_excluded_methods(void)
{
	char err[ERR_MAX] = "";
	struct module *m = start_syscalls("fentry", false, err, sizeof(err));

	CHECK(module_start(m) == -1);
	CHECK(m->state == MODULE_UNSUPPORTED);
	CHECK(strstr(m->last_error, "AttachOrder excludes") != NULL);
	module_free(m);
}

/* Without privileges the error names root, CAP_BPF and CAP_PERFMON. */
static void test_unprivileged(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		char err[ERR_MAX] = "";
		struct module *m;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		m = start_syscalls("tp_btf", false, err, sizeof(err));
		if (module_start(m) == 0)
			_exit(1);
		fprintf(stderr, "unprivileged start: %s\n", m->last_error);
		_exit(strstr(m->last_error, "CAP_BPF") && strstr(m->last_error, "root") ? 0 : 2);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv)
{
	struct method_list methods;
	char path[] = "/var/tmp/ebpf-test-syscalls-XXXXXX";
	int fd;

	/* Classic tracepoints are found through tracefs, which this machine does not mount at
	 * boot; as root the test mounts it rather than skipping that method. */
	require_bpf_tracing("/sys/kernel/tracing/events/raw_syscalls");

	fd = testing_unlinked_temp_file(path);

	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n; i++) {
		run_method(methods.names[i], false, fd);
		run_method(methods.names[i], true, fd);
		if (strcmp(methods.names[i], "tracepoint")) { /* the classic method has no witness */
			run_witness(methods.names[i], false, fd);
			run_witness(methods.names[i], true, fd);
		}
	}
	test_excluded_methods();
	test_unprivileged();
	close(fd);
	return testing_done();
}
