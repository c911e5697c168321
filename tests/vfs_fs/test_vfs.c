/* Root test of the `vfs` module with known workloads and exact answers, once per attach
 * method (see module_test.h): N reads of a cached file are N vfs reads of 4096 bytes each,
 * reads of a write-only fd are reads that fail, and writes, fsyncs and opens count one
 * each. On the syscall fallback the module must say once in the log, and in the
 * approximation gauge, that the figures are an approximation. With `Witness true` (tp_btf,
 * raw_tp) every operation's point sends "untraced", and with the read point's sys_enter
 * program detached, every syscall of the workload is in it. */
#include "tests/support/detach_program.h"
#include "tests/support/start_on_method.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"

#include <fcntl.h>
#include <time.h>

struct op_seen {
	uint64_t calls, errors;
	struct hist_interval latency, bytes;
	double approximation;
};

struct seen {
	struct op_seen op[4]; /* read, write, fsync, open */
	uint64_t start_lost;
	int gauges;
	int untraced_points; /* points that sent "untraced" (only with Witness true) */
	uint64_t untraced_read;
};

static const char *const ops[4] = { "read", "write", "fsync", "open" };

static struct seen read_module(struct module *m)
{
	struct recording r = { 0 };
	struct seen s = { 0 };

	CHECK(recording_read(&r, m) == 0);
	s.start_lost = recorded_counter(&r, "dropped", "start_lost");
	s.untraced_points = recorded_count(&r, RECORDED_COUNTER, "untraced", NULL);
	s.untraced_read = recorded_counter(&r, "untraced", "read");
	for (int i = 0; i < 4; i++) {
		const struct hist_interval *latency = recorded_histogram(&r, "latency", ops[i], HIST_UNIT_NANOSECONDS);
		const struct hist_interval *bytes = recorded_histogram(&r, "bytes", ops[i], HIST_UNIT_BYTES);

		s.op[i].calls = recorded_counter(&r, "calls", ops[i]);
		s.op[i].errors = recorded_counter(&r, "errors", ops[i]);
		if (latency)
			s.op[i].latency = *latency;
		if (bytes)
			s.op[i].bytes = *bytes;
		recorded_gauge(&r, "approximation", ops[i], &s.op[i].approximation);
		s.gauges += recorded_count(&r, RECORDED_GAUGE, "approximation", ops[i]);
	}
	recording_free(&r);
	return s;
}

enum { PAGES = 16, NREAD = 200, NBADREAD = 50, NWRITE = 100, WRITE_SIZE = 512, NFSYNC = 20, NOPEN = 30 };

/* The workload: nothing else in it may read, write, fsync or open (no printf). */
static uint64_t workload(const char *path, int fd)
{
	char buf[4096];
	uint64_t t0 = testing_now_ns();
	int wronly = open(path, O_WRONLY);

	for (int i = 0; i < NREAD; i++)
		CHECK(pread(fd, buf, sizeof(buf), (off_t)(i % PAGES) * 4096) == (ssize_t)sizeof(buf));
	for (int i = 0; i < NBADREAD; i++)
		CHECK(read(wronly, buf, 1) == -1);
	for (int i = 0; i < NWRITE; i++)
		CHECK(pwrite(wronly, buf, WRITE_SIZE, (off_t)i * WRITE_SIZE) == WRITE_SIZE);
	for (int i = 0; i < NFSYNC; i++)
		CHECK(fsync(wronly) == 0);
	close(wronly);
	for (int i = 0; i < NOPEN; i++) {
		int f = open(path, O_RDONLY);

		CHECK(f >= 0);
		close(f);
	}
	return testing_now_ns() - t0;
}

static void run_method(const char *method, const char *path, int fd)
{
	int before = testing_failures;
	struct module *m = mt_module("vfs", method, NULL);
	uint64_t wall;
	struct seen s0, s1;
	bool approx;

	mt_log_reset();
	if (!m || module_start(m)) {
		fprintf(stderr, "vfs via %s: %s\n", method, m ? m->last_error : "no module");
		CHECK(!"vfs module started");
		mt_result("test_vfs", method, before, m ? m->last_error : NULL);
		module_free(m);
		return;
	}
	mt_check_methods(m, method);
	approx = !strncmp(method, "tp", 2) || !strcmp(method, "raw_tp") || !strcmp(method, "tracepoint");

	s0 = read_module(m);
	/* one open(O_WRONLY) in the workload on top of NOPEN */
	wall = workload(path, fd);
	s1 = read_module(m);

	CHECK_EQ_U64(s1.op[0].calls - s0.op[0].calls, NREAD + NBADREAD);
	CHECK_EQ_U64(s1.op[0].errors - s0.op[0].errors, NBADREAD);
	CHECK_EQ_U64(s1.op[0].bytes.count, NREAD);
	CHECK_EQ_U64(s1.op[0].bytes.sum, (uint64_t)NREAD * 4096);
	CHECK_EQ_U64(s1.op[0].bytes.slots[hist_slot(4096)], NREAD);
	CHECK_EQ_U64(s1.op[0].latency.count, NREAD + NBADREAD);
	CHECK_EQ_U64(s1.op[1].calls - s0.op[1].calls, NWRITE);
	CHECK_EQ_U64(s1.op[1].errors - s0.op[1].errors, 0);
	CHECK_EQ_U64(s1.op[1].bytes.count, NWRITE);
	CHECK_EQ_U64(s1.op[1].bytes.sum, (uint64_t)NWRITE * WRITE_SIZE);
	CHECK_EQ_U64(s1.op[2].calls - s0.op[2].calls, NFSYNC);
	CHECK_EQ_U64(s1.op[2].latency.count, NFSYNC);
	CHECK_EQ_U64(s1.op[3].calls - s0.op[3].calls, NOPEN + 1);
	CHECK_EQ_U64(s1.op[3].latency.count, NOPEN + 1);
	CHECK_EQ_U64(s1.start_lost, 0);
	CHECK_EQ_U64(s1.untraced_points, 0); /* the witnesses are opt-in here */
	/* Every call's kernel time lies inside the workload's wall time. */
	CHECK(s1.op[0].latency.sum + s1.op[1].latency.sum + s1.op[2].latency.sum + s1.op[3].latency.sum <= wall);

	/* Said in a value (always sent, per operation) and, on the fallback, once in the log. */
	CHECK(s1.gauges == 4);
	for (int i = 0; i < 4; i++) {
		char needle[64];

		snprintf(needle, sizeof(needle), ": %s is an approximation", ops[i]);
		if (strcmp(method, "auto"))
			CHECK(s1.op[i].approximation == (approx ? 1 : 0));
		approx = s1.op[i].approximation == 1;
		CHECK(mt_count(mt_log.warnings, needle) == (approx ? 1 : 0));
	}
	/* Left on its own, a module on the syscalls got there by falling back. */
	if (!strcmp(method, "auto") && approx)
		CHECK(m->state == MODULE_DEGRADED);
	CHECK(mt_log.errors == 0);
	mt_result("test_vfs", method, before, NULL);
	module_free(m);
}

/* `Witness true` on the syscall fallback: each operation's point sends "untraced"; with the
 * read point's sys_enter program detached (a kernel that skipped it), each syscall of the
 * workload is a firing of sys_enter that program did not run for (others' only add). */
static void run_witness(const char *method, const char *path, int fd)
{
	const uint64_t syscalls = NREAD + NBADREAD + NWRITE + NFSYNC + 2 * NOPEN;
	struct module *m = mt_module("vfs", method, "Witness", "true", NULL);
	struct seen s0, s1;

	if (!m || !start_or_fail(m, method))
		return;
	s0 = read_module(m);
	CHECK_EQ_U64(s0.untraced_points, 4);
	detach_module_program(m, "read");
	workload(path, fd);
	s1 = read_module(m);
	printf("%-10s Witness true, read's sys_enter program detached: %llu syscalls, untraced %llu\n", method,
	       (unsigned long long)syscalls, (unsigned long long)(s1.untraced_read - s0.untraced_read));
	/* The witness is a program too, which the kernel can skip without a count under
	 * interrupt load (doc/modules.md, *Skipped without a count*; seen: raw_tp's 426 for 430
	 * in the Debian 13 lane beside two VMs and the sanitized build): measured again (main),
	 * a third short run fails. */
	CHECK_UNDER_LOAD(s1.untraced_read - s0.untraced_read >= syscalls);
	module_free(m);
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "tp_btf", "raw_tp", "tracepoint", "auto", NULL };
	char path[] = "/var/tmp/ebpf-test-vfs-XXXXXX";
	struct method_list ml;
	int fd;

	mt_require_root();
	methods_from(argc, argv, defaults, &ml);
	fd = testing_temp_file(path);
	testing_cached_pages(fd, PAGES);

	for (int i = 0; i < ml.n; i++) {
		run_method(ml.names[i], path, fd);
		if (!strcmp(ml.names[i], "tp_btf") || !strcmp(ml.names[i], "raw_tp"))
			MEASURED_UNDER_LOAD(3) run_witness(ml.names[i], path, fd);
	}
	close(fd);
	unlink(path);
	return testing_done();
}
