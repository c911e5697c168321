/* Root test: block with By "cgroup" in the running kernel, every attach method. A loop
 * device over a file on tmpfs (its backing file's IO is no block IO, so the only requests of
 * any disk that the test's cgroups issue are theirs on the loop device) and two cgroups made
 * here under a private parent in the cgroup2 mount: a child in cgroup a does NA O_DIRECT
 * writes then NA reads of SIZE bytes, a child in b NB of each. Each cgroup's read and write
 * rows hold its own IO: ios, bytes = ios x SIZE and a latency for every IO.
 *
 * Exact, by the rule test_block follows (block_check_count): a cgroup's count is its
 * workload, or short by no more than what users are shown as lost (the completions the
 * kernel did not hand to the programs, untraced-<disk>-<op>, and the nested runs it skipped);
 * and the two cgroups' rows add up to the host-wide row of the disk exactly, so no traced
 * completion is attributed elsewhere or twice.
 *
 * Per method with and without QueueTime (mq-deadline: requests are inserted, then issued),
 * and twice each where the kernel lets the test enable the io controller for its cgroups:
 * without it (the request's cgroup is the task's that inserted or issued it) and with it
 * (tp_btf and raw_tp read the bio's blkcg; the classic tracepoint, which carries no request,
 * still the task's). With
 * MaxSeries 1 the cgroup read second is `other`, exactly, and folded says 1. With By
 * "cgroup" off none of its maps is created. */
#define _GNU_SOURCE /* O_DIRECT */
#include "libcore/engine/module.h"
#include "tests/support/attach_methods.h"
#include "tests/block/block_test_support.h"
#include "tests/support/bpf_requirements.h"
#include "tests/support/test_cgroups.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#define NA 40
#define NB 15
#define SIZE 16384

static struct loop_device dev;
static char na[300], nb[300]; /* the cgroups as sent */

/* A tmpfs directory for the loop device's backing file: the loop driver's IO to a file on a
 * disk would be that disk's requests, charged to the same cgroups. NULL when none. */
static const char *tmpfs_dir(void)
{
	static const char *const dirs[] = { "/dev/shm", "/tmp", "/run" };
	struct statfs st;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!statfs(dirs[i], &st) && st.f_type == TMPFS_MAGIC && !access(dirs[i], W_OK))
			return dirs[i];
	return NULL;
}

/* n O_DIRECT writes of SIZE bytes, then n reads of them. */
static int direct_io(void *arg)
{
	int n = *(const int *)arg;
	struct block_direct d = block_direct_open(dev.name, SIZE);

	for (int i = 0; i < n; i++)
		if (pwrite(d.fd, d.buf, SIZE, (off_t)i * SIZE) != SIZE)
			return 4;
	for (int i = 0; i < n; i++)
		if (pread(d.fd, d.buf, SIZE, (off_t)i * SIZE) != SIZE)
			return 5;
	block_direct_close(&d);
	return 0;
}

static void set_scheduler(const char *sched)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", dev.name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(sched, f);
		CHECK(fclose(f) == 0);
	}
}

/* "+io" or "-io" into dir's cgroup.subtree_control: 0, or -1 where the kernel refuses (no
 * io controller in cgroup2, or not handed down to dir). */
static int subtree_io(const char *dir, const char *change)
{
	char path[1100];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	fd = open(path, O_WRONLY);
	ok = fd >= 0 && write(fd, change, strlen(change)) == (ssize_t)strlen(change);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static struct module *cgroup_block(const char *method, int max_series)
{
	struct module *m = block_test_module(method, dev.name);
	char glob[1100];

	tcg_option(m, "By", "cgroup", 0);
	tcg_option(m, "Cgroup", tcg_glob(glob, sizeof(glob)), 0);
	if (max_series)
		tcg_option(m, "MaxSeries", NULL, max_series);
	m->filter_tgid = 0; /* the workloads are other processes: the glob keeps ours */
	return m;
}

/* Waits until /proc/diskstats has the test's IO (it is updated just after the completion
 * that wakes the workload). */
static void diskstats_reach(uint64_t reads, uint64_t writes)
{
	struct block_diskstats d = { 0 };

	for (int i = 0; i < 100; i++) {
		CHECK(block_diskstats(dev.name, &d) == 0);
		if (d.reads >= reads && d.writes >= writes)
			return;
		usleep(10000);
	}
}

struct cgroup_op {
	uint64_t ios, bytes, latencies;
};

static struct cgroup_op cgroup_op_of(const struct recording *r, const char *cgroup, const char *op)
{
	char inst[600];

	snprintf(inst, sizeof(inst), "%s/%s", cgroup, op);
	return (struct cgroup_op){ .ios = recorded_counter(r, "ios", inst), .bytes = recorded_counter(r, "bytes", inst),
				   .latencies = tcg_hist_total(r, "latency", cgroup, op) };
}

/* One cgroup's op: its workload n, by test_block's rule; bytes and latencies of every IO. */
static void check_cgroup_op(const char *what, const struct cgroup_op *o, uint64_t n, uint64_t visible)
{
	block_check_count(what, o->ios, n, visible);
	CHECK_EQ_U64(o->bytes, o->ios * SIZE);
	CHECK_EQ_U64(o->latencies, o->ios);
}

/* The rows of cgroups x and y (as sent) after they did nx and ny IOs of each kind since the
 * module started. */
static void check_pair(struct module *m, const char *x, uint64_t nx, const char *y, uint64_t ny, const char *label,
		       int folded)
{
	struct recording r = { 0 };
	struct block_seen s;
	struct cgroup_op xr, xw, yr, yw;
	double f = -1;

	/* The read whose gauge says what folded since the last (block_read reads again). */
	CHECK(recording_read(&r, m) == 0);
	if (folded >= 0) /* the cgroups whose requests went into other since the last read */
		CHECK(recorded_gauge(&r, "folded", "cgroups", &f) && f == folded);
	s = block_read(m, dev.name);
	xr = cgroup_op_of(&r, x, "read");
	xw = cgroup_op_of(&r, x, "write");
	yr = cgroup_op_of(&r, y, "read");
	yw = cgroup_op_of(&r, y, "write");
	printf("  %s: %s %llu reads %llu writes, %s %llu reads %llu writes; host-wide %llu reads %llu writes, "
	       "untraced %llu reads %llu writes, %llu nested runs skipped; cgroup_full %llu; folded %g\n",
	       label, x, (unsigned long long)xr.ios, (unsigned long long)xw.ios, y, (unsigned long long)yr.ios,
	       (unsigned long long)yw.ios, (unsigned long long)s.read.ios, (unsigned long long)s.write.ios,
	       (unsigned long long)s.read.untraced, (unsigned long long)s.write.untraced,
	       (unsigned long long)s.recursion, (unsigned long long)recorded_counter(&r, "dropped", "cgroup_full"), f);
	check_cgroup_op("reads of the first cgroup", &xr, nx, s.recursion + s.read.untraced);
	check_cgroup_op("writes of the first cgroup", &xw, nx, s.recursion + s.write.untraced);
	check_cgroup_op("reads of the second cgroup", &yr, ny, s.recursion + s.read.untraced);
	check_cgroup_op("writes of the second cgroup", &yw, ny, s.recursion + s.write.untraced);
	/* Every completion the programs counted for the disk is one of our cgroups', once. */
	CHECK_EQ_U64(xr.ios + yr.ios, s.read.ios);
	CHECK_EQ_U64(xw.ios + yw.ios, s.write.ios);
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
	recording_free(&r);
}

/* Both cgroups with series of their own. */
static void run_method(const char *method, bool io, bool queue_time)
{
	char a[1100], b[1100];
	struct block_diskstats d0;
	struct module *m;
	int n_a = NA, n_b = NB;

	CHECK(mkdir(tcg_dir("a", a, sizeof(a)), 0755) == 0);
	CHECK(mkdir(tcg_dir("b", b, sizeof(b)), 0755) == 0);
	m = cgroup_block(method, 0);
	block_set_bool(m, "QueueTime", queue_time);
	set_scheduler(queue_time ? "mq-deadline" : "none");
	if (block_start(m, method) == 0) {
		printf("%-10s QueueTime=%d, io controller %s\n", method, queue_time,
		       io ? "on (tp_btf, raw_tp: the bio's blkcg)" : "off (the task's cgroup)");
		/* The insert times' hash is sized only where QueueTime writes it. */
		const struct bpf_map *queued = bpf_object__find_map_by_name(m->obj, "queued");

		CHECK(queued && (bpf_map__max_entries(queued) == 1) == !queue_time);
		CHECK(block_diskstats(dev.name, &d0) == 0);
		tcg_run_in(a, direct_io, &n_a);
		tcg_run_in(b, direct_io, &n_b);
		diskstats_reach(d0.reads + NA + NB, d0.writes + NA + NB);
		check_pair(m, na, NA, nb, NB, "a and b", -1);
		module_free(m);
	}
	CHECK(tcg_remove(a) == 0);
	CHECK(tcg_remove(b) == 0);
}

/* MaxSeries 1: a, read first, has the series; b is `other`, exactly, and folded 1 in the read
 * that meets it, which carries its rows into other and deletes them: a read later b has no
 * kernel row, other is still exact and nothing folded since (0). */
static void test_max_series(const char *method)
{
	char a[1100], b[1100];
	struct block_diskstats d0;
	struct recording r = { 0 };
	struct module *m;
	int n_a = NA, n_b = NB;
	double folded = -1;

	CHECK(mkdir(tcg_dir("a", a, sizeof(a)), 0755) == 0);
	CHECK(mkdir(tcg_dir("b", b, sizeof(b)), 0755) == 0);
	m = cgroup_block(method, 1);
	set_scheduler("none");
	if (block_start(m, method) == 0) {
		CHECK(block_diskstats(dev.name, &d0) == 0);
		tcg_run_in(a, direct_io, &n_a);
		diskstats_reach(d0.reads + NA, d0.writes + NA);
		CHECK(recording_read(&r, m) == 0); /* a gets the one series */
		recording_free(&r);
		tcg_run_in(b, direct_io, &n_b);
		diskstats_reach(d0.reads + NA + NB, d0.writes + NA + NB);
		printf("MaxSeries 1 (%s):\n", method);
		check_pair(m, na, NA, "other", NB, "a and other", 1);
		/* b, in other, pins no kernel row (carried by other), and nothing folded since. */
		CHECK_EQ_U64(tcg_rows_of(m, "cgroup_counts", tcg_inode(b)), 0);
		CHECK(recording_read(&r, m) == 0);
		CHECK(recorded_gauge(&r, "folded", "cgroups", &folded) && folded == 0);
		check_pair(m, na, NA, "other", NB, "a and other, a read later", 0);
		CHECK_EQ_U64(cgroup_op_of(&r, nb, "read").ios + cgroup_op_of(&r, nb, "write").ios, 0);
		recording_free(&r);
		module_free(m);
	}
	CHECK(tcg_remove(a) == 0);
	CHECK(tcg_remove(b) == 0);
}

/* Off (the default): none of the per-cgroup maps is created. */
static void test_off(void)
{
	static const char *const maps[] = { "cgroup_counts", "cgroup_latency", "cgroup_zero", "cgroup_full",
					    "cgroup_inflight", "cgroup_ignored" };

	tcg_check_off(module_new(module_find("block"), NULL), maps, 6);
}

int main(int argc, char **argv)
{
	struct method_list methods;
	bool io_possible, root_io = false;
	const char *backing = tmpfs_dir();
	char err[ERR_MAX];
	int warm = NB;

	require_bpf_tracing("/sys/kernel/tracing/events/block");
	if (!backing)
		SKIP("no tmpfs at /dev/shm, /tmp or /run for the loop device's file: mount one");
	if (loop_device_setup(&dev, 16, backing, err, sizeof(err)))
		SKIP("cannot attach a loop device: %s", err);
	/* Depth 2 is our cgroups: the private parent is at depth 1. */
	tcg_setup("ebpf-test-blockcg");
	tcg_name("a", na, sizeof(na));
	tcg_name("b", nb, sizeof(nb));
	set_scheduler("none");
	/* Once before any module: what the workload's first run pages in is not its IO. */
	CHECK(direct_io(&warm) == 0);
	/* The root hands io down where cgroup2 has it (as the OOM tests do with memory): the
	 * matrix's VMs mount cgroup2 with no controller enabled. Not on a hybrid host, whose
	 * io (blkio) is on a v1 hierarchy. */
	io_possible = subtree_io(tcg_parent, "+io") == 0;
	if (!io_possible && subtree_io(tcg_root, "+io") == 0) {
		root_io = true;
		io_possible = subtree_io(tcg_parent, "+io") == 0;
	}
	if (io_possible)
		CHECK(subtree_io(tcg_parent, "-io") == 0);
	else
		printf("the io controller cannot be enabled for the test's cgroups: the bio's blkcg is not exercised\n");

	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n; i++) {
		for (int queue_time = 0; queue_time < 2; queue_time++) {
			run_method(methods.names[i], false, queue_time);
			if (io_possible) {
				CHECK(subtree_io(tcg_parent, "+io") == 0);
				run_method(methods.names[i], true, queue_time);
				CHECK(subtree_io(tcg_parent, "-io") == 0);
			}
		}
	}
	if (methods.n)
		test_max_series(methods.names[0]);
	test_off();
	loop_device_remove(&dev);
	CHECK(rmdir(tcg_parent) == 0);
	if (root_io)
		subtree_io(tcg_root, "-io"); /* as it was; the kernel refuses while others use it */
	return testing_done();
}
