/* Root test of the cost window (libcore/engine/cost_window.c): each module's CPU cost,
 * measured with the kernel's BPF run-time statistics on only for a short window of every
 * period, and carried between windows by the module's own event counts.
 *
 * The syscalls module (counters only, this process only) runs while a thread of this
 * process calls getppid() in a tight loop; the holder runs with CostPeriod 1 and CostWindow
 * 0.25 (the knob the plugin's options set) for about 5 s, and the test:
 *  - reads the module every 0.4 s: no cpu_cost before the first window; after it, every
 *    read sends cpu_cost > 0, within 40 % of what the last window measured (the load is
 *    steady, so carrying the cost by the call counts must give the window's figure);
 *  - inside a window reads the program's run_time_ns itself twice, 0.1 s apart: the
 *    window's run time per second must agree with that within a factor of 1.6, and the
 *    value the module sends is that run time times the tp_btf attach overhead ratio;
 *  - every 5 ms looks whether this process holds a statistics fd (anon_inode:bpf-stats in
 *    /proc/self/fd) and reads the program's run_cnt, which the kernel counts only while the
 *    statistics are on: the fd is held in about a quarter of the samples (10 % to 45 %)
 *    and only inside windows, run_cnt grows inside windows and not by one run between
 *    them, and no fd is left after the holder stops: the duty cycle releases the
 *    statistics between windows. (/proc/sys/kernel/bpf_stats_enabled cannot tell: it
 *    shows only what was written to it, not the fds.)
 * Then, in a child that drops CAP_SYS_ADMIN (keeping CAP_BPF and CAP_PERFMON, which the
 * module needs), the statistics cannot be turned on: the holder says so in one log line,
 * no cpu_cost is sent, and the module reads as before. */
#define _GNU_SOURCE
#include "libcore/engine/cost_window.h"
#include "libcore/kernel/prog_stats.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>


static atomic_bool stop;

static void *getppid_loop(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		syscall(SYS_getppid);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* How many BPF statistics fds this process holds. */
static int stats_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[300], target[64];
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = '\0';
			n += !strcmp(target, "anon_inode:bpf-stats");
		}
	}
	if (d)
		closedir(d);
	return n;
}

struct sums {
	uint64_t runs, run_time_ns;
};

static void sum_prog(void *ctx, const struct prog_stats *s)
{
	((struct sums *)ctx)->runs += s->runs;
	((struct sums *)ctx)->run_time_ns += s->run_time_ns;
}

static struct sums prog_sums(const struct module *m)
{
	struct sums s = { 0 };

	bpf_object_prog_stats(m->probes.obj, sum_prog, &s);
	return s;
}

static struct module *started_syscalls(void)
{
	struct module *m = mt_module("syscalls", "auto", NULL);

	if (m && module_start(m)) {
		printf("  syscalls did not start: %s\n", m->last_error);
		CHECK(!"syscalls starts");
		module_free(m);
		return NULL;
	}
	return m;
}

/* cpu_cost of one read: true with it in *pct. */
static bool read_cost(struct module *m, double *pct)
{
	struct recording r = { 0 };
	bool sent;

	CHECK(recording_read(&r, m) == 0);
	sent = recorded_gauge(&r, "cpu_cost", "", pct);
	recording_free(&r);
	return sent;
}

static void duty_cycle(void)
{
	struct module *m = started_syscalls();
	char err[256];
	pthread_t worker;
	double t0, next_read, pct, witness = 0, witness_window_t = 0;
	int samples = 0, on = 0, reads = 0, sent = 0, close_enough = 0, off_intervals = 0;
	uint64_t runs_off = 0, runs_on = 0, prev_runs = 0, prev_windows = 0;
	bool prev_off = false;
	struct cost_measure cm = { 0 };

	if (!m)
		return;
	CHECK(!read_cost(m, &pct)); /* no window has priced it yet */
	CHECK(cost_window_configure(1.0, 1.0, err, sizeof(err)) == -1); /* the window must be shorter */
	printf("  refused as it should be: %s\n", err);
	CHECK(cost_window_configure(1.0, 0.25, err, sizeof(err)) == 0);
	atomic_store(&stop, false);
	CHECK(pthread_create(&worker, NULL, getppid_loop, NULL) == 0);
	CHECK(cost_window_start() == 0);
	t0 = now_s();
	next_read = t0 + 0.4;
	while (now_s() - t0 < 5.2) {
		bool open1 = cost_window_open(), off;
		int fds = stats_fds();
		uint64_t runs = prog_sums(m).runs, windows = cost_window_measure(m, &cm) ? cm.windows : 0;

		off = !open1 && !cost_window_open();
		samples++;
		on += fds;
		if (fds && off) /* an fd outside a window */
			CHECK(!"the statistics' fd is closed between windows");
		if (off && prev_off && windows == prev_windows) {
			runs_off += runs - prev_runs; /* no window in between: must be 0 */
			off_intervals++;
		} else if (samples > 1) {
			runs_on += runs - prev_runs;
		}
		prev_off = off;
		prev_runs = runs;
		prev_windows = windows;
		/* the kernel's own run time, inside the second window */
		if (!witness && cost_window_open() && now_s() - t0 > 0.9) {
			uint64_t a = prog_sums(m).run_time_ns, b;
			double ta = now_s(), tb;

			usleep(100000);
			b = prog_sums(m).run_time_ns;
			tb = now_s();
			if (cost_window_open()) {
				witness = (double)(b - a) / (tb - ta);
				witness_window_t = tb;
			}
		}
		if (witness && witness_window_t && !cost_window_open()) {
			CHECK(cost_window_measure(m, &cm));
			printf("  window: %.0f ns/s of run time (the test's own reading: %.0f), %.0f ns/s with the "
			       "attach overhead, %llu runs\n", cm.raw_ns_per_s, witness, cm.ns_per_s,
			       (unsigned long long)cm.runs);
			CHECK(cm.raw_ns_per_s > witness / 1.6 && cm.raw_ns_per_s < witness * 1.6);
			CHECK(cm.ns_per_s > cm.raw_ns_per_s * attach_overhead_ratio(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP) * 0.999);
			witness_window_t = 0;
		}
		if (now_s() >= next_read) {
			reads++;
			next_read += 0.4;
			if (read_cost(m, &pct)) {
				struct cost_measure last;

				sent++;
				CHECK(cost_window_measure(m, &last));
				printf("  read %d: cpu_cost %.3f %% of a CPU; last window %.3f %%\n", reads, pct,
				       last.ns_per_s / 1e7);
				CHECK(pct > 0);
				close_enough += pct > last.ns_per_s / 1e7 / 1.4 && pct < last.ns_per_s / 1e7 * 1.4;
			}
		}
		usleep(5000);
	}
	cost_window_stop();
	atomic_store(&stop, true);
	pthread_join(worker, NULL);
	printf("  statistics fd held in %d of %d samples (%.0f %%; the window is 25 %% of the period); runs "
	       "counted: %llu across windows, %llu in %d intervals between them\n", on, samples, 100.0 * on / samples,
	       (unsigned long long)runs_on, (unsigned long long)runs_off, off_intervals);
	if (runs_off)
		printf("  runs were counted between windows: does another process hold the BPF run-time "
		       "statistics (sysctl kernel.bpf_stats_enabled, CollectCost true)?\n");
	CHECK(witness > 0);
	CHECK(on > samples / 10 && on < samples * 45 / 100);
	CHECK(runs_on > 0 && off_intervals > samples / 2 && runs_off == 0);
	CHECK(stats_fds() == 0 && !cost_window_open());
	CHECK(sent >= reads - 2 && sent >= 8);
	/* a read right after a window may price it on a partial interval: most, not all */
	CHECK(close_enough >= sent * 3 / 4);
	printf("  %d reads, cpu_cost sent by %d, within 40 %% of the window by %d\n", reads, sent, close_enough);
	module_free(m);
}

/* ---- without CAP_SYS_ADMIN --------------------------------------------------------------- */

static int notices;

static void count_notices(enum ebpf_log_level level, const char *msg)
{
	if (level == EBPF_LOG_NOTICE && strstr(msg, "cannot turn on the kernel's BPF run-time statistics")) {
		notices++;
		printf("  logged: %s\n", msg);
	}
}

static int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].permitted &= ~(1u << (CAP_SYS_ADMIN % 32));
	return (int)syscall(SYS_capset, &h, d);
}

static void without_capability(void)
{
	pid_t pid = (fflush(stdout), fork());
	int status;

	if (pid == 0) {
		struct module *m;
		char err[256];
		double pct;
		int reads_ok = 0, sent = 0;

		ebpf_log_set_handler(count_notices);
		CHECK(drop_sys_admin() == 0);
		CHECK(bpf_enable_stats(BPF_STATS_RUN_TIME) < 0); /* really without */
		m = started_syscalls();
		if (!m) {
			fflush(stdout);
			_exit(1);
		}
		CHECK(cost_window_configure(0.3, 0.1, err, sizeof(err)) == 0);
		CHECK(cost_window_start() == 0);
		for (int i = 0; i < 10; i++) {
			usleep(150000);
			sent += read_cost(m, &pct);
			reads_ok++;
		}
		cost_window_stop();
		printf("  %d reads, cpu_cost sent by %d, the notice logged %d time(s)\n", reads_ok, sent, notices);
		CHECK(sent == 0 && notices == 1);
		CHECK(m->state == MODULE_RUNNING || m->state == MODULE_DEGRADED);
		module_free(m);
		status = testing_done();
		fflush(stdout);
		_exit(status);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	mt_require_root();
	mt_log_reset();
	printf("duty cycle (CostPeriod 1, CostWindow 0.25):\n");
	duty_cycle();
	printf("without CAP_SYS_ADMIN:\n");
	without_capability();
	return testing_done();
}
