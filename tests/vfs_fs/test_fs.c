/* Root test of the `fs` module on a scratch ext4 (loop device), once per attach method
 * (see module_test.h): N reads, writes, opens and fsyncs of a file on it are N samples of
 * ext4-read, ext4-write, ext4-open and ext4-fsync latency, each inside the wall time of
 * the workload. fentry and kprobe must work; "auto" runs the module or, on a kernel with
 * neither (this project's CI machine), must report it unsupported with one error. */
#include "tests/support/loop_ext4.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"

#include <time.h>

enum { N = 50 };

static const char *const ops[4] = { "read", "write", "open", "fsync" };

struct seen {
	struct hist_interval h[4];
	uint64_t calls[4];
	uint64_t start_lost;
	int other_series;
	uint64_t kretprobe_missed;
};

static int op_of(const char *instance)
{
	for (int i = 0; i < 4; i++) {
		char want[32];

		snprintf(want, sizeof(want), "ext4-%s", ops[i]);
		if (!strcmp(instance, want))
			return i;
	}
	return -1;
}

static struct seen read_module(struct module *m)
{
	struct recording r = { 0 };
	struct seen s = { 0 };

	CHECK(recording_read(&r, m) == 0);
	for (int k = 0; k < r.n; k++) {
		const struct recorded_value *v = &r.values[k];
		int i = op_of(v->instance);

		if (v->kind == RECORDED_COUNTER) {
			if (!strcmp(v->metric, "dropped") && !strcmp(v->instance, "start_lost"))
				s.start_lost = v->counter;
			else if (!strcmp(v->metric, "dropped") && !strcmp(v->instance, "recursion"))
				; /* every module's self-metric (test_self_metrics), not a filesystem's series */
			else if (!strcmp(v->metric, "dropped") && !strcmp(v->instance, "kretprobe_missed"))
				s.kretprobe_missed = v->counter; /* the engine's, on kprobes: nothing missed here */
			else if (i >= 0 && !strcmp(v->metric, "calls"))
				s.calls[i] = v->counter;
			else
				s.other_series++;
		} else if (v->kind == RECORDED_HISTOGRAM) {
			if (i >= 0 && !strcmp(v->metric, "latency") && v->unit == HIST_UNIT_NANOSECONDS)
				s.h[i] = *v->hist;
			else
				s.other_series++;
		}
	}
	recording_free(&r);
	return s;
}

static void workload_and_check(struct module *m, const char *mnt)
{
	char path[128], buf[4096];
	struct seen s0, s1;
	uint64_t t0, wall;
	int fd;

	snprintf(path, sizeof(path), "%s/fs-test", mnt);
	memset(buf, 'f', sizeof(buf));
	s0 = read_module(m);
	t0 = testing_now_ns();
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600); /* open 1 */
	CHECK(fd >= 0);
	for (int i = 0; i < N; i++) {
		CHECK(pwrite(fd, buf, sizeof(buf), (off_t)i * 4096) == sizeof(buf));
		CHECK(fsync(fd) == 0);
	}
	for (int i = 0; i < N; i++)
		CHECK(pread(fd, buf, sizeof(buf), (off_t)i * 4096) == sizeof(buf));
	close(fd);
	for (int i = 0; i < N - 1; i++) { /* opens 2..N */
		fd = open(path, O_RDONLY);
		CHECK(fd >= 0);
		close(fd);
	}
	wall = testing_now_ns() - t0;
	s1 = read_module(m);
	for (int i = 0; i < 4; i++) {
		printf("  ext4-%s: %llu samples, mean %.1f us\n", ops[i], (unsigned long long)s1.h[i].count,
		       s1.h[i].count ? hist_mean(&s1.h[i]) / 1e3 : 0.0);
		CHECK_EQ_U64(s1.h[i].count, N);
		CHECK_EQ_U64(s1.calls[i] - s0.calls[i], N);
		CHECK(s1.h[i].sum <= wall);
	}
	CHECK_EQ_U64(s1.start_lost, 0);
	CHECK(s1.other_series == 0); /* only ext4 was asked for */
	CHECK_EQ_U64(s1.kretprobe_missed, 0);
}

static void run_method(const char *method, const struct loop_ext4 *fs)
{
	int before = testing_failures;
	struct module *m = mt_module("fs", method, "Filesystem", "ext4", NULL);

	mt_log_reset();
	if (!m)
		return;
	if (!mt_start(m, "test_fs", method, before, (const char *const[]){ "ext4", NULL }))
		return;
	workload_and_check(m, fs->mnt);
	CHECK(mt_log.errors == 0);
	mt_result("test_fs", method, before, NULL);
	module_free(m);
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "auto", NULL };
	struct method_list ml;
	struct loop_ext4 fs;

	mt_require_root();
	methods_from(argc, argv, defaults, &ml);
	/* Mounting first also loads ext4 where it is a module, so /proc/filesystems lists it. */
	if (loop_ext4_setup(&fs, 64))
		mt_skip_all("test_fs", &ml, fs.why);
	for (int i = 0; i < ml.n; i++)
		run_method(ml.names[i], &fs);
	loop_ext4_teardown(&fs);
	return testing_done();
}
