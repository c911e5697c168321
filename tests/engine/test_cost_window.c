/* Root test of the cost window (libcore/engine/cost_window.c): each module's CPU cost,
 * measured with the kernel's BPF run-time statistics on for one read interval of every
 * CostPeriod intervals, and carried between windows by the module's own event counts.
 *
 * The syscalls module (counters only, this process only) runs while a thread of this
 * process calls getppid() in a tight loop; the module is read every 0.3 s for 6 s with
 * CostPeriod 3 (the knob the plugin's option sets), and the test checks:
 *  - no cpu_cost at the first read (no window has measured yet); from the second on, every
 *    read sends cpu_cost > 0, within a factor of 2 of what the last window measured, and
 *    most reads within 40 % (the load is steady, so carrying the cost by the call counts
 *    gives about the window's figure; the loop runs faster outside windows, where the
 *    statistics do not slow it, so the carried cost is somewhat higher);
 *  - inside a window the test reads the program's run_time_ns itself twice, 0.1 s apart:
 *    the window's run time per second agrees with that within a factor of 1.6; the cost
 *    is that run time plus the tp_btf overhead per run; the window counted at least as many
 *    runs as events (the program runs for every syscall of the host);
 *  - every 5 ms, whether this process holds a statistics fd (anon_inode:bpf-stats in
 *    /proc/self/fd) and the program's run_cnt, which the kernel counts only while the
 *    statistics are on: the fd is held in about a third of the samples (20 % to 50 %),
 *    only inside windows; run_cnt grows inside windows and not by one run between them;
 *    no fd is left after cost_window_stop(). (/proc/sys/kernel/bpf_stats_enabled cannot
 *    tell: it shows what was written to it, not the fds.)
 * The attach point: a window over the signals module (tp_btf on signal_deliver, away from the
 * syscall tracepoints) while the test raises 2,000 signals at itself adds the tp_btf overhead
 * of a point elsewhere per hit (20 ns; two programs run at each, the module's and its
 * witness), not that of the syscall points (40 ns, where every syscall takes the kernel's
 * slow path): bench/cost_modules measured 20 to 23 ns per hit there, and the syscall figure
 * made the signals module read 1.43x the bench.
 * Several programs on one point: a window over vfs's syscall fallback (four programs on
 * sys_enter, four on sys_exit) while the test makes 2,000 one-byte reads adds the overhead
 * once per hit of each point, a quarter of its runs, and counts the reads as its events.
 * The default period: a module whose runs cost little gets a longer one, so that the duty
 * cycle's tax (the statistics' COST_STATS_TAX_NS per run, over the period) stays within
 * 1.5 % of its measured cost (signals' 145 ns per run paid 3.9 % at one interval in 60), up to 4 times the
 * default; a costly one keeps the default. In a child that never set CostPeriod, a window
 * over the signals module (2,000 signals, each a cheap run) closes with that longer period.
 * Then, in a child that drops CAP_SYS_ADMIN (keeping CAP_BPF and CAP_PERFMON, which the
 * module needs), the statistics cannot be turned on: one log line says so, no cpu_cost is
 * sent, and the module reads as before. */
#define _GNU_SOURCE
#include "libcore/engine/cost_window.h"
#include "libcore/kernel/prog_stats.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"
#include "base/err_max.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
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

struct duty {
	int samples, held, off_intervals;
	uint64_t runs_on, runs_off, prev_runs;
	bool prev_off;
};

/* One sample: the fd, run_cnt, and whether a window was open around both. */
static void sample(struct duty *d, const struct module *m)
{
	bool open1 = cost_window_rounds().open;
	int fds = stats_fds();
	uint64_t runs = prog_sums(m).runs;
	bool off = !open1 && !cost_window_rounds().open;

	d->samples++;
	d->held += fds;
	if (fds && off)
		CHECK(!"the statistics' fd is closed between windows");
	if (d->samples > 1) {
		if (off && d->prev_off) {
			d->runs_off += runs - d->prev_runs; /* no window in between: must be 0 */
			d->off_intervals++;
		} else {
			d->runs_on += runs - d->prev_runs;
		}
	}
	d->prev_off = off;
	d->prev_runs = runs;
}

/* The test's own run time per second of the module's programs, over 0.1 s inside a window. */
static double own_reading(const struct module *m)
{
	struct sums a = prog_sums(m), b;
	double ta = now_s(), tb;

	usleep(100000);
	b = prog_sums(m);
	tb = now_s();
	return (double)(b.run_time_ns - a.run_time_ns) / (tb - ta);
}

static void check_window(const struct cost_measure *cm, double own)
{
	double ovh = attach_overhead_ns(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, "tp_btf/sys_exit");
	double expect = cm->raw_ns_per_s + (double)cm->runs * ovh / cm->seconds;

	printf("  window of %.2f s: %.0f ns/s of run time (the test's own reading: %.0f), %.0f ns/s with %.0f ns "
	       "per run for tp_btf, %llu runs, %llu events\n", cm->seconds, cm->raw_ns_per_s, own, cm->ns_per_s, ovh,
	       (unsigned long long)cm->runs, (unsigned long long)cm->events);
	CHECK(cm->raw_ns_per_s > own / 1.6 && cm->raw_ns_per_s < own * 1.6);
	CHECK(fabs(cm->ns_per_s - expect) <= 0.001 * expect);
	/* Every event is a run, but the two are read at different moments of a read (the
	 * module's counts with its maps, the programs' statistics at the read's end), so under a
	 * workload of millions of syscalls a second the window's runs can fall short of its events
	 * by the ~1 ms between them (seen: 670,728 runs for 672,563 events): 2% is that, with room.
	 * The time between the two moments is the host's: the sanitized build beside two VMs
	 * and a Debian 13 build was held there longer at the window's first read than at its
	 * last (seen: 545,609 runs for 560,241 events, 2.6 % short), so a window short of it is
	 * measured again (testing_load_retry in main), and a third fails. */
	CHECK(cm->events > 0);
	CHECK_UNDER_LOAD((double)cm->runs >= 0.98 * (double)cm->events);
}

static void duty_cycle(void)
{
	struct module *m = mt_started("syscalls", "tp_btf");
	struct duty d = { 0 };
	char err[ERR_MAX];
	pthread_t worker;
	double t0, next_read, pct, own = 0;
	int reads = 0, sent = 0, close_enough = 0;
	uint64_t checked_windows = 0;

	if (!m)
		return;
	CHECK(cost_window_configure(1, err, sizeof(err)) == -1);
	printf("  refused as it should be: %s\n", err);
	CHECK(cost_window_configure(3, err, sizeof(err)) == 0);
	atomic_store(&stop, false);
	CHECK(pthread_create(&worker, NULL, getppid_loop, NULL) == 0);
	CHECK(!read_cost(m, &pct)); /* the first read opens the first window */
	/* unless this is a measure-again run (main) and the last run's period, CostPeriod times
	 * its last window, has not ended yet: then a read once it has */
	for (int i = 0; i < 40 && !cost_window_rounds().open; i++) {
		usleep(50000);
		CHECK(!read_cost(m, &pct));
	}
	CHECK(cost_window_rounds().open);
	t0 = now_s();
	next_read = t0 + 0.3;
	while (now_s() - t0 < 6) {
		struct cost_measure cm;

		sample(&d, m);
		if (!own && cost_window_rounds().open && now_s() < next_read - 0.15)
			own = own_reading(m);
		if (now_s() < next_read) {
			usleep(5000);
			continue;
		}
		next_read += 0.3;
		reads++;
		if (!read_cost(m, &pct))
			continue;
		sent++;
		CHECK(cost_window_measure(m, &cm));
		printf("  read %d: cpu_cost %.3f %% of a CPU; last window %.3f %%\n", reads, pct, cm.ns_per_s / 1e7);
		/* Between windows the cost is the window's price times this read's events: it
		 * follows the event rate, which other work on the host moves (seen: 44.5 % against
		 * a window's 25.5 % in the sanitized lane beside qemu), so a read off by 2x is
		 * measured again rather than failed (testing_load_retry in main). */
		CHECK_UNDER_LOAD(pct > cm.ns_per_s / 1e7 / 2 && pct < cm.ns_per_s / 1e7 * 2);
		close_enough += pct > cm.ns_per_s / 1e7 / 1.4 && pct < cm.ns_per_s / 1e7 * 1.4;
		if (own && !checked_windows) {
			check_window(&cm, own);
			checked_windows = cm.windows;
		}
	}
	cost_window_stop();
	atomic_store(&stop, true);
	pthread_join(worker, NULL);
	printf("  statistics fd held in %d of %d samples (%.0f %%; a window is 1 of 3 intervals); runs counted: "
	       "%llu in windows, %llu in %d intervals between them\n", d.held, d.samples, 100.0 * d.held / d.samples,
	       (unsigned long long)d.runs_on, (unsigned long long)d.runs_off, d.off_intervals);
	if (d.runs_off)
		printf("  runs were counted between windows: does another process hold the BPF run-time "
		       "statistics (sysctl kernel.bpf_stats_enabled, CollectCost true)?\n");
	CHECK(own > 0 && checked_windows > 0);
	CHECK(d.held > d.samples / 5 && d.held < d.samples / 2);
	CHECK(d.runs_on > 0 && d.off_intervals > d.samples / 3 && d.runs_off == 0);
	CHECK(stats_fds() == 0 && !cost_window_rounds().open);
	CHECK(sent == reads && sent >= 15);
	/* Half the reads within 40 % of their window: the event rate again, as above (seen: 9 of
	 * 20 in the sanitized lane beside two VMs and a build, 12 of 19 when measured again). */
	CHECK_UNDER_LOAD(close_enough >= sent / 2);
	printf("  %d reads after the first, cpu_cost sent by %d, within 40 %% of the last window by %d\n", reads,
	       sent, close_enough);
	module_free(m);
}

/* ---- the attach point -------------------------------------------------------------------- */

static void on_usr1(int sig)
{
	(void)sig;
}

static void attach_point(void)
{
	struct module *m = mt_started("signals", "tp_btf");
	double elsewhere = attach_overhead_ns(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, "tp_btf/signal_generate");
	double syscalls = attach_overhead_ns(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, "tp_btf/sys_exit");
	struct cost_measure cm = { 0 };
	char err[ERR_MAX];
	double pct, added;

	if (!m)
		return;
	CHECK(elsewhere > 0 && elsewhere < syscalls);
	CHECK(cost_window_configure(2, err, sizeof(err)) == 0);
	signal(SIGUSR1, on_usr1);
	CHECK(!read_cost(m, &pct)); /* opens the window */
	CHECK(cost_window_rounds().open);
	for (int i = 0; i < 2000; i++)
		raise(SIGUSR1);
	read_cost(m, &pct); /* closes it */
	CHECK(cost_window_measure(m, &cm));
	cost_window_stop();
	added = (cm.ns_per_s - cm.raw_ns_per_s) * cm.seconds;
	/* two programs on signal_deliver (the module's and its witness): a hit is two runs */
	printf("  signals (tp_btf, signal_deliver, with its witness): %llu runs in a window of %.3f s, %.0f ns over "
	       "their run time: %.1f ns per hit (%.0f for a point elsewhere, %.0f on the syscall points)\n",
	       (unsigned long long)cm.runs, cm.seconds, added, cm.runs ? 2 * added / (double)cm.runs : 0, elsewhere,
	       syscalls);
	CHECK(cm.runs >= 2 * 2000);
	CHECK(fabs(added - (double)cm.runs / 2 * elsewhere) <= 0.001 * (double)cm.runs / 2 * elsewhere);
	signal(SIGUSR1, SIG_DFL);
	module_free(m);
}

/* Between windows signals carries its price by its deliveries: a quiet read costs nothing,
 * a storm what the window priced a delivery times the storm's deliveries. Without event
 * counts both reads would send the window's own cost per second. In a child: the round's
 * timing (CostPeriod 100000 after the window) is the process's. */
static void storm_between_windows(void)
{
	struct module *m = mt_started("signals", "tp_btf");
	struct cost_measure cm = { 0 };
	char err[ERR_MAX];
	double quiet = -1, storm = -1, price, t0, t1, want;

	if (!m)
		return;
	signal(SIGUSR1, on_usr1);
	CHECK(cost_window_configure(2, err, sizeof(err)) == 0);
	read_cost(m, &quiet); /* opens the window */
	for (int i = 0; i < 2000; i++)
		raise(SIGUSR1);
	/* the next round after this one: far beyond the test */
	CHECK(cost_window_configure(100000, err, sizeof(err)) == 0);
	read_cost(m, &quiet); /* closes it: a delivery priced */
	CHECK(cost_window_measure(m, &cm) && cm.events >= 2000);
	price = cm.events ? cm.ns_per_s * cm.seconds / (double)cm.events : 0;
	t0 = now_s();
	CHECK(read_cost(m, &quiet));
	for (int i = 0; i < 20000; i++)
		raise(SIGUSR1);
	CHECK(read_cost(m, &storm));
	t1 = now_s();
	CHECK(!cost_window_rounds().open);
	want = price * 20000 / (t1 - t0) / 1e7; /* percent of a CPU */
	printf("  a delivery priced %.1f ns; between windows a quiet read %.4f %%, a storm of 20,000 %.4f %% "
	       "(priced: %.4f %%)\n", price, quiet, storm, want);
	CHECK(quiet == 0);
	CHECK(storm > 0.8 * want && storm < 1.25 * want);
	signal(SIGUSR1, SIG_DFL);
	module_free(m);
}

/* Several programs on one point: vfs's syscall fallback (no fentry, no kprobes here; forced
 * onto tp_btf where they exist) runs four programs on sys_enter and four on sys_exit, one
 * pair per operation, each on every syscall of the host. The dispatch is a cost per hit of
 * the point, shared by the programs there (bench/cost_modules: about 0 ns per run beyond
 * run_time_ns for vfs's eight, against 52 for the counters program alone on sys_exit), so a
 * window adds the overhead once per hit: two a syscall, a quarter of its runs, not one per
 * run. And vfs counts its calls, which price its events (the window's cost per second is
 * of a loop the statistics slowed): the window counted the test's reads. */
/* Each method as the sections name it: fentry and kprobes are charged (estimates), their
 * return probes as much; a probe on user-space code (of type KPROBE too) its trap, more than
 * a kprobe; a kprobe on a syscall's function is no syscall tracepoint. */
static void methods_by_section(void)
{
	double fentry = attach_overhead_ns(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, "fentry");
	double kprobe = attach_overhead_ns(BPF_PROG_TYPE_KPROBE, 0, "kprobe");
	double uprobe = attach_overhead_ns(BPF_PROG_TYPE_KPROBE, 0, "uprobe/libc.so.6:getaddrinfo");

	printf("  fentry %.0f ns a hit, kprobe %.0f, uprobe %.0f\n", fentry, kprobe, uprobe);
	CHECK(fentry > 0 && kprobe > fentry);
	CHECK(attach_overhead_ns(BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, "fexit") == fentry);
	CHECK(attach_overhead_ns(BPF_PROG_TYPE_KPROBE, 0, "kretprobe") == kprobe);
	CHECK(attach_overhead_ns(BPF_PROG_TYPE_KPROBE, 0, "kprobe/__x64_sys_getppid") == kprobe);
	CHECK(attach_overhead_ns(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, "fentry/__do_sys_getppid") == fentry);
	CHECK(uprobe > kprobe);
	CHECK(attach_overhead_ns(BPF_PROG_TYPE_KPROBE, 0, "uretprobe") == uprobe);
	CHECK(attach_overhead_ns(BPF_PROG_TYPE_KPROBE, 0, "usdt/libc:memory_malloc_retry") == uprobe);
	CHECK(attach_overhead_ns(BPF_PROG_TYPE_KPROBE, 0, "uprobe.multi//usr/bin/true:main") == uprobe);
	CHECK(attach_overhead_ns(BPF_PROG_TYPE_TRACEPOINT, 0, "tracepoint/syscalls/sys_enter_sync") ==
	      attach_overhead_ns(BPF_PROG_TYPE_TRACEPOINT, 0, "tp/sched/sched_switch"));
}

static void one_point_many_programs(void)
{
	struct module *m = mt_started("vfs", "tp_btf");
	double per_hit = attach_overhead_ns(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, "tp_btf/sys_exit");
	struct cost_measure cm = { 0 };
	char err[ERR_MAX], c;
	double pct, added, hits;
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (!m)
		return;
	CHECK(zero >= 0);
	CHECK(cost_window_configure(2, err, sizeof(err)) == 0);
	CHECK(!read_cost(m, &pct)); /* opens the window */
	CHECK(cost_window_rounds().open);
	for (int i = 0; i < 2000; i++)
		CHECK(read(zero, &c, 1) == 1);
	read_cost(m, &pct); /* closes it */
	CHECK(cost_window_measure(m, &cm));
	cost_window_stop();
	added = (cm.ns_per_s - cm.raw_ns_per_s) * cm.seconds;
	hits = (double)cm.runs / 4;
	printf("  vfs (tp_btf, 4 programs on sys_enter, 4 on sys_exit): %llu runs, %llu calls counted in a window of "
	       "%.3f s, %.0f ns over their run time: %.1f ns per run, %.1f per hit (%.0f a hit of a syscall point)\n",
	       (unsigned long long)cm.runs, (unsigned long long)cm.events, cm.seconds, added,
	       cm.runs ? added / (double)cm.runs : 0, hits > 0 ? added / hits : 0, per_hit);
	CHECK(cm.runs >= 8 * 2000 && cm.events >= 2000);
	/* the eight programs' counts are read a few microseconds apart while other syscalls run */
	CHECK(fabs(added - hits * per_hit) <= 0.02 * hits * per_hit);
	close(zero);
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

/* body() in a child whose checks count there; the parent checks that it passed. */
static void in_child(void (*body)(void))
{
	pid_t pid = (fflush(stdout), fork());
	int status;

	if (pid == 0) {
		testing_failures = testing_checks = 0; /* the parent's are its own */
		body();
		status = testing_done();
		fflush(stdout);
		_exit(status);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void without_capability_child(void)
{
	struct module *m;
	char err[ERR_MAX];
	double pct;
	int sent = 0;

	ebpf_log_set_handler(count_notices);
	CHECK(drop_sys_admin() == 0);
	CHECK(bpf_enable_stats(BPF_STATS_RUN_TIME) < 0); /* really without */
	m = mt_started("syscalls", "tp_btf");
	if (m) {
		CHECK(cost_window_configure(2, err, sizeof(err)) == 0);
		for (int i = 0; i < 8; i++) {
			sent += read_cost(m, &pct);
			usleep(50000);
		}
		printf("  8 reads, cpu_cost sent by %d, the notice logged %d time(s)\n", sent, notices);
		CHECK(sent == 0 && notices == 1);
		CHECK(m->state == MODULE_RUNNING);
		module_free(m);
	}
}

static void default_period(void)
{
	const double runs[] = { 80, 145, 300, 1000, 5000 };

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		double p = cost_period_default_for(runs[i]), tax = COST_STATS_TAX_NS / p / runs[i];

		printf("  %.0f ns per run: period %.1f intervals, tax %.2f %% of the cost\n", runs[i], p, 100 * tax);
		CHECK(p >= COST_PERIOD_DEFAULT && p <= COST_PERIOD_STRETCH_MAX * COST_PERIOD_DEFAULT);
		CHECK(tax <= COST_DUTY_TAX_MAX + 1e-9 || p == COST_PERIOD_STRETCH_MAX * COST_PERIOD_DEFAULT);
	}
	CHECK(cost_period_default_for(145) > COST_PERIOD_DEFAULT);   /* signals */
	CHECK(cost_period_default_for(1000) == COST_PERIOD_DEFAULT); /* block, tcp */
	CHECK(cost_period_default_for(0) == COST_PERIOD_DEFAULT);    /* not priced yet */
}

/* In a child (in_child): the parent goes on with rounds of its own CostPeriod. */
static void default_period_window(void)
{
	struct module *m = mt_started("signals", "tp_btf");
	struct cost_measure cm = { 0 };
	double pct, per_run;

	if (m) {
		signal(SIGUSR1, on_usr1);
		CHECK(!read_cost(m, &pct)); /* opens the window, CostPeriod not set */
		CHECK(cost_window_rounds().open);
		for (int i = 0; i < 2000; i++)
			raise(SIGUSR1);
		read_cost(m, &pct); /* closes it */
		CHECK(cost_window_measure(m, &cm) && cm.runs >= 2000);
		per_run = cm.runs ? cm.ns_per_s * cm.seconds / (double)cm.runs : 0;
		printf("  signals: %.1f ns per run in the window, the round closed with a period of %.1f intervals "
		       "(default %d)\n", per_run, cost_window_rounds().last_period, COST_PERIOD_DEFAULT);
		if (per_run * COST_DUTY_TAX_MAX * COST_PERIOD_DEFAULT < COST_STATS_TAX_NS)
			CHECK(cost_window_rounds().last_period > COST_PERIOD_DEFAULT);
		CHECK(fabs(cost_window_rounds().last_period - cost_period_default_for(per_run)) < 1e-6);
		cost_window_stop();
		module_free(m);
	}
}

int main(void)
{
	mt_require_root();
	mt_log_reset();
	/* First, so that the child forked there starts from no round: after duty_cycle() it
	 * inherited the parent's next round, which its reads may not reach (no attempt, no notice). */
	printf("the default period:\n");
	default_period();
	in_child(default_period_window);
	printf("without CAP_SYS_ADMIN:\n");
	in_child(without_capability_child);
	printf("the attach point:\n");
	attach_point();
	printf("a storm of signals between windows:\n");
	in_child(storm_between_windows);
	printf("each method by its section:\n");
	methods_by_section();
	printf("several programs on one point:\n");
	one_point_many_programs();
	MEASURED_UNDER_LOAD(3) {
		printf("duty cycle (CostPeriod 3, a read every 0.3 s):\n");
		duty_cycle();
	}
	return testing_done();
}
