/* Root test: flushes in the block module, with every attach method, on a loop device the test
 * creates (its write cache is on: the loop driver turns a flush into an fsync of its file).
 *
 * fsync() of a block device sends one empty write that asks for a preflush: the kernel's flush
 * machinery issues a flush request (REQ_OP_FLUSH) for it and then completes the empty write
 * itself. /proc/diskstats counts the first as a flush and the second as a write; so must the
 * module (operations-<disk>-flush and -write, and untraced stays 0), but the write's size
 * histogram holds the sizes of data moved: 64 KiB for every write that carried data, and no
 * 0-byte "write" per flush (500 of them would pull a 4 KiB p50 down to 4075). */
#define _GNU_SOURCE /* O_DIRECT */
#include "libcore/kernel/diskstats.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/privileges.h"
#include "tests/loop_device.h"
#include "tests/bpf/attach_methods.h"
#include "tests/testing.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define NWRITES 40
#define WRITE_SIZE 65536
#define NFLUSHES 25

static const char *disk; /* "loopN" */

struct op_seen {
	uint64_t ios, bytes, untraced;
	struct hist_interval size;
};

struct seen {
	struct op_seen write, flush;
	uint64_t recursion;
};

static struct op_seen *op_of(struct seen *s, const char *instance)
{
	size_t n = strlen(disk);

	if (strncmp(instance, disk, n) || instance[n] != '-')
		return NULL;
	if (!strcmp(instance + n + 1, "write"))
		return &s->write;
	if (!strcmp(instance + n + 1, "flush"))
		return &s->flush;
	return NULL;
}

static void on_counter(void *ctx, const char *metric, const char *instance, uint64_t v)
{
	struct seen *s = ctx;
	struct op_seen *o;

	if (!strcmp(metric, "dropped") && !strcmp(instance, "recursion"))
		s->recursion = v;
	if (!(o = op_of(s, instance)))
		return;
	if (!strcmp(metric, "ios"))
		o->ios = v;
	else if (!strcmp(metric, "bytes"))
		o->bytes = v;
	else if (!strcmp(metric, "untraced"))
		o->untraced = v;
}

static void on_histogram(void *ctx, const char *metric, const char *instance, enum hist_unit unit,
			 const struct hist_interval *h)
{
	struct op_seen *o = op_of(ctx, instance);

	(void)unit;
	if (o && !strcmp(metric, "io_size"))
		o->size = *h;
}

static struct seen read_module(struct module *m)
{
	struct seen s = { 0 };
	struct metric_sink sink = { .ctx = &s, .counter = on_counter, .histogram = on_histogram };

	CHECK(module_read(m, &sink) == 0);
	return s;
}

static void set_string(struct module *m, const char *key, const char *value)
{
	char err[512] = "";
	struct opt_value v = { .type = OPT_STRING, .string = value };
	struct option o = { .key = key, .values = &v, .nvalues = 1 };

	CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
}

struct diskstats_find {
	const char *name;
	uint64_t writes, flushes;
	bool found, has_flushes;
};

static void diskstats_match(void *ctx, const struct diskstats_disk *d)
{
	struct diskstats_find *f = ctx;

	if (strcmp(d->name, f->name))
		return;
	f->writes = d->completed[DISKSTATS_WRITE];
	f->flushes = d->completed[DISKSTATS_FLUSH];
	f->has_flushes = d->has[DISKSTATS_FLUSH];
	f->found = true;
}

static struct diskstats_find diskstats_of_disk(void)
{
	struct diskstats_find f = { .name = disk };

	CHECK(diskstats_each(NULL, diskstats_match, &f) == 0 && f.found);
	return f;
}

/* NWRITES O_DIRECT writes of WRITE_SIZE, then NFLUSHES fsync() of the device: each fsync is one
 * flush (nothing is dirty in the page cache: every write went around it). */
static void workload(void)
{
	char path[80];
	void *buf;
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", disk);
	fd = open(path, O_RDWR | O_DIRECT);
	CHECK(fd >= 0);
	if (fd < 0 || posix_memalign(&buf, 4096, WRITE_SIZE))
		abort();
	memset(buf, 0x5a, WRITE_SIZE);
	for (int i = 0; i < NWRITES; i++)
		CHECK(pwrite(fd, buf, WRITE_SIZE, (off_t)i * WRITE_SIZE) == WRITE_SIZE);
	for (int i = 0; i < NFLUSHES; i++)
		CHECK(fsync(fd) == 0);
	close(fd);
	free(buf);
}

/* Exact, or short by no more than what users are shown as lost (nested runs the kernel
 * skipped, untraced): as tests/bpf/test_block.c's check_count. */
static void check_count(const char *what, uint64_t got, uint64_t want, uint64_t visible)
{
	if (got != want)
		fprintf(stderr, "%s: %llu, expected %llu; %llu shown to users as lost\n", what, (unsigned long long)got,
			(unsigned long long)want, (unsigned long long)visible);
	CHECK(got <= want && got + visible >= want);
}

static void run_method(const char *method)
{
	struct module *m = module_new(module_find("block"), NULL);
	struct diskstats_find d0, d1;
	uint64_t lost, dw, df;
	struct seen s;
	char used[64];

	set_string(m, "AttachOrder", method);
	set_string(m, "Disk", disk);
	if (module_start(m)) {
		fprintf(stderr, "%s: start failed: %s\n", method, m->last_error);
		CHECK(!"module started");
		module_free(m);
		return;
	}
	probe_point_method(&m->probes.points[0], used, sizeof(used));
	CHECK(!strncmp(used, method, strlen(method)));
	s = read_module(m);
	d0 = diskstats_of_disk();
	workload();
	/* /proc/diskstats is updated just after the completion that wakes us: wait until stable */
	for (int i = 0; i < 100; i++) {
		d1 = diskstats_of_disk();
		if (d1.writes - d0.writes >= NWRITES + NFLUSHES && d1.flushes - d0.flushes >= NFLUSHES)
			break;
		usleep(10000);
	}
	s = read_module(m);
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
	check_count("writes against /proc/diskstats", s.write.ios, dw, lost);
	check_count("flushes against /proc/diskstats", s.flush.ios, df, s.recursion + s.flush.untraced);
	CHECK_EQ_U64(s.write.untraced, dw - s.write.ios);
	/* sizes: only the writes that moved data, each of WRITE_SIZE; a flush has none */
	check_count("write sizes", s.write.size.count, NWRITES, lost);
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
	static const char *const tracepoint_methods[] = { "tp_btf", "raw_tp", "tracepoint", NULL };
	struct method_list methods;
	struct loop_device dev;
	char err[256];

	if (geteuid() != 0 || !privileges_sufficient())
		SKIP("needs root (or CAP_BPF + CAP_PERFMON) to load BPF programs");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP("kernel has no BTF (/sys/kernel/btf/vmlinux): CO-RE programs cannot load");
	if (access("/sys/kernel/tracing/events/block", F_OK) && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		SKIP("tracefs is not mounted and cannot be: mount -t tracefs nodev /sys/kernel/tracing");
	if (loop_device_setup(&dev, 16, "/var/tmp", err, sizeof(err)))
		SKIP("cannot attach a loop device: %s", err);
	disk = dev.name;
	if (!diskstats_of_disk().has_flushes)
		SKIP("/proc/diskstats has no flush fields (kernel before 5.5): no witness for flushes");
	methods_from(argc, argv, tracepoint_methods, &methods);
	for (int i = 0; i < methods.n; i++)
		run_method(methods.names[i]);
	loop_device_remove(&dev);
	return testing_done();
}
