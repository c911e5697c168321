/* collectd-ebpf-hist's drawing on fixed snapshots, read through the shared parser: slots
 * folded into log2 rows by their bounds (finer slots merge), BCC's star bars (the article's
 * read.py screen, star for star), the unit chosen from the values, interval differences and
 * restarts, counters busiest first, and the filters (--cgroup: a cgroup's rows together, under
 * collectd's names, no other cgroup's and no host-wide row). */
#define _GNU_SOURCE
#include "tests/support/testing.h"
#include "terminal/hist_draw.h"
#include "terminal/log2_buckets.h"
#include "terminal/terminal_cgroup.h"
#include "terminal/terminal_screen.h"
#include "base/err_max.h"

#include <stdio.h>
#include <string.h>

/* The article's read.py screen: (512, 1024] 6, (1024, 2048] 1, (2048, 4096] 6,
 * (4096, 8192] 1, (8192, 16384] 2 ns. The latency comes at precision 1 (two slots per
 * power of two: slot 18 is (512, 768], 19 (768, 1024], 20 (1024, 1536], ...), as a
 * log-linear layout writes them: the view must merge them by their bounds. Sizes come at
 * precision 0 (slot 7 is (64, 128]). */
static const char before_text[] =
	"collectd-ebpf-snapshot\t3\n"
	"written\t1700000000000000\n"
	"module\tsyscalls\trunning\t1699999990000000\tsys_exit=tp_btf\t\n"
	"counter\tcalls\tfsync\t100\n"
	"counter\tcalls\tread\t1000\n"
	"counter\tdropped\tstart_lost\t0\n"
	"histogram\tlatency\tfsync\tnanoseconds\t1\t4\t4000\t4\t1000\t1000\t1000\t1000\n"
	"bucket\t19\t4\n"
	"histogram\tbytes\tread\tbytes\t0\t1\t100\t1\t100\t100\t100\t100\n"
	"bucket\t7\t1\n"
	"module\tblock\tdisabled\t1699999990000000\t\tnot enabled: add <Module \"block\"> to <Plugin ebpf>\n"
	"end\n";

static const char after_text[] =
	"collectd-ebpf-snapshot\t3\n"
	"written\t1700000002000000\n"
	"module\tsyscalls\trunning\t1699999990000000\tsys_exit=tp_btf\t\n"
	"counter\tcalls\tfsync\t120\n"
	"counter\tcalls\tread\t1010\n"
	"counter\tcalls\twrite\t50\n"
	"counter\tdropped\tstart_lost\t0\n"
	"histogram\tlatency\tfsync\tnanoseconds\t1\t20\t40000\t16\t2000\t2000\t2000\t2000\n"
	"bucket\t18\t3\n"
	"bucket\t19\t7\n"
	"bucket\t20\t1\n"
	"bucket\t21\t0\n"
	"bucket\t22\t6\n"
	"bucket\t24\t1\n"
	"bucket\t27\t2\n"
	"histogram\tbytes\tread\tbytes\t0\t3\t32868\t2\t16384\t16384\t16384\t16384\n"
	"bucket\t7\t1\n"
	"bucket\t14\t2\n"
	"module\tblock\tdisabled\t1699999990000000\t\tnot enabled: add <Module \"block\"> to <Plugin ebpf>\n"
	"end\n";

/* What the plugin publishes before the module's first read: its record, no values yet. */
static const char first_text[] =
	"collectd-ebpf-snapshot\t3\n"
	"written\t1699999990000000\n"
	"module\tsyscalls\trunning\t0\t\t\n"
	"end\n";

static void parse(const char *text, struct snapshot *s)
{
	char err[ERR_MAX] = "";
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	CHECK(f != NULL);
	CHECK(snapshot_parse(f, s, err, sizeof(err)) == 0);
	if (err[0])
		fprintf(stderr, "parse: %s\n", err);
	fclose(f);
}

/* Runs screen_draw into a string (freed by the caller). */
static char *draw(const struct snapshot *cur, const struct snapshot *prev, const struct screen_options *o, int *matched)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*matched = screen_draw(f, "test.snapshot", cur, prev, o);
	fclose(f);
	return buf;
}

/* The line of the screen that starts with prefix (after leading blanks), or NULL. */
static const char *line_with(const char *screen, const char *needle)
{
	return strstr(screen, needle);
}

static int stars_on_line(const char *line)
{
	const char *bar = strchr(line, '|');
	int n = 0;

	for (bar = bar ? bar + 1 : line; *bar == '*'; bar++)
		n++;
	return n;
}

static void test_rows_and_delta(const struct snapshot *before, const struct snapshot *after)
{
	struct log2_buckets b, a, d;
	double lo, hi;

	log2_buckets_fold(&after->modules[0], &after->modules[0].histograms[0], &a);
	CHECK_EQ_U64(a.count[10], 10); /* (512, 1024] */
	CHECK_EQ_U64(a.count[11], 1);  /* (1024, 1536] + (1536, 2048] */
	CHECK_EQ_U64(a.count[12], 6);
	CHECK_EQ_U64(a.count[13], 1);
	CHECK_EQ_U64(a.count[14], 2);
	CHECK_EQ_U64(a.total, 20);
	log2_bucket_bounds(&a, 11, &lo, &hi);
	CHECK_NEAR(lo, 1024, 0);
	CHECK_NEAR(hi, 2048, 0);
	log2_bucket_bounds(&a, 0, &lo, &hi);
	CHECK_NEAR(lo, 0, 0);
	CHECK_NEAR(hi, 1, 0);

	log2_buckets_fold(&before->modules[0], &before->modules[0].histograms[0], &b);
	CHECK(log2_buckets_delta(&a, &b, &d));
	CHECK_EQ_U64(d.count[10], 6);
	CHECK_EQ_U64(d.total, 16);
	CHECK_EQ_U64(d.sum, 36000);
	/* Backwards (collectd restarted the module): the new counts whole. */
	CHECK(!log2_buckets_delta(&b, &a, &d));
	CHECK_EQ_U64(d.total, 4);
	CHECK_EQ_U64(d.count[10], 4);
}

static void test_open_slot(void)
{
	/* Precision 0: slot 0 is [0, 1], the last slot (2^38 ns, about 275 s) is open. */
	struct snapshot_bucket b[2] = { { .slot = 0, .count = 3 }, { .slot = HIST_LAST_SLOT(0), .count = 1 } };
	struct snapshot_histogram h = { .unit = SNAPSHOT_UNIT_NANOSECONDS, .precision = 0, .nbuckets = 2 };
	struct snapshot_module sm = { .nhistograms = 1, .histograms = &h, .nbuckets = 2, .buckets = b };
	struct log2_buckets r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	log2_buckets_fold(&sm, &h, &r);
	CHECK_EQ_U64(r.count[0], 3);
	CHECK_EQ_U64(r.count[LOG2_BUCKET_INF], 1);
	f = open_memstream(&buf, &len);
	hist_draw(f, snapshot_unit_name(h.unit), &r);
	fclose(f);
	/* Rows up to the last finite one with counts, then the open row; unit from its bound. */
	CHECK(strstr(buf, "     secs ") != NULL);
	CHECK(strstr(buf, "275 -> inf") != NULL);
	CHECK(strstr(buf, "-> 2.15") == NULL); /* no empty rows drawn between 1 ns and 275 s */
	free(buf);
}

static void test_units_and_stars(void)
{
	struct log2_buckets r = { 0 };
	char num[32];

	CHECK(hist_draw_stars(6, 6, 40) == 40);
	CHECK(hist_draw_stars(1, 6, 40) == 6);  /* the article: "******" */
	CHECK(hist_draw_stars(2, 6, 40) == 13); /* "*************" */
	CHECK(hist_draw_stars(1, 947, 40) == 0);
	CHECK(hist_draw_stars(0, 0, 40) == 0);

	/* The first row with counts sets the unit: the largest in which its lower bound is >= 1. */
	r.count[10] = 1; /* (512, 1024] ns */
	CHECK_STR(hist_draw_unit("nanoseconds", &r).name, "nsecs");
	r.count[30] = 1; /* a slow one does not change the scale the first row set */
	CHECK_STR(hist_draw_unit("nanoseconds", &r).name, "nsecs");
	memset(&r, 0, sizeof(r));
	r.count[11] = 1; /* (1024, 2048] ns */
	CHECK_STR(hist_draw_unit("nanoseconds", &r).name, "usecs");
	memset(&r, 0, sizeof(r));
	r.count[21] = 1; /* (1.05, 2.1] ms */
	CHECK_STR(hist_draw_unit("nanoseconds", &r).name, "msecs");
	memset(&r, 0, sizeof(r));
	r.count[31] = 1; /* (1.07, 2.15] s */
	CHECK_STR(hist_draw_unit("nanoseconds", &r).name, "secs");
	r.count[0] = 5; /* row 0, [0, 1] ns, has no lower bound to scale by */
	CHECK_STR(hist_draw_unit("nanoseconds", &r).name, "secs");
	memset(&r, 0, sizeof(r));
	r.count[10] = 1;
	CHECK_STR(hist_draw_unit("bytes", &r).name, "bytes");
	memset(&r, 0, sizeof(r));
	r.count[0] = 1;
	r.count[17] = 1; /* (64, 128] KiB */
	CHECK_STR(hist_draw_unit("bytes", &r).name, "KiB");
	memset(&r, 0, sizeof(r));
	r.count[21] = 1;
	CHECK_STR(hist_draw_unit("bytes", &r).name, "MiB");
	memset(&r, 0, sizeof(r));
	r.count[0] = 1; /* only row 0: the kernel's unit */
	CHECK_STR(hist_draw_unit("bytes", &r).name, "bytes");

	hist_draw_number(num, sizeof(num), 1.024);
	CHECK_STR(num, "1.02");
	hist_draw_number(num, sizeof(num), 16);
	CHECK_STR(num, "16");
	hist_draw_number(num, sizeof(num), 1048.576);
	CHECK_STR(num, "1049");
	hist_draw_number(num, sizeof(num), 65.536);
	CHECK_STR(num, "65.5");
}

static void test_interval_screen(const struct snapshot *before, const struct snapshot *after)
{
	struct screen_options o = { .top = 10 };
	const char *l;
	char *s;
	int matched;

	s = draw(after, before, &o, &matched);
	printf("%s", s);
	CHECK(matched == 2 + 4);
	CHECK(strstr(s, "last 2.0 s") != NULL);
	/* The article's read.py screen, in usecs: 6 | 1 | 6 | 1 | 2 with 40, 6, 40, 6, 13 stars. */
	/* The first row, (512, 1024] ns, sets the scale: nsecs, integer labels. */
	CHECK(strstr(s, "latency-fsync: 16 events, mean 2250 nsecs") != NULL);
	CHECK(strstr(s, "     nsecs               : count     distribution\n") != NULL);
	l = line_with(s, "       512 -> 1024       : 6        |");
	CHECK(l && stars_on_line(l) == 40);
	l = line_with(s, "      1024 -> 2048       : 1        |");
	CHECK(l && stars_on_line(l) == 6);
	l = line_with(s, "      8192 -> 16384      : 2        |");
	CHECK(l && stars_on_line(l) == 13);
	CHECK(strstr(s, "|****************************************|\n") != NULL);
	/* Bytes: one new 16 KiB read, none below it in this interval. */
	CHECK(strstr(s, "bytes-read: 2 events, mean 16 KiB") != NULL);
	CHECK(strstr(s, "         8 -> 16         : 2        |") != NULL);
	CHECK(strstr(s, "0.0625 -> 0.125") == NULL);
	/* Counters busiest first, as rates over the 2 s between the snapshots; a counter new in
	 * this interval counts from zero. */
	/* Under collectd's names (base/value_naming.c): calls are operations-*, other counters
	 * derive-<metric>-<instance>. */
	l = strstr(s, "operations-write");
	CHECK(l && strstr(s, "          25.0             50  operations-write") != NULL);
	CHECK(strstr(s, "          10.0             20  operations-fsync") != NULL);
	CHECK(strstr(s, "operations-write") < strstr(s, "operations-fsync") &&
	      strstr(s, "operations-fsync") < strstr(s, "operations-read"));
	CHECK(strstr(s, "  derive-dropped-start_lost\n") != NULL);
	CHECK(strstr(s, "calls-") == NULL);
	CHECK(strstr(s, "not enabled: block") != NULL);
	free(s);

	o.top = 1;
	s = draw(after, before, &o, &matched);
	CHECK(strstr(s, "operations-fsync") == NULL);
	CHECK(strstr(s, "... 3 more (--top 0 shows all)") != NULL);
	free(s);
}

static void test_filters(const struct snapshot *before, const struct snapshot *after)
{
	struct screen_options o = { .metric_glob = "latency-fsync" };
	char *s;
	int matched;

	s = draw(after, before, &o, &matched);
	CHECK(matched == 1);
	CHECK(strstr(s, "latency-fsync") != NULL);
	CHECK(strstr(s, "bytes-read") == NULL);
	CHECK(strstr(s, "operations-") == NULL);
	free(s);

	o.metric_glob = "operations"; /* collectd's type alone selects every instance */
	s = draw(after, before, &o, &matched);
	CHECK(matched == 3);
	CHECK(strstr(s, "latency-fsync") == NULL);
	free(s);

	o = (struct screen_options){ .module_glob = "blo*" };
	s = draw(after, before, &o, &matched);
	CHECK(matched == 0);
	CHECK(strstr(s, "nothing matches the filters") != NULL);
	CHECK(strstr(s, "--module syscalls: histograms latency-fsync bytes-read") != NULL);
	free(s);
}

static void test_since_start_and_restart(const struct snapshot *before, struct snapshot *after)
{
	struct screen_options o = { .top = 10 };
	char *s;
	int matched;

	s = draw(after, NULL, &o, &matched);
	CHECK(strstr(s, "since each module started") != NULL);
	CHECK(strstr(s, "latency-fsync: 20 events, mean 2000 nsecs") != NULL);
	/* 120 fsync calls over the 12 s since the module started. */
	CHECK(strstr(s, "          10.0            120  operations-fsync") != NULL);
	free(s);

	/* From the record published before the first read: counting starts, no restart. */
	{
		struct snapshot first;

		parse(first_text, &first);
		s = draw(after, &first, &o, &matched);
		CHECK(strstr(s, "restarted") == NULL);
		CHECK(strstr(s, "latency-fsync: 20 events") != NULL);
		free(s);
		snapshot_free(&first);
	}

	/* The module restarted between the snapshots: everything since its restart. */
	after->modules[0].discontinuity_us = 1700000001000000;
	s = draw(after, before, &o, &matched);
	CHECK(strstr(s, "(restarted in this interval)") != NULL);
	CHECK(strstr(s, "latency-fsync: 20 events") != NULL);
	CHECK(strstr(s, "         120.0            120  operations-fsync") != NULL);
	free(s);
}

/* What was once drawn wrong: a write size histogram with a 0 slot (500 flushes) beside 64 KiB writes
 * was drawn in KiB from "0 -> 0.000977" through 15 empty rows; a run queue with a 0 slot and
 * slots of milliseconds as "msecs 0.000128 -> 0.000256"; and the series under names collectd
 * does not use (ios-, bytes-, io_size-). */
static const char block_text[] =
	"collectd-ebpf-snapshot\t3\n"
	"written\t1700000000000000\n"
	"module\tblock\trunning\t1699999990000000\tblock_rq_complete=tp_btf\t\n"
	"counter\tios\tvda-write\t2451\n"
	"counter\tbytes\tvda-write\t127926272\n"
	"histogram\tio_size\tvda-write\tbytes\t0\t2451\t127926272\t1\t0\t0\t0\t0\n"
	"bucket\t0\t500\n"
	"bucket\t16\t1951\n"
	"histogram\tqueue_latency\tvda-write\tnanoseconds\t0\t4\t4000\t1\t0\t0\t0\t0\n"
	"bucket\t10\t4\n"
	"module\trunqueue\trunning\t1699999990000000\tsched_switch=tp_btf\t\n"
	"histogram\tlatency\tall\tnanoseconds\t0\t13\t40000000\t1\t0\t0\t0\t0\n"
	"bucket\t0\t3\n"
	"bucket\t21\t8\n"
	"bucket\t23\t2\n"
	"end\n";

static void test_block_and_zero_slot(void)
{
	struct screen_options o = { .top = 10 };
	struct snapshot snap;
	const char *l;
	char *s;
	int matched, rows = 0;

	parse(block_text, &snap);
	s = draw(&snap, NULL, &o, &matched);
	printf("%s", s);
	/* collectd's names: total_bytes-vda-write, operations-vda-write; the size histogram by
	 * the name of its percentiles (bytes-vda-write-50), the queue time latency-vda-write-queue. */
	CHECK(strstr(s, "  total_bytes-vda-write\n") != NULL);
	CHECK(strstr(s, "  operations-vda-write\n") != NULL);
	CHECK(strstr(s, "\n  bytes-vda-write: 2451 events, mean 50.97 KiB\n") != NULL);
	CHECK(strstr(s, "\n  latency-vda-write-queue: 4 events") != NULL);
	CHECK(strstr(s, "ios-") == NULL && strstr(s, "io_size") == NULL && strstr(s, "  bytes-vda-write\n") == NULL);
	/* The first row above row 0, (32, 64] KiB, sets KiB; row 0 says "1 byte"; the 15 empty
	 * rows between are one row of 0. */
	CHECK(strstr(s, "     KiB                 : count     distribution\n") != NULL);
	l = line_with(s, "         0 -> 1 byte     : 500      |");
	CHECK(l && stars_on_line(l) == 10);
	CHECK(line_with(s, "    1 byte -> 32         : 0        |                                        |\n") != NULL);
	l = line_with(s, "        32 -> 64         : 1951     |");
	CHECK(l && stars_on_line(l) == 40);
	CHECK(strstr(s, "0.000977") == NULL);
	/* The run queue: row 0, then (1.05, 2.1] ms and (4.19, 8.39] ms, with one empty row. */
	l = strstr(s, "== runqueue");
	CHECK(l && strstr(l, "     msecs               : count     distribution\n") != NULL);
	CHECK(l && strstr(l, "         0 -> 1 nsec     : 3        |") != NULL);
	CHECK(l && strstr(l, "  1 nsec -> 1.05       : 0        |") != NULL);
	CHECK(l && strstr(l, "      1.05 -> 2.1        : 8        |") != NULL);
	CHECK(l && strstr(l, "       2.1 -> 4.19       : 0        |") != NULL);
	CHECK(l && strstr(l, "      4.19 -> 8.39       : 2        |") != NULL);
	CHECK(strstr(s, "0.000128") == NULL);
	for (l = l ? strstr(l, "distribution\n") : NULL; l && (l = strstr(l, " -> ")); l++)
		rows++;
	CHECK(rows == 5);
	free(s);

	/* --metric matches collectd's names. */
	o.metric_glob = "total_bytes-*";
	s = draw(&snap, NULL, &o, &matched);
	CHECK(matched == 1);
	free(s);
	o.metric_glob = "bytes-*";
	s = draw(&snap, NULL, &o, &matched);
	CHECK(matched == 1 && strstr(s, "bytes-vda-write: 2451 events") != NULL);
	free(s);
	snapshot_free(&snap);
}


/* By "cgroup" rows as the plugin writes them: the instance "<cgroup>/<row>", the cgroup as
 * collectd's plugin_instance carries it; the host-wide rows beside them. The rows of the
 * two services are interleaved, "other" comes first: the view sorts them. */
static const char cgroup_text[] =
	"collectd-ebpf-snapshot\t3\n"
	"written\t1700000000000000\n"
	"module\tsyscalls\trunning\t1699999990000000\tsys_exit=tp_btf\t\n"
	"counter\tcalls\tfsync\t500\n"
	"counter\tcalls\tother/fsync\t7\n"
	"counter\tcalls\tsystem.slice_cron.service/fsync\t120\n"
	"counter\tcalls\tsystem.slice_ssh.service/fsync\t75\n"
	"counter\tcalls\tsystem.slice_cron.service/write\t9\n"
	"counter\terrors\tsystem.slice_ssh.service/openat\t3\n"
	"histogram\tlatency\tfsync\tnanoseconds\t0\t500\t1000\t0\t-\t-\t-\t-\n"
	"bucket\t11\t500\n"
	"histogram\tlatency\tsystem.slice_ssh.service/fsync\tnanoseconds\t0\t75\t1000\t0\t-\t-\t-\t-\n"
	"bucket\t11\t75\n"
	"histogram\tlatency\tsystem.slice_cron.service/fsync\tnanoseconds\t0\t120\t1000\t0\t-\t-\t-\t-\n"
	"bucket\t11\t120\n"
	"module\tprocess\trunning\t1699999990000000\tfork=tp_btf\t\n"
	"counter\tforks\t\t40\n"
	"end\n";

/* runqueue with Behind: a cgroup's wait_behind counters (ns) by holder, since start and then
 * over an interval (the record before subtracted). */
static const char behind_text[] =
	"collectd-ebpf-snapshot\t3\n"
	"written\t1700000000000000\n"
	"module\trunqueue\trunning\t1699999990000000\tsched=tp_btf\t\n"
	"counter\twait_behind\tsystem.slice_pg.service/self\t30000000\n"
	"counter\twait_behind\tsystem.slice_pg.service/system.slice_nginx.service\t930000000\n"
	"counter\twait_behind\tsystem.slice_pg.service/kernel\t40000000\n"
	"counter\twait_behind\tsystem.slice_pg.service/idle\t0\n"
	"counter\tpreempted_by\tsystem.slice_pg.service/system.slice_nginx.service\t12\n"
	"counter\twait_behind\tsystem.slice_nginx.service/system.slice_pg.service\t5000000\n"
	"end\n";
static const char behind_before_text[] =
	"collectd-ebpf-snapshot\t3\n"
	"written\t1699999999000000\n"
	"module\trunqueue\trunning\t1699999990000000\tsched=tp_btf\t\n"
	"counter\twait_behind\tsystem.slice_pg.service/self\t10000000\n"
	"counter\twait_behind\tsystem.slice_pg.service/system.slice_nginx.service\t930000000\n"
	"counter\twait_behind\tsystem.slice_pg.service/kernel\t20000000\n"
	"end\n";

static void test_behind_line(void)
{
	struct snapshot snap, before;
	struct screen_options o = { .cgroup_glob = "system.slice_pg.service" };
	char *s;
	int matched;

	parse(behind_text, &snap);
	s = draw(&snap, NULL, &o, &matched);
	CHECK(strstr(s, "  waited behind: system.slice_nginx.service 93%, kernel 4%, self 3% (of 1.000 s waited)\n") != NULL); /* idle, at 0, is no share */
	free(s);
	/* Over the interval: nginx held nothing new, kernel 20 ms, self 20 ms. */
	parse(behind_before_text, &before);
	s = draw(&snap, &before, &o, &matched);
	CHECK(strstr(s, "  waited behind: kernel 50%, self 50% (of 0.040 s waited)\n") != NULL);
	free(s);
	/* Another cgroup's line is its own. */
	o.cgroup_glob = "system.slice_nginx.service";
	s = draw(&snap, NULL, &o, &matched);
	CHECK(strstr(s, "  waited behind: system.slice_pg.service 100% (of 0.005 s waited)\n") != NULL);
	free(s);
	snapshot_free(&before);
	snapshot_free(&snap);
}

static void test_cgroup_globs(void)
{
	char g[TERMINAL_CGROUP_GLOB_MAX], err[ERR_MAX], long_arg[400];
	const char *row;

	CHECK(terminal_cgroup_glob("/system.slice/*.service", g, err, sizeof(err)) == 0);
	CHECK(!strcmp(g, "system.slice_*.service"));
	CHECK(terminal_cgroup_glob("system.slice_cron.service", g, err, sizeof(err)) == 0);
	CHECK(!strcmp(g, "system.slice_cron.service"));
	CHECK(terminal_cgroup_glob("/", g, err, sizeof(err)) == 0 && !strcmp(g, "root"));
	CHECK(terminal_cgroup_glob("[]x]*", g, err, sizeof(err)) == 0);
	CHECK(terminal_cgroup_glob("", g, err, sizeof(err)) == -1 && strstr(err, "--cgroup needs a glob") != NULL);
	CHECK(terminal_cgroup_glob("system.slice_[ab", g, err, sizeof(err)) == -1);
	CHECK(strstr(err, "the '[' at character 14 has no ']'") != NULL);
	CHECK(terminal_cgroup_glob("a\tb", g, err, sizeof(err)) == -1);
	CHECK(strstr(err, "a control character at character 2") != NULL);
	CHECK(terminal_cgroup_glob("a\\[b", g, err, sizeof(err)) == 0); /* an escaped '[' is a character */
	memset(long_arg, 'a', sizeof(long_arg) - 1);
	long_arg[sizeof(long_arg) - 1] = '\0';
	CHECK(terminal_cgroup_glob(long_arg, g, err, sizeof(err)) == -1 && strstr(err, "is 399 characters") != NULL);
	CHECK(terminal_cgroup_split("system.slice_cron.service/fsync", &row) == 25 && !strcmp(row, "fsync"));
	CHECK(terminal_cgroup_split("fsync", &row) == 0 && !strcmp(row, "fsync"));
}

/* The cgroups of cgroup_text with their rows' indexes, by name, other last. */
static void test_cgroup_list(void)
{
	struct snapshot snap;
	struct terminal_cgroup *cg;
	int n;

	parse(cgroup_text, &snap);
	CHECK(terminal_cgroup_list(&snap.modules[0], "*", &cg, &n) == 0 && n == 3);
	CHECK(!strcmp(cg[0].name, "system.slice_cron.service") && !strcmp(cg[1].name, "system.slice_ssh.service"));
	CHECK(!strcmp(cg[2].name, "other"));
	CHECK(cg[0].nhistograms == 1 && cg[0].histograms[0] == 2);
	CHECK(cg[0].ncounters == 2 && cg[0].counters[0] == 2 && cg[0].counters[1] == 4);
	CHECK(cg[1].nhistograms == 1 && cg[1].histograms[0] == 1);
	CHECK(cg[1].ncounters == 2 && cg[1].counters[0] == 3 && cg[1].counters[1] == 5);
	CHECK(cg[2].nhistograms == 0 && cg[2].ncounters == 1 && cg[2].counters[0] == 1);
	terminal_cgroup_free(cg, n);
	CHECK(terminal_cgroup_list(&snap.modules[0], "*_ssh.*", &cg, &n) == 0 && n == 1);
	CHECK(!strcmp(cg[0].name, "system.slice_ssh.service") && cg[0].ncounters == 2);
	terminal_cgroup_free(cg, n);
	CHECK(terminal_cgroup_list(&snap.modules[1], "*", &cg, &n) == 0 && n == 0 && cg == NULL);
	snapshot_free(&snap);
}

static void test_cgroup_screen(void)
{
	struct snapshot snap;
	struct screen_options o = { .cgroup_glob = "system.slice_*" };
	const char *cron, *ssh, *p;
	char *s;
	int matched;

	parse(cgroup_text, &snap);
	s = draw(&snap, NULL, &o, &matched);
	CHECK(matched == 6); /* each service: a histogram and two counters */
	/* One section per cgroup, by name, each with collectd's plugin_instance. */
	cron = strstr(s, "\n-- cgroup system.slice_cron.service: collectd's ebpf-syscalls.system.slice_cron.service/...\n");
	ssh = strstr(s, "\n-- cgroup system.slice_ssh.service: collectd's ebpf-syscalls.system.slice_ssh.service/...\n");
	CHECK(cron != NULL && ssh != NULL && cron < ssh);
	/* A section holds its cgroup's rows under collectd's type instance, without the cgroup. */
	p = strstr(s, "  latency-fsync: 120 events");
	CHECK(p != NULL && p > cron && p < ssh);
	p = strstr(s, "120  operations-fsync\n");
	CHECK(p != NULL && p > cron && p < ssh);
	p = strstr(s, "9  operations-write\n");
	CHECK(p != NULL && p > cron && p < ssh);
	p = strstr(s, "  latency-fsync: 75 events");
	CHECK(p != NULL && p > ssh);
	CHECK(strstr(s, "75  operations-fsync\n") > ssh && strstr(s, "3  errors-openat\n") > ssh);
	/* Neither the host-wide rows, nor other, nor a module without cgroups. */
	CHECK(strstr(s, "500") == NULL && strstr(s, "other") == NULL && strstr(s, "process") == NULL);
	CHECK(strstr(s, "/fsync") == NULL);
	free(s);

	/* A path glob is the same glob; --metric names the row as collectd's type instance. */
	o = (struct screen_options){ .cgroup_glob = "system.slice_ssh.service", .metric_glob = "operations-*" };
	s = draw(&snap, NULL, &o, &matched);
	CHECK(matched == 1 && strstr(s, "75  operations-fsync\n") != NULL);
	CHECK(strstr(s, "cron") == NULL && strstr(s, "latency") == NULL && strstr(s, "openat") == NULL);
	free(s);

	/* '*': every cgroup, other last; --top counts per cgroup. */
	o = (struct screen_options){ .cgroup_glob = "*", .top = 1 };
	s = draw(&snap, NULL, &o, &matched);
	cron = strstr(s, "-- cgroup system.slice_cron.service");
	ssh = strstr(s, "-- cgroup system.slice_ssh.service");
	p = strstr(s, "-- cgroup other: collectd's ebpf-syscalls.other/...");
	CHECK(cron && ssh && p && cron < ssh && ssh < p);
	CHECK(strstr(s, "7  operations-fsync\n") > p);
	CHECK(strstr(s, "operations-write") == NULL && strstr(s, "... 1 more (--top 0 shows all)") != NULL);
	free(s);

	/* Nothing matches: the screen names the cgroups there are. */
	o = (struct screen_options){ .cgroup_glob = "system.slice_nosuch*" };
	s = draw(&snap, NULL, &o, &matched);
	CHECK(matched == 0 && strstr(s, "nothing matches the filters") != NULL);
	CHECK(strstr(s, "cgroups (--cgroup): system.slice_cron.service system.slice_ssh.service other\n") != NULL);
	CHECK(strstr(s, "== syscalls") == NULL);
	free(s);
	snapshot_free(&snap);
}

/* Each module's line says what it costs the host (its gauge cpu_cost) and, while the cost
 * governor samples it (gauge sample_rate N > 1), "sampled 1 in N"; at 1 in 1 nothing of
 * sampling. A module's gauge with an instance is not its own (cpu_cost of a map, say). */
static void test_cost_header(void)
{
	static const char text[] =
		"collectd-ebpf-snapshot\t3\n"
		"written\t1700000000000000\n"
		"module\tsyscalls\trunning\t1699999990000000\tsys_exit=tp_btf\t\n"
		"counter\tcalls\tfsync\t100\n"
		"gauge\tcpu_cost\tstart_tid\t99\n"
		"gauge\tcpu_cost\t\t0.4321\n"
		"gauge\tsample_rate\t\t4\n"
		"module\trunqueue\trunning\t1699999990000000\tsched_switch=tp_btf\t\n"
		"counter\twaits\tall\t7\n"
		"gauge\tcpu_cost\t\t12.5\n"
		"gauge\tsample_rate\t\t1\n"
		"module\ttcp\trunning\t1699999990000000\tsock=tp_btf\t\n"
		"counter\tretransmits\tall\t3\n"
		"end\n";
	struct screen_options o = { .top = 10 };
	struct snapshot s;
	char *screen;
	int matched;

	parse(text, &s);
	screen = draw(&s, NULL, &o, &matched);
	CHECK(strstr(screen, "== syscalls: running, counting since 22:13:10, costs 0.432% of one CPU, sampled 1 in 4 "
			     "(histograms scaled by 4)\n") != NULL);
	CHECK(strstr(screen, "== runqueue: running, counting since 22:13:10, costs 12.5% of one CPU\n") != NULL);
	/* a module without the gauges (a snapshot of an older plugin) says neither */
	CHECK(strstr(screen, "== tcp: running, counting since 22:13:10\n") != NULL);
	free(screen);
	snapshot_free(&s);
}

int main(void)
{
	struct snapshot before, after;

	setenv("TZ", "UTC", 1);
	parse(before_text, &before);
	parse(after_text, &after);
	test_rows_and_delta(&before, &after);
	test_open_slot();
	test_units_and_stars();
	test_interval_screen(&before, &after);
	test_filters(&before, &after);
	test_since_start_and_restart(&before, &after);
	test_block_and_zero_slot();
	test_cgroup_globs();
	test_cgroup_list();
	test_cgroup_screen();
	test_behind_line();
	test_cost_header();
	snapshot_free(&before);
	snapshot_free(&after);
	return testing_done();
}
