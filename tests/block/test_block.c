/* Root test: loads the real block programs with every attach method, and with and without
 * QueueTime, over a loop device the test creates (its requests are the test's own).
 * 300 O_DIRECT writes of 64 KiB and 200 reads of 16 KiB must show up exactly: counts, bytes
 * and size slots for that disk, equal to two witnesses that do not depend on our programs
 * (the disk's /proc/diskstats deltas, and a private ftrace instance recording
 * block_rq_complete for that disk), with a latency for every IO, and untraced-<disk>-<op>
 * equal to what the kernel accounted and the programs did not see (zero here; exactly the
 * IO done after the programs are detached, in test_untraced).
 *
 * When a count falls short, the output tells where the event went: the completion program's
 * own run count (BPF_ENABLE_STATS) against the ftrace events of every disk says whether the
 * kernel did not run the program or the program ran and did not count. */
#include "base/log.h"
#include "tests/support/attach_methods.h"
#include "tests/block/block_test_support.h"
#include "tests/support/testing.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NWRITES 300
#define WRITE_SIZE 65536
#define NREADS 200
#define READ_SIZE 16384
#define MEASURES 3 /* measurements of a run whose loss a loaded host put over the bound */

static const char *disk; /* "loopN" */
static unsigned int disk_dev; /* its dev_t as block_rq_complete prints it */


static void set_scheduler(const char *sched)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", disk);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(sched, f);
		CHECK(fclose(f) == 0);
	}
}

static void workload(void)
{
	struct block_direct d = block_direct_open(disk, WRITE_SIZE);

	block_direct_writes(&d, NWRITES, WRITE_SIZE);
	for (int i = 0; i < NREADS; i++)
		CHECK(pread(d.fd, d.buf, READ_SIZE, (off_t)i * READ_SIZE) == READ_SIZE);
	block_direct_close(&d);
}

/* Reads and writes completed of the test's disk, from /proc/diskstats: 0, or -1. */
static int diskstats_ios(const char *name, unsigned long long *reads, unsigned long long *writes)
{
	struct block_diskstats d;

	if (block_diskstats(name, &d))
		return -1;
	*reads = d.reads;
	*writes = d.writes;
	return 0;
}

/* /proc/diskstats is updated just after the completion that wakes us: wait until stable. */
static void diskstats_settled(unsigned long long *r, unsigned long long *w, unsigned long long want_r,
			      unsigned long long want_w)
{
	for (int i = 0; i < 100; i++) {
		CHECK(diskstats_ios(disk, r, w) == 0);
		if (*r >= want_r && *w >= want_w)
			return;
		usleep(10000);
	}
}

/* The loss the kernel can cause (doc/modules.md, Known limits), at most 1/8 of the IO: the
 * worst measured here was 19 of 200 reads in a run with a disk writer and qemu on both
 * cores; a program that loses more than that is broken, not unlucky. Unless the host is
 * loaded much more (53 of 200 with the classic tracepoint, six compilers and the tests of
 * other builds beside): the run is then measured again (MEASURES), and a program that loses
 * more in every measurement fails. */
static void check_loss_bound(const char *what, uint64_t lost, uint64_t n)
{
	if (lost)
		printf("%s: %llu of %llu not handed to the programs (untraced)\n", what, (unsigned long long)lost,
		       (unsigned long long)n);
	CHECK_UNDER_LOAD(lost * 8 <= n);
}

/* Exact, or short by no more than what users are shown as lost: the nested runs the kernel
 * skipped and counted (dropped-recursion), plus the IO diskstats accounted that the programs
 * never saw (untraced-<disk>-<op>, itself checked to the IO against diskstats). Under heavy
 * IO on other disks the kernel also skips a completion program without counting it (doc/modules.md,
 * Known limits: the program's own invocation count stays short of the ftrace witness while
 * its recursion misses stay 0); untraced is how users see those. Never more than want: the
 * programs must not invent IO. */
static void check_count(const char *what, uint64_t got, uint64_t want, uint64_t visible)
{
	block_check_count(what, got, want, visible);
	if (got <= want)
		check_loss_bound(what, want - got, want);
}

static void check_op(const char *what, const struct block_op_seen *o, uint64_t n, uint64_t size,
		     bool queue_time, uint64_t inserted, uint64_t visible)
{
	printf("  %s: %llu ios, %llu bytes, latency p50 %.1f us p99 %.1f us", what, (unsigned long long)o->ios,
	       (unsigned long long)o->bytes, hist_percentile(&o->latency, 50) / 1e3,
	       hist_percentile(&o->latency, 99) / 1e3);
	if (queue_time)
		printf(", queued %llu (the kernel inserted %llu), p50 %.1f us", (unsigned long long)o->queue.count,
		       (unsigned long long)inserted, hist_percentile(&o->queue, 50) / 1e3);
	printf("\n");
	check_count("ios", o->ios, n, visible);
	CHECK_EQ_U64(o->bytes, o->ios * size);
	CHECK(o->got_size);
	CHECK_EQ_U64(o->size.count, o->ios);
	/* Every request of exactly `size` bytes, in its slot of the layout the module records
	 * (log-linear: the slot number depends on the precision). */
	CHECK_EQ_U64(o->size.slots[hist_slot_p(size, o->size.precision)], o->ios);
	CHECK_NEAR(hist_percentile(&o->size, 50), (double)size, 1e-6);
	CHECK_NEAR(hist_percentile(&o->size, 99), (double)size, 1e-6);
	CHECK_EQ_U64(o->size.sum, o->ios * size);
	CHECK(o->got_latency);
	CHECK_EQ_U64(o->latency.count, o->ios); /* every IO counted was issued after attach */
	CHECK(o->latency.sum > 0);
	CHECK(hist_percentile(&o->latency, 50) > 0);
	if (queue_time) {
		/* A queue time for every request the kernel inserted into mq-deadline, as the
		 * ftrace witness counted them: all of them on 6.x, writes only on 5.10, which
		 * dispatches a read straight to an idle device. */
		CHECK(o->got_queue || inserted == 0);
		check_count("queue times", o->queue.count, inserted, visible);
	} else {
		CHECK(!o->got_queue);
	}
}

/* ---- witnesses -------------------------------------------------------------------- */

/* A private ftrace instance (its own buffer: nobody else's tracing is touched) recording
 * block_rq_complete and block_rq_insert for every disk, enabled once for the whole test. */
static char ftrace_dir[128];

static int write_text(const char *dir, const char *file, const char *text)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

static void witness_remove(void)
{
	if (!ftrace_dir[0])
		return;
	write_text(ftrace_dir, "events/block/block_rq_complete/enable", "0");
	write_text(ftrace_dir, "events/block/block_rq_insert/enable", "0");
	rmdir(ftrace_dir);
	ftrace_dir[0] = '\0';
}

static void witness_start(void)
{
	snprintf(ftrace_dir, sizeof(ftrace_dir), "/sys/kernel/tracing/instances/ebpf-test-block-%d", (int)getpid());
	CHECK(mkdir(ftrace_dir, 0700) == 0);
	atexit(witness_remove);
	CHECK(write_text(ftrace_dir, "buffer_size_kb", "4096") == 0);
	CHECK(write_text(ftrace_dir, "events/block/block_rq_complete/enable", "1") == 0);
	CHECK(write_text(ftrace_dir, "events/block/block_rq_insert/enable", "1") == 0);
}

/* What the instance recorded since the last call (then it starts over): completed reads
 * and writes of the test's disk, every completion of any disk, and the test's requests
 * inserted into the IO scheduler (not every kernel inserts every request it dispatches:
 * 5.10 issues mq-deadline reads directly). */
struct traced_by_ftrace {
	uint64_t reads, writes, all;
	uint64_t inserted_reads, inserted_writes;
};

static struct traced_by_ftrace witness_take(void)
{
	struct traced_by_ftrace w = { 0 };
	char path[256], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", ftrace_dir);
	f = fopen(path, "re");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		char *complete = strstr(line, "block_rq_complete: "), *insert = strstr(line, "block_rq_insert: ");
		char *ev = complete ? complete : insert;
		unsigned int ma, mi;
		char rwbs[16];

		if (!ev || sscanf(strchr(ev, ' ') + 1, "%u,%u %15s", &ma, &mi, rwbs) != 3)
			continue;
		if (complete)
			w.all++;
		if ((ma << 20 | mi) != disk_dev)
			continue;
		/* blk_fill_rwbs: an optional F (preflush), then the operation */
		const char *op = rwbs[0] == 'F' && rwbs[1] ? rwbs + 1 : rwbs;
		if (*op == 'R')
			*(complete ? &w.reads : &w.inserted_reads) += 1;
		else if (*op == 'W')
			*(complete ? &w.writes : &w.inserted_writes) += 1;
	}
	if (f)
		fclose(f);
	CHECK(write_text(ftrace_dir, "trace", "") == 0); /* clears the buffer */
	return w;
}

static uint64_t completion_misses; /* set by completion_runs: the same programs' recursion_misses */

/* Runs of the module's completion program (BPF_ENABLE_STATS must be on), found through the
 * links of its probe points; -1 where the kernel gives no link to ask (classic tracepoints
 * before 5.15 attach through a perf event without a BPF link). */
static int64_t completion_runs(const struct module *m)
{
	int64_t runs = -1;

	completion_misses = 0;
	for (int i = 0; i < m->probes.npoints; i++) {
		for (int k = 0; k < PROBE_MAX_PROGS; k++) {
			struct bpf_link *link = m->probes.points[i].links[k];
			struct bpf_link_info li = { 0 };
			struct bpf_prog_info pi = { 0 };
			uint32_t len = sizeof(li);
			int fd;

			if (!link || bpf_obj_get_info_by_fd(bpf_link__fd(link), &li, &len))
				continue;
			fd = bpf_prog_get_fd_by_id(li.prog_id);
			len = sizeof(pi);
			if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &pi, &len) && strstr(pi.name, "complete")) {
				runs = (runs < 0 ? 0 : runs) + (int64_t)pi.run_cnt;
				completion_misses += pi.recursion_misses;
			}
			if (fd >= 0)
				close(fd);
		}
	}
	return runs;
}

static void run_method(const char *method, bool queue_time)
{
	struct module *m = block_test_module(method, disk);
	unsigned long long r0 = 0, w0 = 0, r1 = 0, w1 = 0, r2 = 0, w2 = 0;
	struct block_seen later2;
	int64_t runs0, runs;
	struct traced_by_ftrace w;
	char used[64];
	struct block_seen s;

	block_set_bool(m, "QueueTime", queue_time);
	set_scheduler(queue_time ? "mq-deadline" : "none");
	if (block_start(m, method))
		return;
	probe_point_method(&m->probes.points[queue_time ? 1 : 0], used, sizeof(used));
	printf("%-10s QueueTime=%d attached via %s\n", method, queue_time, used);
	CHECK(!strncmp(used, method, strlen(method)));

	s = block_read(m, disk);
	CHECK_EQ_U64(s.read.ios + s.write.ios, 0);
	CHECK(diskstats_ios(disk, &r0, &w0) == 0);
	witness_take();
	runs0 = completion_runs(m);
	workload();
	diskstats_settled(&r1, &w1, r0 + NREADS, w0 + NWRITES);
	s = block_read(m, disk);
	w = witness_take();
	runs = completion_runs(m);
	printf("  witnesses: ftrace saw %llu reads, %llu writes of %s and %llu completions of all disks; "
	       "the completion program ran %lld times\n",
	       (unsigned long long)w.reads, (unsigned long long)w.writes, disk, (unsigned long long)w.all,
	       runs < 0 ? -1LL : (long long)(runs - runs0));
	CHECK_EQ_U64(w.reads, NREADS); /* the witness itself sees exactly the test's IO */
	CHECK_EQ_U64(w.writes, NWRITES);
	CHECK(runs < 0 || (uint64_t)(runs - runs0) >= s.read.ios + s.write.ios);
	CHECK(s.read.got_untraced && s.write.got_untraced);
	CHECK_EQ_U64(s.read.untraced, (r1 - r0) - s.read.ios);
	CHECK_EQ_U64(s.write.untraced, (w1 - w0) - s.write.ios);
	/* sizes 2^16 and 2^14: slots 16 and 14 */
	check_op("write", &s.write, NWRITES, WRITE_SIZE, queue_time, w.inserted_writes,
		 s.recursion + s.write.untraced);
	check_op("read", &s.read, NREADS, READ_SIZE, queue_time, w.inserted_reads,
		 s.recursion + s.read.untraced);
	printf("  diskstats: +%llu reads, +%llu writes; issue times: %llu from requests, %llu from the hash; "
	       "%llu nested runs skipped\n",
	       r1 - r0, w1 - w0, (unsigned long long)s.issue_request, (unsigned long long)s.issue_hash,
	       (unsigned long long)s.recursion);
	check_count("reads against /proc/diskstats", s.read.ios, r1 - r0, s.recursion + s.read.untraced);
	check_count("writes against /proc/diskstats", s.write.ios, w1 - w0, s.recursion + s.write.untraced);
	CHECK_EQ_U64(s.other_disks, 0); /* Disk "loopN" selects that disk only */
	CHECK_EQ_U64(s.inflight_full, 0);
	if (!strcmp(method, "tracepoint"))
		CHECK(s.issue_hash >= NREADS + NWRITES); /* no request pointer: always the hash */
	else
		CHECK(s.issue_request + s.issue_hash >= NREADS + NWRITES);

	/* Next interval: only the new IO; lifetime counts keep growing. Read at once, as a
	 * collectd read can come right after IO; the witnesses say where anything missing went. */
	witness_take();
	runs0 = completion_runs(m);
	workload();
	s = block_read(m, disk);
	w = witness_take();
	runs = completion_runs(m);
	if (s.read.ios != 2 * NREADS || s.write.ios != 2 * NWRITES) {
		struct block_seen later;

		usleep(500000);
		later = block_read(m, disk);
		printf("  SHORT in the second interval: %llu reads, %llu writes; ftrace saw %llu reads, %llu writes of "
		       "%s (%llu completions of all disks), the completion program ran %lld times (%llu for the IO we "
		       "counted), its recursion misses %llu; 0.5 s later: %llu reads, %llu writes, %llu nested runs\n",
		       (unsigned long long)s.read.ios, (unsigned long long)s.write.ios, (unsigned long long)w.reads,
		       (unsigned long long)w.writes, disk, (unsigned long long)w.all,
		       runs < 0 ? -1LL : (long long)(runs - runs0),
		       (unsigned long long)(s.read.ios + s.write.ios - NREADS - NWRITES),
		       (unsigned long long)completion_misses, (unsigned long long)later.read.ios, (unsigned long long)later.write.ios,
		       (unsigned long long)later.recursion);
	}
	CHECK_EQ_U64(w.reads, NREADS);
	CHECK_EQ_U64(w.writes, NWRITES);
	diskstats_settled(&r2, &w2, r1 + NREADS, w1 + NWRITES);
	/* untraced is read before this interval's maps; a later read has the final count */
	later2 = block_read(m, disk);
	CHECK_EQ_U64(later2.read.untraced, (r2 - r0) - later2.read.ios);
	CHECK_EQ_U64(later2.write.untraced, (w2 - w0) - later2.write.ios);
	check_count("writes after two runs", s.write.ios, 2 * NWRITES, s.recursion + later2.write.untraced);
	check_count("write sizes in the second interval", s.write.size.count, NWRITES,
		    s.recursion + later2.write.untraced);
	CHECK_EQ_U64(s.write.size.total_count, s.write.ios);
	check_count("read latencies in the second interval", s.read.latency.count, NREADS,
		    s.recursion + later2.read.untraced);
	printf("  after two runs: %llu reads, %llu writes; dropped: %llu rows_full, %llu inflight_full, %llu queued_full, "
	       "%llu nested runs; %llu completions without issue time (all disks)\n",
	       (unsigned long long)s.read.ios, (unsigned long long)s.write.ios, (unsigned long long)s.rows_full,
	       (unsigned long long)s.inflight_full, (unsigned long long)s.queued_full, (unsigned long long)s.recursion,
	       (unsigned long long)s.no_start);
	module_free(m);
}

/* IgnoreSelected true: every disk but the listed one. */
static void test_ignore_selected(void)
{
	struct module *m = module_new(module_find("block"), NULL);
	struct block_seen s;

	block_set_string(m, "Disk", disk);
	block_set_bool(m, "IgnoreSelected", true);
	set_scheduler("none");
	CHECK(module_start(m) == 0);
	workload();
	s = block_read(m, disk);
	CHECK_EQ_U64(s.read.ios + s.write.ios, 0);
	module_free(m);
}

/* Programs detached, the kernel's accounting goes on: every IO after that is untraced, and
 * untraced-<disk>-<op> says exactly how many. While attached, what the kernel did not hand
 * to the programs (doc/modules.md, Known limits) is untraced too: traced + untraced is the
 * kernel's count exactly, in both phases, and the loss stays under the measured bound. */
static void test_untraced(void)
{
	struct module *m = module_new(module_find("block"), NULL);
	unsigned long long r0 = 0, w0 = 0, r1 = 0, w1 = 0;
	struct block_seen s, attached;

	block_set_string(m, "Disk", disk);
	set_scheduler("none");
	CHECK(module_start(m) == 0);
	CHECK(diskstats_ios(disk, &r0, &w0) == 0);
	workload();
	diskstats_settled(&r1, &w1, r0 + NREADS, w0 + NWRITES);
	attached = block_read(m, disk);
	printf("programs attached: %llu reads, %llu writes traced; untraced: %llu reads, %llu writes\n",
	       (unsigned long long)attached.read.ios, (unsigned long long)attached.write.ios,
	       (unsigned long long)attached.read.untraced, (unsigned long long)attached.write.untraced);
	CHECK_EQ_U64(attached.read.ios + attached.read.untraced, NREADS);
	CHECK_EQ_U64(attached.write.ios + attached.write.untraced, NWRITES);
	check_loss_bound("reads while attached", attached.read.untraced, NREADS);
	check_loss_bound("writes while attached", attached.write.untraced, NWRITES);
	probe_set_stop(&m->probes);
	workload();
	diskstats_settled(&r1, &w1, r0 + 2 * NREADS, w0 + 2 * NWRITES);
	s = block_read(m, disk);
	printf("programs detached: %llu reads, %llu writes traced; untraced: %llu reads, %llu writes\n",
	       (unsigned long long)s.read.ios, (unsigned long long)s.write.ios, (unsigned long long)s.read.untraced,
	       (unsigned long long)s.write.untraced);
	CHECK_EQ_U64(s.read.ios, attached.read.ios);
	CHECK_EQ_U64(s.write.ios, attached.write.ios);
	CHECK_EQ_U64(s.read.untraced, attached.read.untraced + NREADS);
	CHECK_EQ_U64(s.write.untraced, attached.write.untraced + NWRITES);
	module_free(m);
}

int main(int argc, char **argv)
{
	struct method_list methods;
	struct loop_device dev;
	int stats_fd;

	block_test_setup(&dev, 64);
	disk = dev.name;
	disk_dev = dev.dev;
	printf("loop device %s (direct IO to its file: %s)\n", disk, dev.direct_io ? "yes" : "no");
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	CHECK(stats_fd >= 0); /* run counts, while this descriptor stays open */
	witness_start();

	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n; i++)
		for (int queue_time = 0; queue_time < 2; queue_time++)
			MEASURED_UNDER_LOAD(MEASURES)
				run_method(methods.names[i], queue_time);
	test_ignore_selected();
	MEASURED_UNDER_LOAD(MEASURES)
		test_untraced();
	witness_remove();
	close(stats_fd);
	loop_device_remove(&dev);
	return testing_done();
}
