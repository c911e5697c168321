#define _GNU_SOURCE /* O_DIRECT */
#include "tests/block/block_test_support.h"

#include "libcore/kernel/diskstats.h"
#include "tests/support/bpf_requirements.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void block_test_setup(struct loop_device *dev, int mib)
{
	char err[ERR_MAX];

	require_bpf_tracing("/sys/kernel/tracing/events/block");
	/* Over a file on the machine's own disk (/var/tmp), as users' loop devices are: the loop
	 * driver's IO to it completes on that disk, in its interrupts, beside ours. */
	if (loop_device_setup(dev, mib, "/var/tmp", err, sizeof(err)))
		SKIP("cannot attach a loop device: %s", err);
}

static void set_option(struct module *m, const char *key, struct opt_value v)
{
	char err[ERR_MAX] = "";
	struct option o = { .key = key, .values = &v, .nvalues = 1 };

	CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
	if (err[0])
		fprintf(stderr, "%s: %s\n", key, err);
}

void block_set_string(struct module *m, const char *key, const char *value)
{
	set_option(m, key, (struct opt_value){ .type = OPT_STRING, .string = value });
}

void block_set_bool(struct module *m, const char *key, bool value)
{
	set_option(m, key, (struct opt_value){ .type = OPT_BOOLEAN, .boolean = value });
}

struct module *block_test_module(const char *method, const char *disk)
{
	struct module *m = module_new(module_find("block"), NULL);

	block_set_string(m, "AttachOrder", method);
	block_set_string(m, "Disk", disk);
	return m;
}

int block_start(struct module *m, const char *method)
{
	if (!module_start(m))
		return 0;
	fprintf(stderr, "%s: start failed: %s\n", method, m->last_error);
	CHECK(!"module started");
	module_free(m);
	return -1;
}

/* The operation of disk that instance names ("loop3-write"), or NULL: another disk's series
 * (counted in other_disks) or an operation the tests do not look at. */
static struct block_op_seen *op_of(struct block_seen *s, const char *disk, const char *instance)
{
	size_t n = strlen(disk);

	if (strncmp(instance, disk, n) || instance[n] != '-') {
		s->other_disks++;
		return NULL;
	}
	if (!strcmp(instance + n + 1, "read"))
		return &s->read;
	if (!strcmp(instance + n + 1, "write"))
		return &s->write;
	if (!strcmp(instance + n + 1, "flush"))
		return &s->flush;
	return NULL;
}

/* The module's own counters, not a disk's: dropped-<why> and issue_time-<where>. */
static bool note_module_counter(struct block_seen *s, const char *metric, const char *instance, uint64_t v)
{
	static const struct {
		const char *metric, *instance;
		size_t field;
	} named[] = {
		{ "dropped", "inflight_full", offsetof(struct block_seen, inflight_full) },
		{ "dropped", "recursion", offsetof(struct block_seen, recursion) },
		{ "dropped", "rows_full", offsetof(struct block_seen, rows_full) },
		{ "dropped", "queued_full", offsetof(struct block_seen, queued_full) },
		{ "issue_time", "request", offsetof(struct block_seen, issue_request) },
		{ "issue_time", "hash", offsetof(struct block_seen, issue_hash) },
		{ "issue_time", "unknown", offsetof(struct block_seen, no_start) },
	};

	if (strcmp(metric, "dropped") && strcmp(metric, "issue_time"))
		return false;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(metric, named[i].metric) && !strcmp(instance, named[i].instance))
			*(uint64_t *)((char *)s + named[i].field) = v;
	return true;
}

static void note_counter(struct block_seen *s, const char *disk, const struct recorded_value *v)
{
	struct block_op_seen *o;

	if (note_module_counter(s, v->metric, v->instance, v->counter))
		return;
	o = op_of(s, disk, v->instance);
	if (o && !strcmp(v->metric, "untraced")) {
		o->untraced = v->counter;
		o->got_untraced = true;
	} else if (o && !strcmp(v->metric, "ios"))
		o->ios = v->counter;
	else if (o && !strcmp(v->metric, "bytes"))
		o->bytes = v->counter;
}

static void note_histogram(struct block_seen *s, const char *disk, const struct recorded_value *v)
{
	struct block_op_seen *o = op_of(s, disk, v->instance);

	if (!o)
		return;
	if (!strcmp(v->metric, "latency")) {
		s->wrong_units += v->unit != HIST_UNIT_NANOSECONDS;
		o->latency = *v->hist;
		o->got_latency = true;
	} else if (!strcmp(v->metric, "io_size")) {
		s->wrong_units += v->unit != HIST_UNIT_BYTES;
		o->size = *v->hist;
		o->got_size = true;
	} else if (!strcmp(v->metric, "queue_latency")) {
		o->queue = *v->hist;
		o->got_queue = true;
	}
}

struct block_seen block_read(struct module *m, const char *disk)
{
	struct recording r = { 0 };
	struct block_seen s = { 0 };

	CHECK(recording_read(&r, m) == 0);
	for (int i = 0; i < r.n; i++) {
		if (r.values[i].kind == RECORDED_COUNTER)
			note_counter(&s, disk, &r.values[i]);
		else if (r.values[i].kind == RECORDED_HISTOGRAM)
			note_histogram(&s, disk, &r.values[i]);
	}
	recording_free(&r);
	/* Every read, in every block test: latency in nanoseconds, sizes in bytes. */
	CHECK(s.wrong_units == 0);
	return s;
}

struct diskstats_find {
	const char *name;
	struct block_diskstats *d;
	bool found;
};

static void diskstats_match(void *ctx, const struct diskstats_disk *disk)
{
	struct diskstats_find *f = ctx;

	if (strcmp(disk->name, f->name))
		return;
	f->d->reads = disk->completed[DISKSTATS_READ];
	f->d->writes = disk->completed[DISKSTATS_WRITE];
	f->d->flushes = disk->completed[DISKSTATS_FLUSH];
	f->d->has_flushes = disk->has[DISKSTATS_FLUSH];
	f->found = true;
}

int block_diskstats(const char *disk, struct block_diskstats *d)
{
	struct diskstats_find f = { .name = disk, .d = d };

	if (diskstats_each(NULL, diskstats_match, &f) || !f.found)
		return -1;
	return 0;
}

struct block_direct block_direct_open(const char *disk, size_t size)
{
	struct block_direct d = { .fd = -1 };
	char path[80];

	snprintf(path, sizeof(path), "/dev/%s", disk);
	d.fd = open(path, O_RDWR | O_DIRECT);
	CHECK(d.fd >= 0);
	if (d.fd < 0 || posix_memalign(&d.buf, 4096, size))
		abort();
	memset(d.buf, 0x5a, size);
	return d;
}

void block_direct_writes(const struct block_direct *d, int n, size_t size)
{
	for (int i = 0; i < n; i++)
		CHECK(pwrite(d->fd, d->buf, size, (off_t)i * (off_t)size) == (ssize_t)size);
}

void block_direct_close(struct block_direct *d)
{
	close(d->fd);
	free(d->buf);
	d->fd = -1;
	d->buf = NULL;
}

void block_check_count(const char *what, uint64_t got, uint64_t want, uint64_t visible)
{
	if (got != want)
		fprintf(stderr, "%s: %llu, expected %llu; %llu shown to users as lost (nested runs + untraced)\n", what,
			(unsigned long long)got, (unsigned long long)want, (unsigned long long)visible);
	CHECK(got <= want && got + visible >= want);
}
