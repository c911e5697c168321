/* Root test: flushes in the block module, with every attach method, on a loop device the test
 * creates (its write cache is on: the loop driver turns a flush into an fsync of its file).
 *
 * fsync() of a block device sends one empty write that asks for a preflush: the kernel's flush
 * machinery issues a flush request (REQ_OP_FLUSH) for it and then completes the empty write
 * itself. /proc/diskstats counts the first as a flush and the second as a write; so must the
 * module (operations-<disk>-flush and -write, and untraced stays 0), but the write's size
 * histogram holds the sizes of data moved: 64 KiB for every write that carried data, and no
 * 0-byte "write" per flush (500 of them would pull a 4 KiB p50 down to 4075). */
#include "tests/support/attach_methods.h"
#include "tests/block/block_test_support.h"
#include "tests/support/testing.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NWRITES 40
#define WRITE_SIZE 65536
#define NFLUSHES 25

static const char *disk; /* "loopN" */

static struct block_diskstats diskstats_of_disk(void)
{
	struct block_diskstats d = { 0 };

	CHECK(block_diskstats(disk, &d) == 0);
	return d;
}

/* NWRITES O_DIRECT writes of WRITE_SIZE, then NFLUSHES fsync() of the device: each fsync is one
 * flush (nothing is dirty in the page cache: every write went around it). */
static void workload(void)
{
	struct block_direct d = block_direct_open(disk, WRITE_SIZE);

	block_direct_writes(&d, NWRITES, WRITE_SIZE);
	for (int i = 0; i < NFLUSHES; i++)
		CHECK(fsync(d.fd) == 0);
	block_direct_close(&d);
}

static void run_method(const char *method)
{
	struct module *m = block_test_module(method, disk);
	struct block_diskstats d0, d1;
	uint64_t lost, dw, df;
	struct block_seen s;
	char used[64];

	if (block_start(m, method))
		return;
	probe_point_method(&m->probes.points[0], used, sizeof(used));
	CHECK(!strncmp(used, method, strlen(method)));
	s = block_read(m, disk);
	d0 = diskstats_of_disk();
	workload();
	/* /proc/diskstats is updated just after the completion that wakes us: wait until stable */
	for (int i = 0; i < 100; i++) {
		d1 = diskstats_of_disk();
		if (d1.writes - d0.writes >= NWRITES + NFLUSHES && d1.flushes - d0.flushes >= NFLUSHES)
			break;
		usleep(10000);
	}
	s = block_read(m, disk);
	dw = d1.writes - d0.writes;
	df = d1.flushes - d0.flushes;
	printf("%-10s attached via %s: diskstats +%llu writes, +%llu flushes; module %llu writes (%llu bytes, "
	       "%llu sizes, p50 %.0f), %llu flushes (%llu sizes); untraced %llu writes, %llu flushes\n",
	       method, used, (unsigned long long)dw, (unsigned long long)df, (unsigned long long)s.write.ios,
	       (unsigned long long)s.write.bytes, (unsigned long long)s.write.size.count,
	       hist_percentile(&s.write.size, 50), (unsigned long long)s.flush.ios,
	       (unsigned long long)s.flush.size.count, (unsigned long long)s.write.untraced,
	       (unsigned long long)s.flush.untraced);
	/* the witness: one flush per fsync, and its empty write counted as a write */
	CHECK_EQ_U64(df, NFLUSHES);
	CHECK_EQ_U64(dw, NWRITES + NFLUSHES);
	lost = s.recursion + s.write.untraced;
	block_check_count("writes against /proc/diskstats", s.write.ios, dw, lost);
	block_check_count("flushes against /proc/diskstats", s.flush.ios, df, s.recursion + s.flush.untraced);
	CHECK_EQ_U64(s.write.untraced, dw - s.write.ios);
	/* sizes: only the writes that moved data, each of WRITE_SIZE; a flush has none */
	block_check_count("write sizes", s.write.size.count, NWRITES, lost);
	CHECK_EQ_U64(s.write.size.sum, s.write.size.count * WRITE_SIZE);
	CHECK_EQ_U64(s.write.size.slots[hist_slot_p(WRITE_SIZE, s.write.size.precision)], s.write.size.count);
	CHECK_NEAR(hist_percentile(&s.write.size, 50), (double)WRITE_SIZE, 1e-6);
	CHECK_EQ_U64(s.write.bytes, s.write.size.count * WRITE_SIZE);
	CHECK_EQ_U64(s.flush.size.count, 0);
	CHECK_EQ_U64(s.flush.bytes, 0);
	module_free(m);
}

int main(int argc, char **argv)
{
	struct method_list methods;
	struct loop_device dev;

	block_test_setup(&dev, 16);
	disk = dev.name;
	if (!diskstats_of_disk().has_flushes)
		SKIP("/proc/diskstats has no flush fields (kernel before 5.5): no witness for flushes");
	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n; i++)
		run_method(methods.names[i]);
	loop_device_remove(&dev);
	return testing_done();
}
