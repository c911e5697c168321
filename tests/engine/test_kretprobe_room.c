/* Root test of the engine's kretprobes (libcore/kernel/kretprobe_events.h): NTHREADS
 * threads, far more than the kernel's default room for calls in progress (10, or 2 per
 * CPU), block in read() on pipes of their own at the same time; once every one is blocked
 * in the kernel, the pipes are written and the threads return (in a child process of
 * their own, the one the module counts). The vfs module on kprobes
 * must count exactly NTHREADS returns (calls, latency samples, bytes), send its
 * dropped-kretprobe_missed counter (0 here), leave no probe of this process in
 * kprobe_events once it stops, and remove at start the one a dead process left there. With libbpf's own kretprobes (default room) the returns of
 * all but the first few are lost, uncounted.
 *
 * Only the kprobe method: run by the kernel matrix (tests/vm/tests.list); on a kernel
 * without kprobes it skips. */
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

enum { NTHREADS = 100 };

/* The readers live in a child process, which the module counts alone (filter_tgid), so
 * that the test's own reads (of /proc, and the engine's of kprobe_profile) stay out. */
static int pipes[NTHREADS][2];

static void *blocked_read(void *arg)
{
	char c;

	return (void *)(long)(read(pipes[(long)arg][0], &c, 1) == 1);
}

/* The child: waits for SIGUSR1 (the module is started), then NTHREADS threads read one
 * byte each. Exits 0 if every read got its byte. Reads nothing else. */
static void readers(void)
{
	pthread_t t[NTHREADS];
	sigset_t set;
	int sig, ok = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigwait(&set, &sig);
	for (long i = 0; i < NTHREADS; i++) {
		pthread_attr_t a;

		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 64 * 1024);
		if (pthread_create(&t[i], &a, blocked_read, (void *)i))
			_exit(2);
		pthread_attr_destroy(&a);
	}
	for (int i = 0; i < NTHREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		ok += r != NULL;
	}
	_exit(ok == NTHREADS ? 0 : 1);
}

/* Threads of `pid` in read(2) now (/proc/<pid>/task/<tid>/syscall: "0 0x<fd> ..."). */
static int blocked_in_read(pid_t pid)
{
	char path[320], line[256];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/syscall", (int)pid, d->d_name);
		f = fopen(path, "re");
		if (f && fgets(line, sizeof(line), f) && !strncmp(line, "0 ", 2))
			n++;
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return n;
}

struct seen {
	uint64_t calls, missed;
	bool missed_sent;
	struct hist_interval latency, bytes;
};

static struct seen read_module(struct module *m)
{
	struct recording r = { 0 };
	struct seen s = { 0 };
	const struct recorded_value *latency, *bytes;

	CHECK(recording_read(&r, m) == 0);
	s.calls = recorded_counter(&r, "calls", "read");
	s.missed_sent = recorded(&r, RECORDED_COUNTER, "dropped", "kretprobe_missed") != NULL;
	s.missed = recorded_counter(&r, "dropped", "kretprobe_missed");
	latency = recorded(&r, RECORDED_HISTOGRAM, "latency", "read"); /* in whatever unit it came */
	bytes = recorded(&r, RECORDED_HISTOGRAM, "bytes", "read");
	if (latency)
		s.latency = *latency->hist;
	if (bytes)
		s.bytes = *bytes->hist;
	recording_free(&r);
	return s;
}

/* Lines of kprobe_events naming a probe of process pid. */
static int probes_of(pid_t pid)
{
	char needle[64], line[512];
	FILE *f = fopen("/sys/kernel/tracing/kprobe_events", "re");
	int n = 0;

	snprintf(needle, sizeof(needle), "collectd_ebpf_%d_", (int)pid);
	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return n;
}

static int own_probes(void)
{
	return probes_of(getpid());
}

/* What a collectd killed with SIGKILL leaves behind: a kretprobe of a process that is gone.
 * Returns that pid. */
static pid_t leave_orphan(void)
{
	char cmd[128];
	pid_t gone = fork();
	int fd;

	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	snprintf(cmd, sizeof(cmd), "r:kprobes/collectd_ebpf_%d_0_vfs_read vfs_read\n", (int)gone);
	/* not fopen "a": its seek to the end fails on tracefs' seq_file */
	fd = open("/sys/kernel/tracing/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	CHECK(fd >= 0 && write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd));
	close(fd);
	CHECK(probes_of(gone) == 1);
	return gone;
}

static void run(void)
{
	int before = testing_failures, waited = 0, status = -1;
	struct module *m = NULL;
	struct seen s0, s1;
	sigset_t set;
	pid_t child, orphan = leave_orphan();

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL); /* the child inherits it and takes SIGUSR1 in sigwait */
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pipe(pipes[i]) == 0);
	child = fork();
	if (child == 0)
		readers();
	CHECK(child > 0);

	m = mt_module("vfs", "kprobe", NULL);
	mt_log_reset();
	if (m)
		m->filter_tgid = child;
	if (!m || module_start(m)) {
		fprintf(stderr, "vfs via kprobe: %s\n", m ? m->last_error : "no module");
		CHECK(!"vfs module started on kprobes");
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		mt_result("test_kretprobe_room", "kprobe", before, m ? m->last_error : NULL);
		module_free(m);
		return;
	}
	mt_check_methods(m, "kprobe");
	CHECK(own_probes() > 0); /* the engine's own kretprobes, not libbpf's */
	CHECK(probes_of(orphan) == 0); /* a dead process's, removed */

	kill(child, SIGUSR1);
	while (blocked_in_read(child) < NTHREADS && waited++ < 3000)
		usleep(10000);
	CHECK(blocked_in_read(child) == NTHREADS);
	printf("  %d threads blocked in read() at once\n", blocked_in_read(child));

	s0 = read_module(m);
	for (int i = 0; i < NTHREADS; i++)
		CHECK(write(pipes[i][1], "x", 1) == 1);
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	s1 = read_module(m);

	printf("  returns counted: %llu calls, %llu latency samples; kretprobe_missed %s %llu\n",
	       (unsigned long long)(s1.calls - s0.calls), (unsigned long long)s1.latency.count,
	       s1.missed_sent ? "sent:" : "not sent", (unsigned long long)s1.missed);
	CHECK_EQ_U64(s1.calls - s0.calls, NTHREADS);
	CHECK_EQ_U64(s1.latency.count, NTHREADS);
	CHECK_EQ_U64(s1.bytes.count, NTHREADS);
	CHECK_EQ_U64(s1.bytes.sum, NTHREADS);
	CHECK(s1.missed_sent);
	CHECK_EQ_U64(s1.missed - s0.missed, 0);
	CHECK(mt_log.errors == 0);
	module_free(m);
	CHECK(own_probes() == 0); /* removed at detach */
	for (int i = 0; i < NTHREADS; i++) {
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
	mt_result("test_kretprobe_room", "kprobe", before, NULL);
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "kprobe", NULL };
	struct method_list ml;

	mt_require_root();
	methods_from(argc, argv, defaults, &ml);
	if (ml.n != 1 || strcmp(ml.names[0], "kprobe"))
		SKIP("test_kretprobe_room runs the kprobe method only");
	if (access("/sys/bus/event_source/devices/kprobe", F_OK) && access("/sys/kernel/tracing/kprobe_events", F_OK))
		mt_skip_all("test_kretprobe_room", &ml, "this kernel has no kprobes (CONFIG_KPROBES is off)");
	run();
	return testing_done();
}
