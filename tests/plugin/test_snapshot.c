/* The snapshot file the plugin publishes for SNMP: format round trip (with escapes),
 * histogram records from a module read, parse errors, atomic replacement with mode 0640,
 * the store that assembles all modules, and the SnapshotFile / SnapshotGroup options. */
#include "snapshot/snapshot_file.h"
#include "plugin/snapshot_options.h"
#include "plugin/snapshot_record.h"
#include "plugin/snapshot_store.h"
#include "tests/support/testing.h"
#include "tests/support/option_values.h"
#include "base/err_max.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse_text(const char *text, struct snapshot *s, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = snapshot_parse(f, s, err, len);

	fclose(f);
	return r;
}

/* A new histogram of sm with its unit, precision, lifetime count and sum; the caller sets
 * the rest (the round trip writes two). */
static struct snapshot_histogram *add_histogram(struct snapshot_module *sm, const char *metric, const char *instance,
						 enum snapshot_unit unit, unsigned int precision, uint64_t count, uint64_t sum)
{
	struct snapshot_histogram *h = snapshot_module_add_histogram(sm, metric, instance);

	CHECK(h != NULL);
	h->unit = unit;
	h->precision = precision;
	h->count = count;
	h->sum = sum;
	return h;
}

static void test_round_trip(void)
{
	struct snapshot_module a = { 0 }, b = { 0 };
	const struct snapshot_module *mods[] = { &a, &b };
	struct snapshot_histogram *h;
	struct snapshot s;
	char *buf = NULL, err[ERR_MAX];
	size_t len = 0;
	FILE *f;

	snprintf(a.label, sizeof(a.label), "syscalls");
	a.state = SNAPSHOT_STATE_RUNNING;
	snprintf(a.methods, sizeof(a.methods), "sys_exit=tp_btf");
	a.discontinuity_us = 1700000000123456LL;
	CHECK(snapshot_module_add_counter(&a, "calls", "fsync", 18446744073709551615ULL) == 0);
	CHECK(snapshot_module_add_counter(&a, "dropped", "odd\tname\\with\nescapes", 0) == 0);
	h = add_histogram(&a, "latency", "fsync", SNAPSHOT_UNIT_NANOSECONDS, 0, 10, 12345);
	h->interval_count = 0; /* an idle interval: no mean, no percentiles */
	CHECK(snapshot_module_add_bucket(&a, 10, 7) == 0);          /* (512, 1024] at precision 0 */
	CHECK(snapshot_module_add_bucket(&a, HIST_NSLOTS(0) - 1, 3) == 0); /* above 2^38 */
	h = add_histogram(&a, "io_size", "sda-read", SNAPSHOT_UNIT_BYTES, 5, 1, 16384);
	CHECK(snapshot_module_add_bucket(&a, hist_slot_p(16384, 5), 1) == 0);
	snprintf(b.label, sizeof(b.label), "syscalls-broken");
	b.state = SNAPSHOT_STATE_UNSUPPORTED;
	snprintf(b.error, sizeof(b.error), "no attach method works: fentry: refused");
	/* base/text_rule.h's rule: ESC, a C1 CSI and bytes that are not UTF-8 reach the file as
	 * \\xHH, which a reader reads as the text \xHH; valid UTF-8 as it is */
	CHECK(snapshot_module_add_counter(&b, "calls", "caf\xc3\xa9\x1b]0;t\x07\xc2\x9b\xff", 1) == 0);

	f = open_memstream(&buf, &len);
	CHECK(snapshot_write_stream(f, mods, 2, 42) == 0);
	fclose(f);
	CHECK(strncmp(buf, "collectd-ebpf-snapshot\t3\nwritten\t42\n", 36) == 0);
	CHECK(strstr(buf, "counter\tdropped\todd\\tname\\\\with\\nescapes\t0\n") != NULL);
	CHECK(strstr(buf, "counter\tcalls\tcaf\xc3\xa9\\\\x1b]0;t\\\\x07\\\\xc2\\\\x9b\\\\xff\t1\n") != NULL);
	CHECK(strstr(buf, "histogram\tlatency\tfsync\tnanoseconds\t0\t10\t12345\t0\t-\t-\t-\t-\n"
			  "bucket\t10\t7\nbucket\t39\t3\n") != NULL);
	CHECK(strstr(buf, "histogram\tio_size\tsda-read\tbytes\t5\t1\t16384\t0\t-\t-\t-\t-\nbucket\t319\t1\n") != NULL);

	err[0] = '\0';
	CHECK(parse_text(buf, &s, err, sizeof(err)) == 0);
	if (err[0])
		fprintf(stderr, "parse: %s\n", err);
	CHECK(s.written_us == 42);
	CHECK(s.nmodules == 2);
	if (s.nmodules == 2) {
		CHECK_STR(s.modules[0].label, "syscalls");
		CHECK_STR(s.modules[0].methods, "sys_exit=tp_btf");
		CHECK(s.modules[0].discontinuity_us == 1700000000123456LL);
		CHECK(s.modules[0].ncounters == 2);
		CHECK_EQ_U64(s.modules[0].counters[0].value, 18446744073709551615ULL);
		CHECK_STR(s.modules[0].counters[1].instance, "odd\tname\\with\nescapes");
		CHECK(s.modules[0].nhistograms == 2);
		CHECK_EQ_U64(s.modules[0].histograms[0].sum, 12345);
		CHECK(s.modules[0].histograms[0].unit == SNAPSHOT_UNIT_NANOSECONDS);
		CHECK(isnan(s.modules[0].histograms[0].p99));
		CHECK(s.modules[0].histograms[0].nbuckets == 2);
		CHECK(s.modules[0].histograms[1].nbuckets == 1);
		if (s.modules[0].nhistograms == 2 && s.modules[0].histograms[0].nbuckets == 2 &&
		    s.modules[0].histograms[1].nbuckets == 1) {
			const struct snapshot_bucket *b0 = snapshot_buckets(&s.modules[0], &s.modules[0].histograms[0]);
			const struct snapshot_histogram *sz = &s.modules[0].histograms[1];
			const struct snapshot_bucket *b1 = snapshot_buckets(&s.modules[0], sz);

			CHECK(b0[0].slot == 10 && b0[1].slot == 39);
			CHECK_EQ_U64(b0[0].count, 7);
			CHECK(sz->unit == SNAPSHOT_UNIT_BYTES && sz->precision == 5);
			/* 16 KiB at precision 5: the slot (16128, 16384], exact at its edge. */
			CHECK_EQ_U64(hist_slot_upper_bound(sz->precision, b1[0].slot), 16384);
			CHECK_EQ_U64(hist_slot_lower_bound(sz->precision, b1[0].slot), 16384 - 256);
		}
		CHECK(s.modules[1].state == SNAPSHOT_STATE_UNSUPPORTED);
		CHECK_STR(s.modules[1].error, "no attach method works: fentry: refused");
		CHECK(s.modules[1].ncounters == 1);
		if (s.modules[1].ncounters == 1)
			CHECK_STR(s.modules[1].counters[0].instance, "caf\xc3\xa9\\x1b]0;t\\x07\\xc2\\x9b\\xff");
	}
	snapshot_free(&s);
	free(buf);
	snapshot_module_release(&a);
	snapshot_module_release(&b);
}

/* len bytes of text, which may hold NUL bytes */
static void expect_parse_error_n(const char *text, size_t len, const char *expected)
{
	struct snapshot s;
	char err[ERR_MAX] = "";
	FILE *f = fmemopen((void *)text, len, "r");

	CHECK(snapshot_parse(f, &s, err, sizeof(err)) == -1);
	fclose(f);
	if (!strstr(err, expected))
		fprintf(stderr, "parse error \"%s\" lacks \"%s\"\n", err, expected);
	CHECK(strstr(err, expected) != NULL);
	CHECK(s.nmodules == 0 && s.modules == NULL);
}

static void expect_parse_error(const char *text, const char *expected)
{
	expect_parse_error_n(text, strlen(text), expected);
}

static void test_parse_errors(void)
{
	expect_parse_error("", "empty file");
	expect_parse_error("hello\n", "line 1: not a collectd-ebpf snapshot");
	expect_parse_error("collectd-ebpf-snapshot\t1\nend\n", "line 1: unsupported format version");
	/* Version 2 had no labels: refused with both versions named. */
	expect_parse_error("collectd-ebpf-snapshot\t2\nend\n",
			   "line 1: unsupported format version 2: this reader reads snapshot format version 3 only");
	expect_parse_error("collectd-ebpf-snapshot\t4\nend\n", "line 1: unsupported format version 4");
	expect_parse_error("collectd-ebpf-snapshot\t3\nwritten\t1\nmodule\tm\trunning\t0\t\t\n",
			   "no end line (file truncated)");
	expect_parse_error("collectd-ebpf-snapshot\t3\ncounter\tcalls\tx\t1\nend\n", "line 2: counter before any module");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\ncounter\tcalls\tx\t-1\nend\n",
			   "line 3: bad counter value");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\nbucket\t0\t1\nend\n",
			   "line 3: bucket before any histogram");
	expect_parse_error("collectd-ebpf-snapshot\t3\nsurprise\nend\n", "line 2: unknown record type");
	expect_parse_error("collectd-ebpf-snapshot\t3\nend\nmodule\tm\trunning\t0\t\t\n", "text after the end line");

	/* Numbers are plain decimal, as the writer writes them: no sign on unsigned values, no
	 * blanks, no hex, nothing after the digits. */
	static const char *const bad_u64[] = { " -5", "-5", "+1", " 1", "1 ", "0x10", "1abc", "",
					       "18446744073709551616" };
	for (size_t i = 0; i < sizeof(bad_u64) / sizeof(bad_u64[0]); i++) {
		char text[256];

		snprintf(text, sizeof(text), "collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\ncounter\tcalls\tx\t%s\nend\n",
			 bad_u64[i]);
		expect_parse_error(text, "line 3: bad counter value");
	}
	static const char *const bad_i64[] = { "+5", " 5", "5x", "-", "0x5", "9223372036854775808" };
	for (size_t i = 0; i < sizeof(bad_i64) / sizeof(bad_i64[0]); i++) {
		char text[256];

		snprintf(text, sizeof(text), "collectd-ebpf-snapshot\t3\nwritten\t%s\nend\n", bad_i64[i]);
		expect_parse_error(text, "line 2: bad written line");
	}
	static const char *const bad_double[] = { "0x1p9", " 512", "512 ", "nan", "infinity", "+512", "1e", "" };
	for (size_t i = 0; i < sizeof(bad_double) / sizeof(bad_double[0]); i++) {
		char text[256];

		snprintf(text, sizeof(text),
			 "collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\n"
			 "histogram\tlatency\tx\tnanoseconds\t0\t1\t1\t1\t1\t%s\t1\t1\nend\n",
			 bad_double[i]);
		expect_parse_error(text, "line 3: bad histogram mean or percentile");
	}
	/* Slots: inside the histogram's layout, increasing (one MIB row each); known names. */
	static const char hist0[] = "collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\n"
				    "histogram\tlatency\tx\tnanoseconds\t0\t1\t1\t1\t1\t1\t1\t1\n";
	char text[512];

	snprintf(text, sizeof(text), "%sbucket\t40\t1\nend\n", hist0); /* precision 0 has 40 slots */
	expect_parse_error(text, "line 4: bad bucket slot or count");
	snprintf(text, sizeof(text), "%sbucket\t-1\t1\nend\n", hist0);
	expect_parse_error(text, "line 4: bad bucket slot or count");
	snprintf(text, sizeof(text), "%sbucket\t5\t1\nbucket\t5\t2\nend\n", hist0);
	expect_parse_error(text, "line 5: bucket slots out of order");
	snprintf(text, sizeof(text), "%sbucket\t5\t1\t1\nend\n", hist0);
	expect_parse_error(text, "line 4: a bucket line has 3 fields");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\n"
			   "histogram\tlatency\tx\tnanoseconds\t6\t1\t1\t1\t1\t1\t1\t1\nend\n",
			   "line 3: bad histogram precision");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\n"
			   "histogram\tlatency\tx\tparsecs\t0\t1\t1\t1\t1\t1\t1\t1\nend\n",
			   "line 3: unknown histogram unit");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\tsleeping\t0\t\t\nend\n",
			   "line 2: unknown module state");
	expect_parse_error("collectd-ebpf-snapshot\t3abc\nend\n", "line 1: unsupported format version");
	expect_parse_error("collectd-ebpf-snapshot\t03\nend\n", "line 1: unsupported format version");
	/* A NUL byte ends a C string, not a line: "end\0anything" is no end line. */
	static const char with_nul[] = "collectd-ebpf-snapshot\t3\nend\0garbage\n";
	expect_parse_error_n(with_nul, sizeof(with_nul) - 1, "line 2: NUL byte");
}

/* A module read as the plugin does it: the sink turns hist_interval into a record. */
/* Version 3's labels: staged before a record, written as name=value fields after it, read
 * back apart; names checked on both sides, values escaped as any string field. */
static void test_labels(void)
{
	struct snapshot_module a = { 0 };
	const struct snapshot_module *mods[] = { &a };
	const struct snapshot_histogram *h;
	struct snapshot s;
	char *buf = NULL, err[ERR_MAX];
	size_t len = 0;
	FILE *f;

	snprintf(a.label, sizeof(a.label), "block");
	a.state = SNAPSHOT_STATE_RUNNING;
	CHECK(snapshot_module_label(&a, "disk", "dm-0") == 0);
	CHECK(snapshot_module_label(&a, "op", "write") == 0);
	CHECK(snapshot_module_label(&a, "op", "read") == -EINVAL);    /* a name once */
	CHECK(snapshot_module_label(&a, "bad-name", "x") == -EINVAL); /* not a Prometheus name */
	CHECK(snapshot_module_label(&a, "9", "x") == -EINVAL);
	CHECK(snapshot_module_label(&a, "@help", "Time of a block IO") == 0);
	CHECK(snapshot_module_add_histogram(&a, "latency", "dm-0-write") != NULL);
	CHECK(snapshot_module_add_bucket(&a, 10, 7) == 0);
	CHECK(snapshot_module_label(&a, "cgroup", "a\"b\\c\nd\te\xff") == 0);
	CHECK(snapshot_module_add_counter(&a, "calls", "x", 5) == 0);
	CHECK(snapshot_module_add_counter(&a, "calls", "y", 6) == 0); /* no labels: the last were taken */
	for (int i = 0; i < SNAPSHOT_MAX_LABELS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "l%d", i);
		CHECK(snapshot_module_label(&a, name, "v") == 0);
	}
	CHECK(snapshot_module_label(&a, "one_more", "v") == -EINVAL);
	CHECK(snapshot_module_add_gauge(&a, "share", "z", 1.5) == 0);

	f = open_memstream(&buf, &len);
	CHECK(snapshot_write_stream(f, mods, 1, 42) == 0);
	fclose(f);
	CHECK(strstr(buf, "histogram\tlatency\tdm-0-write\tnanoseconds\t0\t0\t0\t0\t-\t-\t-\t-"
			  "\tdisk=dm-0\top=write\t@help=Time of a block IO\nbucket\t10\t7\n") != NULL);
	CHECK(strstr(buf, "counter\tcalls\tx\t5\tcgroup=a\"b\\\\c\\nd\\te\\\\xff\n") != NULL);
	CHECK(strstr(buf, "counter\tcalls\ty\t6\n") != NULL);

	f = fmemopen(buf, len, "r");
	CHECK(snapshot_parse(f, &s, err, sizeof(err)) == 0);
	fclose(f);
	CHECK(s.nmodules == 1 && s.modules[0].nhistograms == 1 && s.modules[0].ncounters == 2);
	h = &s.modules[0].histograms[0];
	CHECK(h->labels.n == 3 && !strcmp(snapshot_label(&s.modules[0], &h->labels, "op"), "write"));
	CHECK(!strcmp(snapshot_label(&s.modules[0], &h->labels, "@help"), "Time of a block IO"));
	CHECK(!strcmp(snapshot_label(&s.modules[0], &s.modules[0].counters[0].labels, "cgroup"),
		      "a\"b\\c\nd\te\\xff"));
	CHECK(s.modules[0].counters[1].labels.n == 0);
	CHECK(s.modules[0].gauges[0].labels.n == SNAPSHOT_MAX_LABELS);
	snapshot_free(&s);
	free(buf);
	snapshot_module_release(&a);

	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\ncounter\tcalls\tx\t1\tnoequals\nend\n",
			   "line 3: a label is not name=value");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\ncounter\tcalls\tx\t1\ta-b=1\nend\n",
			   "line 3: a label name is not");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\ngauge\tg\tx\t1\ta=1\ta=2\nend\n",
			   "line 3: a label given twice");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\n"
			   "event\t1\t1\t1\toom_kill\tfailure\tm\ts\tmsg\ta=1\ta=2\ta=3\ta=4\ta=5\ta=6\ta=7\ta=8\ta=9\nend\n",
			   "line 3: an event line has more fields than the bound");
}

static void test_sink(void)
{
	struct snapshot_module sm = { 0 };
	struct metric_sink sink;
	struct hist_tracker t;
	static struct hist_interval h;
	static uint64_t slots[HIST_SLOTS];

	hist_tracker_init(&t, 1, 0); /* precision 0: log2 slots */
	slots[10] = 90; /* (512, 1024] ns */
	slots[20] = 10; /* (524288, 1048576] ns */
	hist_advance(&t, slots, 90 * 1000 + 10 * 1000000, &h);
	snapshot_sink_init(&sink, &sm);
	sink.counter(sink.ctx, METRIC("calls"), "fsync", 100);
	sink.histogram(sink.ctx, METRIC("latency"), "fsync", HIST_UNIT_NANOSECONDS, &h);
	CHECK(sm.ncounters == 1 && sm.nhistograms == 1);
	if (sm.nhistograms == 1) {
		const struct snapshot_histogram *r = &sm.histograms[0];

		CHECK(r->unit == SNAPSHOT_UNIT_NANOSECONDS && r->precision == 0);
		CHECK_EQ_U64(r->count, 100);
		CHECK_EQ_U64(r->sum, 10090000);
		CHECK_EQ_U64(r->interval_count, 100);
		CHECK_NEAR(r->mean, 100900, 1e-6);
		CHECK(r->p50 > 512 && r->p50 <= 1024);
		CHECK(r->p99 > 524288 && r->p99 <= 1048576);
		CHECK(r->nbuckets == 2);
		if (r->nbuckets == 2) {
			const struct snapshot_bucket *b = snapshot_buckets(&sm, r);

			CHECK(b[0].slot == 10 && b[0].count == 90 && hist_slot_lower_bound(0, b[0].slot) == 512 &&
			      hist_slot_upper_bound(0, b[0].slot) == 1024);
			CHECK(b[1].slot == 20 && b[1].count == 10 && hist_slot_lower_bound(0, b[1].slot) == 524288);
		}
	}
	/* Next interval without events: cumulative totals stay, the summaries are empty. */
	hist_advance(&t, slots, 90 * 1000 + 10 * 1000000, &h);
	snapshot_sink_init(&sink, &sm);
	sink.histogram(sink.ctx, METRIC("latency"), "fsync", HIST_UNIT_NANOSECONDS, &h);
	CHECK(sm.ncounters == 0 && sm.nhistograms == 1);
	CHECK_EQ_U64(sm.histograms[0].count, 100);
	CHECK(sm.histograms[0].interval_count == 0 && isnan(sm.histograms[0].p50));
	CHECK(sm.histograms[0].nbuckets == 2);
	/* Maps recreated (counts went backwards): a discontinuity is declared. */
	sm.discontinuity_us = 1;
	slots[10] = 1;
	slots[20] = 0;
	hist_advance(&t, slots, 600, &h);
	snapshot_sink_init(&sink, &sm);
	sink.histogram(sink.ctx, METRIC("latency"), "fsync", HIST_UNIT_NANOSECONDS, &h);
	CHECK(sm.discontinuity_us > 1);
	CHECK_EQ_U64(sm.histograms[0].count, 1);
	snapshot_module_release(&sm);
}

/* A histogram with buckets of its own (ebpf_exporter's, metric_id.bounds): its notes, and
 * each bound's count the slots' up to its slot; written as bound lines and read back. */
static void test_own_bounds(void)
{
	static const struct metric_bound bounds[] = { { 9, "1e-06" }, { 11, "2e-06" }, { 20, "0.001024" } };
	const struct metric_id id = { .name = "latency", .family = "ebpf_exporter_x_seconds", .help = "X latency",
				      .bounds = bounds, .nbounds = 3 };
	struct snapshot_module sm = { 0 };
	const struct snapshot_module *mods[] = { &sm };
	struct metric_sink sink;
	struct hist_tracker t;
	static struct hist_interval h;
	static uint64_t slots[HIST_SLOTS];
	struct snapshot s;
	char *buf = NULL, err[ERR_MAX];
	size_t len = 0;
	FILE *f;

	hist_tracker_init(&t, 1, 0);
	slots[9] = 4;
	slots[11] = 5;
	slots[15] = 0;
	slots[20] = 1;
	hist_advance(&t, slots, 1000, &h);
	snapshot_sink_init(&sink, &sm);
	sink.histogram(sink.ctx, &id, "x", HIST_UNIT_NANOSECONDS, &h);
	snprintf(sm.label, sizeof(sm.label), "p");
	sm.state = SNAPSHOT_STATE_RUNNING;
	f = open_memstream(&buf, &len);
	CHECK(snapshot_write_stream(f, mods, 1, 42) == 0);
	fclose(f);
	CHECK(strstr(buf, "\t@family=ebpf_exporter_x_seconds\t@help=X latency\tkind=x\n") != NULL);
	CHECK(strstr(buf, "bucket\t20\t1\nbound\t1e-06\t4\nbound\t2e-06\t9\nbound\t0.001024\t10\nend\n") != NULL);
	f = fmemopen(buf, len, "r");
	CHECK(snapshot_parse(f, &s, err, sizeof(err)) == 0);
	fclose(f);
	CHECK(s.nmodules == 1 && s.modules[0].nhistograms == 1 && s.modules[0].histograms[0].nbounds == 3);
	if (s.nmodules == 1 && s.modules[0].histograms[0].nbounds == 3) {
		const struct snapshot_bound *b = snapshot_bounds(&s.modules[0], &s.modules[0].histograms[0]);

		CHECK(!strcmp(b[1].le, "2e-06") && b[1].count == 9 && !strcmp(b[2].le, "0.001024") && b[2].count == 10);
	}
	snapshot_free(&s);
	free(buf);
	CHECK(snapshot_module_add_bound(&sm, "0.001", 10) == -EINVAL);  /* not above 0.001024 */
	CHECK(snapshot_module_add_bound(&sm, "1e+06\n", 10) == -EINVAL); /* not a number */
	CHECK(snapshot_module_add_bound(&sm, "", 10) == -EINVAL);
	snapshot_module_release(&sm);
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\nbound\t1\t2\nend\n",
			   "line 3: bound before any histogram line");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\n"
			   "histogram\tl\tx\tnanoseconds\t0\t1\t1\t0\t-\t-\t-\t-\nbound\t2\t1\nbound\t1\t1\nend\n",
			   "line 5: bad bound: not a number, or not above the one before");
	expect_parse_error("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\n"
			   "histogram\tl\tx\tnanoseconds\t0\t1\t1\t0\t-\t-\t-\t-\nbound\tx\\\\\t1\nend\n",
			   "line 4: bad bound");
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
	if (d)
		closedir(d);
	return n;
}

static void test_file_and_store(void)
{
	char dir[] = "/tmp/ebpf-snapshot-test.XXXXXX", path[256], err[ERR_MAX];
	struct snapshot_module a = { 0 }, b = { 0 };
	const struct snapshot_module *mods[] = { &a };
	struct snapshot_config cfg;
	struct snapshot_store *st;
	struct snapshot s;
	struct stat sb;
	struct module *m;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	snprintf(a.label, sizeof(a.label), "syscalls");
	a.state = SNAPSHOT_STATE_RUNNING;
	CHECK(snapshot_write_file(path, getgid(), mods, 1, 7, err, sizeof(err)) == 0);
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0640 && sb.st_gid == getgid());
	CHECK(count_entries(dir) == 1); /* no temporary file left behind */
	/* Replacing: a reader holding the old file keeps reading the old, whole content. */
	f = fopen(path, "r");
	a.discontinuity_us = 99;
	CHECK(snapshot_write_file(path, (gid_t)-1, mods, 1, 8, err, sizeof(err)) == 0);
	CHECK(f && snapshot_parse(f, &s, err, sizeof(err)) == 0 && s.written_us == 7);
	snapshot_free(&s);
	if (f)
		fclose(f);
	CHECK(snapshot_write_file("/nonexistent-dir/snapshot", (gid_t)-1, mods, 1, 8, err, sizeof(err)) == -1);
	CHECK(strstr(err, "/nonexistent-dir") != NULL);

	/* The store: every module's last record in one file; a missing directory is created. */
	snapshot_config_init(&cfg);
	CHECK_STR(cfg.path, "/run/collectd-ebpf/snapshot");
	snprintf(cfg.path, sizeof(cfg.path), "%s/sub/snapshot", dir);
	st = snapshot_store_new(&cfg);
	CHECK(st != NULL);
	m = module_new(module_find("syscalls"), "broken");
	m->state = MODULE_UNSUPPORTED;
	snprintf(m->last_error, sizeof(m->last_error), "no attach method works");
	snapshot_record_state(&b, m, false);
	CHECK_STR(b.label, "syscalls-broken");
	CHECK(b.state == SNAPSHOT_STATE_UNSUPPORTED);
	CHECK(snapshot_store_publish(st, &b) == 0);
	CHECK(b.label[0] == '\0'); /* swapped with the (empty) previous record */
	snapshot_module_add_counter(&a, "calls", "fsync", 5);
	CHECK(snapshot_store_publish(st, &a) == 0);
	snapshot_module_add_counter(&a, "calls", "fsync", 6); /* a's buffers are the old record's */
	snprintf(a.label, sizeof(a.label), "syscalls");
	a.state = SNAPSHOT_STATE_RUNNING;
	CHECK(snapshot_store_publish(st, &a) == 0);
	m->state = MODULE_RUNNING;
	snapshot_record_state(&b, m, true); /* a failing read shows as degraded */
	CHECK(b.state == SNAPSHOT_STATE_DEGRADED);
	snapshot_record_disabled(&b, module_find("syscalls"), 5);
	CHECK(b.state == SNAPSHOT_STATE_DISABLED);
	CHECK_STR(b.label, "syscalls");
	CHECK(strstr(b.error, "add <Module \"syscalls\">") != NULL);
	CHECK(b.discontinuity_us == 5 && b.ncounters == 0 && b.methods[0] == '\0');
	module_free(m);

	f = fopen(cfg.path, "r");
	CHECK(f && snapshot_parse(f, &s, err, sizeof(err)) == 0);
	if (f)
		fclose(f);
	CHECK(s.nmodules == 2);
	if (s.nmodules == 2) {
		CHECK_STR(s.modules[0].label, "syscalls-broken");
		CHECK_STR(s.modules[0].error, "no attach method works");
		CHECK_STR(s.modules[1].label, "syscalls");
		CHECK(s.modules[1].ncounters == 1 && s.modules[1].counters[0].value == 6);
	}
	snapshot_free(&s);
	snapshot_store_free(st); /* removes the file: stale values must not look current */
	CHECK(access(cfg.path, F_OK) == -1);
	snapshot_module_release(&a);
	snapshot_module_release(&b);

	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	unlink(path);
	CHECK(rmdir(dir) == 0);
}

static int opt(struct snapshot_config *c, const char *key, struct opt_value v, char *err, size_t len)
{
	struct option o = { .key = key, .values = &v, .nvalues = 1 };

	err[0] = '\0';
	return snapshot_config_option(c, &o, err, len);
}

static void test_options(void)
{
	struct snapshot_config c;
	char err[ERR_MAX];

	snapshot_config_init(&c);
	CHECK(opt(&c, "Module", str("x"), err, sizeof(err)) == 0); /* not ours */
	CHECK(opt(&c, "SnapshotFile", str("/var/tmp/x/snap"), err, sizeof(err)) == 1);
	CHECK_STR(c.path, "/var/tmp/x/snap");
	CHECK(opt(&c, "snapshotfile", str(""), err, sizeof(err)) == 1);
	CHECK_STR(c.path, "");
	CHECK(snapshot_store_new(&c) == NULL); /* "" = off */
	CHECK(opt(&c, "SnapshotFile", str("run/snap"), err, sizeof(err)) == -1);
	CHECK(strstr(err, "SnapshotFile \"run/snap\" is not an absolute path") != NULL);
	CHECK(opt(&c, "SnapshotFile", str("/run/x/"), err, sizeof(err)) == -1);
	CHECK(strstr(err, "names a directory") != NULL);
	CHECK(opt(&c, "SnapshotFile", (struct opt_value){ .type = OPT_NUMBER, .number = 1 }, err, sizeof(err)) == -1);
	CHECK(strstr(err, "SnapshotFile takes one quoted path") != NULL);
	CHECK(opt(&c, "SnapshotGroup", str("root"), err, sizeof(err)) == 1);
	CHECK(c.gid == 0);
	CHECK(opt(&c, "SnapshotGroup", str("no-such-group-ebpf"), err, sizeof(err)) == -1);
	CHECK(strstr(err, "SnapshotGroup: there is no group \"no-such-group-ebpf\"") != NULL);
	CHECK(strstr(err, "addgroup --system no-such-group-ebpf") != NULL);
	CHECK(opt(&c, "SnapshotGroup", str(""), err, sizeof(err)) == -1);
	CHECK(strstr(err, "SnapshotGroup takes one quoted group name") != NULL);
}

/* Gauges (self-metrics: map fill, attach methods; hit ratios): written, parsed back exactly,
 * and only finite decimal values accepted. */
static void test_gauges(void)
{
	struct snapshot_module a = { 0 };
	const struct snapshot_module *mods[] = { &a };
	struct snapshot s;
	char *buf = NULL, err[ERR_MAX] = "";
	size_t len = 0;
	FILE *f;

	snprintf(a.label, sizeof(a.label), "syscalls");
	a.state = SNAPSHOT_STATE_RUNNING;
	CHECK(snapshot_module_add_gauge(&a, "map_fill", "start_tid", 37.5) == 0);
	CHECK(snapshot_module_add_gauge(&a, "attach", "sys_exit-tp_btf", 0) == 0);
	f = open_memstream(&buf, &len);
	CHECK(snapshot_write_stream(f, mods, 1, 42) == 0);
	fclose(f);
	CHECK(strstr(buf, "gauge\tmap_fill\tstart_tid\t37.5\n") != NULL);
	CHECK(parse_text(buf, &s, err, sizeof(err)) == 0);
	CHECK(s.nmodules == 1 && s.modules[0].ngauges == 2);
	if (s.nmodules == 1 && s.modules[0].ngauges == 2) {
		CHECK_STR(s.modules[0].gauges[0].metric, "map_fill");
		CHECK_STR(s.modules[0].gauges[0].instance, "start_tid");
		CHECK(s.modules[0].gauges[0].value == 37.5);
		CHECK(s.modules[0].gauges[1].value == 0);
	}
	snapshot_free(&s);
	free(buf);
	snapshot_module_clear_values(&a);
	CHECK(a.ngauges == 0);
	snapshot_module_release(&a);

	CHECK(parse_text("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\ngauge\tf\tx\t-\nend\n", &s, err,
			 sizeof(err)) == -1);
	CHECK(strstr(err, "bad gauge value") != NULL);
	CHECK(parse_text("collectd-ebpf-snapshot\t3\ngauge\tf\tx\t1\nend\n", &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "gauge before any module line") != NULL);
	CHECK(parse_text("collectd-ebpf-snapshot\t3\nmodule\tm\trunning\t0\t\t\ngauge\tf\t1\nend\n", &s, err,
			 sizeof(err)) == -1);
	CHECK(strstr(err, "a gauge line has 4 fields") != NULL);
}

/* A text of `lines` lines made by line(i), between the header and, if `end`, the end line. */
static char *make_text(int lines, void (*line)(int i, char *buf, size_t len), bool end, size_t *len)
{
	size_t cap = 64 + (size_t)lines * 64, used = 0;
	char *t = malloc(cap);

	used += (size_t)snprintf(t, cap, "collectd-ebpf-snapshot\t3\nwritten\t1\n");
	for (int i = 0; i < lines; i++) {
		char buf[64];

		line(i, buf, sizeof(buf));
		used += (size_t)snprintf(t + used, cap - used, "%s", buf);
	}
	if (end)
		used += (size_t)snprintf(t + used, cap - used, "end\n");
	*len = used;
	return t;
}

static void module_line(int i, char *buf, size_t len)
{
	snprintf(buf, len, "module\tm%07d\trunning\t0\t\t\n", i);
}

/* One module, then counters. */
static void counter_line(int i, char *buf, size_t len)
{
	if (i == 0)
		snprintf(buf, len, "module\tm\trunning\t0\t\t\n");
	else
		snprintf(buf, len, "counter\tcalls\tc%07d\t%d\n", i, i);
}

static int parse_bytes(const char *text, size_t len, struct snapshot *s, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int r = snapshot_parse(f, s, err, errlen);

	fclose(f);
	return r;
}

/* Counts bound the parser's memory as bytes bound its time: 16 MiB of one-counter module
 * lines once took 2.7 GB (421,175 modules). */
static void test_bounds(void)
{
	struct snapshot s;
	char err[ERR_MAX];
	size_t len;
	char *t;

	/* 16 MiB of module lines: refused at the first module past the count. */
	t = make_text(600000, module_line, true, &len);
	CHECK(len > 16000000);
	CHECK(parse_bytes(t, len, &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "line 259: more than 256 modules: not a snapshot of the plugin") != NULL);
	free(t);
	t = make_text(SNAPSHOT_MAX_MODULES, module_line, true, &len);
	CHECK(parse_bytes(t, len, &s, err, sizeof(err)) == 0 && s.nmodules == SNAPSHOT_MAX_MODULES);
	snapshot_free(&s);
	free(t);

	/* Rows: the module line and 100,000 counters pass, one more is refused. */
	t = make_text(1 + SNAPSHOT_MAX_ROWS, counter_line, true, &len);
	CHECK(parse_bytes(t, len, &s, err, sizeof(err)) == 0 && s.modules[0].ncounters == SNAPSHOT_MAX_ROWS);
	snapshot_free(&s);
	free(t);
	t = make_text(2 + SNAPSHOT_MAX_ROWS, counter_line, true, &len);
	CHECK(parse_bytes(t, len, &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "more than 100000 rows: not a snapshot of the plugin") != NULL);
	free(t);

	/* Bytes: a stream longer than 16 MiB (one long line) is refused whatever its size said. */
	len = SNAPSHOT_MAX_BYTES + 2;
	t = malloc(len);
	memset(t, 'x', len);
	memcpy(t, "collectd-ebpf-snapshot\t3\n", 26);
	t[len - 1] = '\n';
	CHECK(parse_bytes(t, len, &s, err, sizeof(err)) == -1);
	CHECK(strstr(err, "more than 16 MiB") != NULL);
	free(t);
}

/* Every reader opens like this: a regular file of at most 16 MiB, O_NONBLOCK. */
static void test_open(void)
{
	char dir[] = "/tmp/ebpf-snapshot-open-XXXXXX", path[96], why[ERR_MAX];
	struct stat st;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	CHECK(snapshot_open_file("/dev/zero", &st, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "/dev/zero is not a regular file") != NULL);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(snapshot_open_file(path, &st, why, sizeof(why)) == NULL); /* returns: nobody writes it */
	CHECK(strstr(why, "fifo is not a regular file") != NULL);
	CHECK(unlink(path) == 0);
	snprintf(path, sizeof(path), "%s/huge", dir);
	f = fopen(path, "w");
	CHECK(f && ftruncate(fileno(f), SNAPSHOT_MAX_BYTES + 1) == 0);
	fclose(f);
	CHECK(snapshot_open_file(path, &st, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "huge is larger than 16 MiB") != NULL);
	CHECK(unlink(path) == 0);
	CHECK(snapshot_open_file(path, &st, why, sizeof(why)) == NULL && errno == ENOENT);
	CHECK(rmdir(dir) == 0);
}

/* A full disk is said as one: the error is the write's (ENOSPC), not a bare EIO, also where
 * stdio's buffer filled and failed in the middle of the snapshot (collectd's log then said
 * "Input/output error" for a full tmpfs). */
static void test_full_disk(void)
{
	struct snapshot_module a = { 0 };
	const struct snapshot_module *mods[] = { &a };
	char instance[32];
	FILE *f = fopen("/dev/full", "w");

	CHECK(f != NULL);
	if (!f)
		return;
	snprintf(a.label, sizeof(a.label), "syscalls");
	a.state = SNAPSHOT_STATE_RUNNING;
	for (int i = 0; i < 1000; i++) { /* far more than a stdio buffer */
		snprintf(instance, sizeof(instance), "call%d", i);
		CHECK(snapshot_module_add_counter(&a, "calls", instance, (uint64_t)i) == 0);
	}
	CHECK(snapshot_write_stream(f, mods, 1, 42) == -ENOSPC);
	fclose(f);
	snapshot_module_release(&a);
}

int main(void)
{
	test_full_disk();
	test_labels();
	test_bounds();
	test_open();
	test_round_trip();
	test_gauges();
	test_parse_errors();
	test_sink();
	test_own_bounds();
	test_file_and_store();
	test_options();
	return testing_done();
}
