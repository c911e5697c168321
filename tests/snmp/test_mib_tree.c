/* COLLECTD-EBPF-MIB over a snapshot, without net-snmp: the index encoding (stable names,
 * IMPLIED last string), GET, GETNEXT order over the whole subtree, value conversions
 * (Counter32 twins, microseconds, TimeStamp), and the snapshot cache's states. */
#include "snmp/instance_index.h"
#include "snmp/mib_tree.h"
#include "snmp/snapshot_cache.h"
#include "tests/support/mib_walk.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

static const char text[] =
	"collectd-ebpf-snapshot\t3\n"
	"written\t1000000000000000\n"
	"module\tsyscalls\trunning\t999999990000000\tsys_exit=tp_btf\t\n"
	"counter\tcalls\tfsync\t4294967301\n"
	"counter\tcalls\tread\t7\n"
	"counter\tdropped\tout_of_range\t0\n"
	"histogram\tlatency\tfsync\tnanoseconds\t0\t100\t10090000\t100\t100900\t768.5\t900000\t1040000\n"
	"bucket\t10\t90\n" /* precision 0: (512, 1024] */
	"bucket\t20\t10\n"
	"histogram\tlatency\tidle\tnanoseconds\t0\t5\t50\t0\t-\t-\t-\t-\n"
	"bucket\t0\t1\n"
	"bucket\t39\t4\n"
	"module\tsyscalls-broken\tunsupported\t999999990000000\t\tno attach method works\n"
	"module\tthis-label-is-far-too-long-for-the-index-of-the-mib\tdisabled\t0\t\t\n"
	"end\n";

static struct snapshot snap;
static struct mib_tree view;
/* 5 s after the snapshot was written; the agent has been up 100 s. */
static const struct mib_env env = { .uptime_cs = 10000, .now_us = 1000000005000000 };

/* oid: "1.3.1.3" + encoded strings; helper appends a length-prefixed or implied string. */
static size_t put(uint32_t *o, size_t n, const char *s, int implied)
{
	if (!implied)
		o[n++] = (uint32_t)strlen(s);
	for (; *s; s++)
		o[n++] = (unsigned char)*s;
	return n;
}

/* The index of a syscalls row: 1.table.1.col, the module and metric length-prefixed, then
 * the instance, implied or length-prefixed. */
static size_t row_oid(uint32_t *o, uint32_t table, uint32_t col, const char *metric, const char *instance,
		      int implied)
{
	size_t n = 0;

	o[n++] = 1, o[n++] = table, o[n++] = 1, o[n++] = col;
	n = put(o, n, "syscalls", 0);
	n = put(o, n, metric, 0);
	return put(o, n, instance, implied);
}

static size_t counter_oid(uint32_t *o, uint32_t col, const char *metric, const char *instance)
{
	return row_oid(o, 3, col, metric, instance, 1);
}

static void test_get(void)
{
	uint32_t o[MIB_MAX_SUFFIX];
	struct mib_value v;
	size_t n;

	n = counter_oid(o, 3, "calls", "fsync");
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND);
	CHECK(v.type == MIB_COUNTER64 && v.num == 4294967301ULL);
	n = counter_oid(o, 4, "calls", "fsync");
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND);
	CHECK(v.type == MIB_COUNTER32 && v.num == 5); /* low 32 bits */
	n = counter_oid(o, 3, "calls", "fsyn");
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_NO_SUCH_INSTANCE);
	o[3] = 2; /* the not-accessible index column */
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_NO_SUCH_OBJECT);

	/* Scalars. */
	CHECK(mib_tree_get(&view, &env, (uint32_t[]){ 1, 1, 1, 0 }, 4, &v) == MIB_FOUND);
	CHECK(v.type == MIB_INTEGER && v.num == MIB_SNAPSHOT_OK);
	CHECK(mib_tree_get(&view, &env, (uint32_t[]){ 1, 1, 3, 0 }, 4, &v) == MIB_FOUND);
	CHECK(v.type == MIB_GAUGE32 && v.num == 5);
	CHECK(mib_tree_get(&view, &env, (uint32_t[]){ 1, 1, 3 }, 3, &v) == MIB_NO_SUCH_OBJECT);
	CHECK(mib_tree_get(&view, &env, (uint32_t[]){ 1, 1, 3, 1 }, 4, &v) == MIB_NO_SUCH_INSTANCE);

	/* Modules: IMPLIED name; state enum; TimeStamp = uptime - 15 s. */
	n = put(o, 4, "syscalls-broken", 1);
	o[0] = 1, o[1] = 2, o[2] = 1, o[3] = 2;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.num == 4); /* unsupported(4) */
	o[3] = 4;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && !strcmp(v.str, "no attach method works"));
	o[3] = 5;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.type == MIB_TIMETICKS);
	CHECK_EQ_U64(v.num, 10000 - 1500);

	/* Histogram: microseconds, rounded; an idle interval reads 0. */
	n = row_oid(o, 4, 10, "latency", "fsync", 1);
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.type == MIB_GAUGE32 && v.num == 101);
	o[3] = 11;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.num == 1);
	o[3] = 13;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.num == 1040);
	o[3] = 8;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && !strcmp(v.str, "microseconds"));
	o[3] = 7;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.type == MIB_COUNTER32 && v.num == 10090000);

	/* Buckets: length-prefixed instance, then slot + 1. (512, 1024] is slot 10. */
	n = row_oid(o, 5, 3, "latency", "fsync", 0);
	o[n++] = 11;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.type == MIB_COUNTER64 && v.num == 1024);
	n = row_oid(o, 5, 3, "latency", "idle", 0);
	o[n++] = 40; /* slot 39, the open-ended last one */
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.num == UINT64_MAX);
	o[n - 1] = 1; /* slot 0 */
	o[3] = 2;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.num == 0);
	o[3] = 4;
	CHECK(mib_tree_get(&view, &env, o, n, &v) == MIB_FOUND && v.num == 1);
}

/* A walk from the start visits every instance once, in strictly increasing OID order. */
static void test_walk(void)
{
	uint32_t next[MIB_MAX_SUFFIX];
	size_t next_len;
	struct mib_value v;
	struct mib_walk w;
	const char *why = mib_walk_all(&view, &env, 1000, &w);

	if (why)
		printf("walk: %s\n", why);
	CHECK(why == NULL);
	/* 3 scalars; 2 modules x 4 columns (the too-long label is left out); 3 counters x 3;
	 * 2 histograms x 12; 4 buckets x 4. */
	CHECK_EQ_U64(w.count, 3 + 8 + 9 + 24 + 16);
	CHECK_EQ_U64(w.per_table[2], 8);
	CHECK_EQ_U64(w.per_table[3], 9);
	CHECK_EQ_U64(w.per_table[5], 16);
	CHECK(view.skipped == 1);
	/* The subagent's log names the series left out, not only that some were. */
	CHECK_EQ_U64(view.skipped_series, 1);
	CHECK_STR(view.skipped_names, "this-label-is-far-too-long-for-the-index-of-the-mib");

	/* Inclusive: the OID itself; exclusive: the one after. */
	CHECK(mib_tree_next(&view, &env, (uint32_t[]){ 1, 1, 1, 0 }, 4, true, next, &next_len, &v) == MIB_FOUND);
	CHECK(next_len == 4 && next[2] == 1);
	CHECK(mib_tree_next(&view, &env, (uint32_t[]){ 1, 1, 1, 0 }, 4, false, next, &next_len, &v) == MIB_FOUND);
	CHECK(next_len == 4 && next[2] == 2);
	/* From the middle of a table's index space, and past the end. */
	CHECK(mib_tree_next(&view, &env, (uint32_t[]){ 1, 3, 1, 3, 200 }, 5, false, next, &next_len, &v) == MIB_FOUND);
	CHECK(next[1] == 3 && next[3] == 4); /* first row of the next column */
	CHECK(mib_tree_next(&view, &env, (uint32_t[]){ 1, 5, 1, 6 }, 4, false, next, &next_len, &v) == MIB_END);
	CHECK(mib_tree_next(&view, &env, (uint32_t[]){ 2 }, 1, false, next, &next_len, &v) == MIB_END);
}

/* A base OID of 10 arcs leaves 118 below it: a bucket row of the longest names the index
 * allows (a 120-arc OID) is left out, and the walk still reaches every row after it
 * (before, GETNEXT returned the 130-arc OID, which the AgentX glue could not send, and
 * the walk stopped there). */
static void test_base_room(void)
{
	struct snapshot_bucket bucket = { .slot = 0, .count = 1 };
	struct snapshot_histogram h = { .unit = SNAPSHOT_UNIT_BYTES, .count = 1, .nbuckets = 1 };
	struct snapshot_counter c = { .value = 7 }, z = { .value = 9 };
	struct snapshot_module m[2] = { { .label = "" }, { .label = "" } };
	struct snapshot s = { .modules = m, .nmodules = 2, .written_us = 1 };
	struct mib_tree v;
	struct mib_walk w;

	memset(m[0].label, 'a', 32);
	memset(h.metric, 'b', 32);
	memset(h.instance, 'c', 48);
	memcpy(c.metric, h.metric, 32);
	memcpy(c.instance, h.instance, 48);
	m[0].histograms = &h, m[0].nhistograms = 1, m[0].counters = &c, m[0].ncounters = 1;
	m[0].buckets = &bucket, m[0].nbuckets = 1;
	snprintf(m[1].label, sizeof(m[1].label), "zz");
	snprintf(z.metric, sizeof(z.metric), "calls");
	snprintf(z.instance, sizeof(z.instance), "fsync");
	m[1].counters = &z, m[1].ncounters = 1;

	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_OID - 10) == 0);
	CHECK(mib_walk_all(&v, &env, 1000, &w) == NULL);
	CHECK_EQ_U64(v.skipped, 1);
	CHECK_EQ_U64(v.skipped_series, 1);
	CHECK(!strncmp(v.skipped_names, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/cccc", 70));
	CHECK_EQ_U64(w.per_table[5], 0);
	CHECK_EQ_U64(w.per_table[3], 6); /* both counters, all 3 columns: zz's after the long one */
	CHECK_EQ_U64(w.per_table[4], 12);
	mib_tree_free(&v);

	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
	CHECK(mib_walk_all(&v, &env, 1000, &w) == NULL);
	CHECK_EQ_U64(v.skipped, 0);
	CHECK_EQ_U64(w.per_table[5], 4);
	mib_tree_free(&v);
}

static char last_report[2048];

static void report(bool ok, const char *msg)
{
	printf("report(%s): %s\n", ok ? "ok" : "problem", msg);
	snprintf(last_report, sizeof(last_report), "%s", msg);
}

/* The cache rereads a file whose identity or mtime changed: give each rewrite a new mtime,
 * as a second write in the same clock tick could otherwise look unchanged. */
static void bump_mtime(const char *path)
{
	static time_t t = 1000;
	struct utimbuf times = { .actime = t, .modtime = t };

	t++;
	CHECK(utime(path, &times) == 0);
}

/* The snapshot `text` without its last module (the one whose name is too long). */
static void write_without_long_module(const char *path)
{
	const char *cut = strstr(text, "module\tthis-label");
	FILE *f = fopen(path, "w");

	CHECK(f != NULL && cut != NULL);
	fwrite(text, 1, (size_t)(cut - text), f);
	fputs("end\n", f);
	fclose(f);
	bump_mtime(path);
}

static void test_cache(void)
{
	char dir[] = "/tmp/ebpf-mibview.XXXXXX", path[256];
	struct snapshot_cache c;
	struct mib_value v;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	snapshot_cache_init(&c, path, MIB_MAX_SUFFIX, report);
	snapshot_cache_refresh(&c);
	CHECK(c.status == MIB_SNAPSHOT_MISSING);
	CHECK(strstr(c.error, "does not exist") != NULL);
	CHECK(mib_tree_get(&c.view, &env, (uint32_t[]){ 1, 1, 1, 0 }, 4, &v) == MIB_FOUND && v.num == MIB_SNAPSHOT_MISSING);
	CHECK(mib_tree_get(&c.view, &env, (uint32_t[]){ 1, 1, 2, 0 }, 4, &v) == MIB_FOUND && strstr(v.str, path));

	f = fopen(path, "w");
	fputs("collectd-ebpf-snapshot\t3\nwritten\t1\n", f); /* no end line */
	fclose(f);
	snapshot_cache_refresh(&c);
	CHECK(c.status == MIB_SNAPSHOT_MALFORMED);
	CHECK(strstr(c.error, "truncated") != NULL);

	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	snapshot_cache_refresh(&c);
	CHECK(c.status == MIB_SNAPSHOT_OK && c.snap.nmodules == 3);
	CHECK(c.view.nrows[1] == 3);
	/* The log line names what it left out, not only that it left something out. */
	CHECK(strstr(last_report, "serving ") == last_report);
	CHECK(strstr(last_report, ": 3 modules; 1 series left out (names longer than the MIB's index sizes") != NULL);
	CHECK(strstr(last_report, "): this-label-is-far-too-long-for-the-index-of-the-mib") != NULL);

	/* The module with the long name goes away: the log says every series is served again,
	 * and when it comes back it is reported again (the count of one is no new high). */
	write_without_long_module(path);
	snapshot_cache_refresh(&c);
	CHECK(c.status == MIB_SNAPSHOT_OK && c.snap.nmodules == 2);
	CHECK(strstr(last_report, ": 2 modules; every series served again") != NULL);
	last_report[0] = '\0';
	write_without_long_module(path); /* rewritten as it was: nothing new to say */
	snapshot_cache_refresh(&c);
	CHECK(last_report[0] == '\0');
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	bump_mtime(path);
	snapshot_cache_refresh(&c);
	CHECK(strstr(last_report, ": 3 modules; 1 series left out (names longer than the MIB's index sizes") != NULL);

	if (geteuid() != 0) { /* root reads anything: only an unprivileged run can check this */
		chmod(path, 0);
		utime(path, NULL);
		snapshot_cache_refresh(&c);
		CHECK(c.status == MIB_SNAPSHOT_UNREADABLE);
	}
	unlink(path);
	snapshot_cache_refresh(&c);
	CHECK(c.status == MIB_SNAPSHOT_MISSING && c.view.nrows[1] == 0);

	/* Something other than a file at the path (a FIFO nobody writes to) is reported, not
	 * waited on: the alarm turns a hang into a failure. */
	CHECK(mkfifo(path, 0600) == 0);
	alarm(5);
	snapshot_cache_refresh(&c);
	alarm(0);
	CHECK(c.status == MIB_SNAPSHOT_UNREADABLE);
	CHECK(strstr(c.error, "is not a regular file") != NULL);
	unlink(path);
	snapshot_cache_free(&c);
	rmdir(dir);
}

/* A whole snapshot not rewritten for stale_after seconds is stale(5): only its age is
 * served (old numbers must not look current), and it is ok(1) again once rewritten. */
static void test_cache_stale(void)
{
	char dir[] = "/tmp/ebpf-mibview.XXXXXX", path[256];
	struct snapshot_cache c;
	struct mib_value v;
	uint32_t status[] = { 1, 1, 1, 0 }, age[] = { 1, 1, 3, 0 };
	struct mib_env now = { .uptime_cs = 10000, .now_us = snapshot_now_us() };
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	snapshot_cache_init(&c, path, MIB_MAX_SUFFIX, report);
	c.stale_after = 60;
	f = fopen(path, "w");
	fprintf(f, "collectd-ebpf-snapshot\t%d\nwritten\t%lld\nmodule\tsyscalls\trunning\t0\t\t\n"
		   "counter\tcalls\tfsync\t5\nend\n", SNAPSHOT_FORMAT_VERSION, (long long)(now.now_us - 61000000));
	fclose(f);
	snapshot_cache_refresh(&c);
	CHECK(c.status == MIB_SNAPSHOT_STALE);
	CHECK(strstr(c.error, "more than 60 s ago") != NULL);
	CHECK(c.view.nrows[0] == 0 && c.view.nrows[1] == 0);
	CHECK(mib_tree_get(&c.view, &now, status, 4, &v) == MIB_FOUND && v.num == 5);
	CHECK(mib_tree_get(&c.view, &now, age, 4, &v) == MIB_FOUND && v.num >= 61 && v.num < 70);

	/* rewritten now: ok, with its rows */
	f = fopen(path, "w");
	fprintf(f, "collectd-ebpf-snapshot\t%d\nwritten\t%lld\nmodule\tsyscalls\trunning\t0\t\t\n"
		   "counter\tcalls\tfsync\t6\nend\n", SNAPSHOT_FORMAT_VERSION, (long long)now.now_us);
	fclose(f);
	snapshot_cache_refresh(&c);
	CHECK(c.status == MIB_SNAPSHOT_OK && c.view.nrows[1] == 1 && c.error[0] == '\0');
	CHECK(mib_tree_get(&c.view, &now, age, 4, &v) == MIB_FOUND && v.num <= 1);

	/* the same file, found again once it is old: stale without a new file */
	c.snap.written_us -= 61000000;
	snapshot_cache_refresh(&c);
	CHECK(c.status == MIB_SNAPSHOT_STALE && c.view.nrows[1] == 0);
	/* 0: never stale */
	c.stale_after = 0;
	c.loaded = false;
	snapshot_cache_refresh(&c);
	CHECK(c.status == MIB_SNAPSHOT_OK);
	unlink(path);
	snapshot_cache_free(&c);
	rmdir(dir);
}

/* A corrupt snapshot may claim any write time: the age saturates instead of overflowing
 * (now - INT64_MIN is undefined behaviour, and wrapped it read as a fresh snapshot). */
static void test_age_extremes(void)
{
	static const struct {
		int64_t written_us;
		uint64_t age;
	} cases[] = {
		{ INT64_MIN, 4294967295u }, { -1, 1000000005 }, { INT64_MAX, 0 }, { 1000000005000000, 0 },
	};
	struct snapshot s = { 0 };
	struct mib_tree v;
	struct mib_value val;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s.written_us = cases[i].written_us;
		CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
		CHECK(mib_tree_get(&v, &env, (uint32_t[]){ 1, 1, 3, 0 }, 4, &val) == MIB_FOUND);
		CHECK_EQ_U64(val.num, cases[i].age);
		mib_tree_free(&v);
	}
}

/* A served string is a DisplayString: at most 255 octets, cut on a UTF-8 character
 * boundary with a marker, whatever the snapshot holds (errors reach 1023 characters). */
static void check_display_string(const struct mib_value *v, const char *full)
{
	size_t n = strlen(v->str), kept;

	CHECK(v->type == MIB_STRING);
	CHECK(n <= 255);
	CHECK(n >= 3 && !strcmp(v->str + n - 3, "..."));
	kept = n >= 3 ? n - 3 : 0;
	CHECK(strncmp(v->str, full, kept) == 0);
	/* the kept part ends on a character boundary: the next byte of the original starts one */
	CHECK(((unsigned char)full[kept] & 0xc0) != 0x80);
}

/* Many series whose metric is too long for the index: each is counted, the first
 * MIB_SKIPPED_NAMED are named (a histogram's bucket rows do not name it again), each name cut
 * at 64 bytes. */
static void test_skipped_named(void)
{
	struct snapshot_bucket buckets[3] = { { .slot = 0, .count = 1 }, { .slot = 1, .count = 1 }, { .slot = 2, .count = 1 } };
	struct snapshot_histogram h = { .unit = SNAPSHOT_UNIT_BYTES, .count = 3, .nbuckets = 3 };
	struct snapshot_counter c[7];
	struct snapshot_module m = { .label = "prog" };
	struct snapshot s = { .modules = &m, .nmodules = 1, .written_us = 1 };
	struct mib_tree v;
	const char *p;
	int commas = 0;

	memset(c, 0, sizeof(c));
	memset(h.metric, 'l', 33);
	memset(h.instance, 'h', 100); /* served if the metric were not too long: it is cut in the log */
	for (int i = 0; i < 7; i++) {
		memset(c[i].metric, 'a' + i, 33); /* the index allows 32 */
		snprintf(c[i].instance, sizeof(c[i].instance), "fsync");
	}
	m.histograms = &h, m.nhistograms = 1, m.buckets = buckets, m.nbuckets = 3;
	m.counters = c, m.ncounters = 7;
	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
	CHECK_EQ_U64(v.skipped, 7 + 1 + 3);
	CHECK_EQ_U64(v.skipped_series, 8);
	for (p = v.skipped_names; (p = strstr(p, ", ")); p++)
		commas++;
	CHECK(commas == MIB_SKIPPED_NAMED - 1);
	CHECK(!strncmp(v.skipped_names, "prog/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/fsync, prog/bbbb", 54));
	mib_tree_free(&v);
	m.ncounters = 0;
	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
	CHECK_EQ_U64(v.skipped, 1 + 3);
	CHECK_EQ_U64(v.skipped_series, 1);
	CHECK_STR(v.skipped_names, "prog/lllllllllllllllllllllllllllllllll/"
				   "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh...");
	mib_tree_free(&v);
}

static void test_long_strings(void)
{
	static char error[1024];
	struct snapshot s = { 0 };
	struct snapshot_module sm = { 0 };
	struct mib_tree v;
	struct mib_value val;
	size_t n = 0;

	/* "x" then 2-byte characters: the 255-octet limit falls inside one of them */
	error[n++] = 'x';
	while (n + 2 < sizeof(error)) {
		error[n++] = (char)0xc3;
		error[n++] = (char)0xa9; /* U+00E9 */
	}
	error[n] = '\0';
	snprintf(sm.label, sizeof(sm.label), "m");
	sm.state = SNAPSHOT_STATE_FAILED;
	snprintf(sm.error, sizeof(sm.error), "%s", error);
	s.modules = &sm;
	s.nmodules = 1;
	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
	CHECK(mib_tree_get(&v, &env, (uint32_t[]){ 1, 2, 1, 4, 'm' }, 5, &val) == MIB_FOUND);
	check_display_string(&val, error);
	mib_tree_free(&v);

	/* ebpfSnapshotError */
	CHECK(mib_tree_build(&v, NULL, MIB_SNAPSHOT_MALFORMED, error, MIB_MAX_SUFFIX) == 0);
	CHECK(mib_tree_get(&v, &env, (uint32_t[]){ 1, 1, 2, 0 }, 4, &val) == MIB_FOUND);
	check_display_string(&val, error);
	mib_tree_free(&v);

	/* short strings are served whole */
	CHECK(mib_tree_build(&v, NULL, MIB_SNAPSHOT_MALFORMED, "line 2: bad written line", MIB_MAX_SUFFIX) == 0);
	CHECK(mib_tree_get(&v, &env, (uint32_t[]){ 1, 1, 2, 0 }, 4, &val) == MIB_FOUND);
	CHECK_STR(val.str, "line 2: bad written line");
	mib_tree_free(&v);
}

/* ebpfGaugeTable (1.6.1.<col>.<module>.<metric>.<IMPLIED instance>): the value rounded
 * down (a map 99.9 % full does not read 100) and its text; a walk reaches the table. */
static void test_gauges(void)
{
	static const char gauges[] = "collectd-ebpf-snapshot\t3\n"
				     "written\t1000000000000000\n"
				     "module\tsyscalls\trunning\t999999990000000\tsys_exit=tp_btf\t\n"
				     "gauge\tmap_fill\tstart_tid\t99.9\n"
				     "gauge\tattach\tsys_exit-tp_btf\t0\n"
				     "end\n";
	uint32_t o[MIB_MAX_SUFFIX], next[MIB_MAX_SUFFIX];
	struct snapshot s;
	struct mib_tree v;
	struct mib_value val;
	char err[ERR_MAX];
	FILE *f = fmemopen((void *)gauges, strlen(gauges), "r");
	size_t n = 0, next_len;

	CHECK(snapshot_parse(f, &s, err, sizeof(err)) == 0);
	fclose(f);
	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
	o[n++] = 1, o[n++] = 6, o[n++] = 1, o[n++] = 3;
	n = put(o, n, "syscalls", 0);
	n = put(o, n, "map_fill", 0);
	n = put(o, n, "start_tid", 1);
	CHECK(mib_tree_get(&v, &env, o, n, &val) == MIB_FOUND);
	CHECK(val.type == MIB_GAUGE32 && val.num == 99);
	o[3] = 4;
	CHECK(mib_tree_get(&v, &env, o, n, &val) == MIB_FOUND);
	CHECK(val.type == MIB_STRING);
	CHECK_STR(val.str, "99.9");
	/* The attach row sorts first (shorter metric name); after column 4 comes the whole
	 * instance (column 5) of each row, then the walk ends. */
	CHECK(mib_tree_next(&v, &env, (uint32_t[]){ 1, 6 }, 2, false, next, &next_len, &val) == MIB_FOUND);
	CHECK(next[1] == 6 && next[3] == 3 && val.num == 0);
	CHECK(mib_tree_next(&v, &env, o, n, false, next, &next_len, &val) == MIB_FOUND);
	CHECK(next[3] == 5 && val.type == MIB_STRING && !strcmp(val.str, "sys_exit-tp_btf"));
	o[3] = 5;
	CHECK(mib_tree_get(&v, &env, o, n, &val) == MIB_FOUND && !strcmp(val.str, "start_tid"));
	CHECK(mib_tree_next(&v, &env, o, n, false, next, &next_len, &val) == MIB_END);
	mib_tree_free(&v);
	snapshot_free(&s);
}

/* The same table per cgroup: CG | 3 is ebpfCgroupCounterTable (1.8.1), ... CG | 6
 * ebpfCgroupGaugeTable (1.8.4). */
#define CG 0x100u

/* The OID of column col of a row of table (3 counters, 4 histograms, 6 gauges; CG | table
 * per cgroup) of module syscalls, with the instance's index text as given (implied), or of a
 * bucket (5: length-prefixed, then slot + 1). Its length. */
static size_t table_row_oid(uint32_t *o, uint32_t table, uint32_t col, const char *metric, const char *index,
			    uint32_t slot)
{
	uint32_t t = table & ~CG;
	size_t n = 0;

	o[n++] = 1;
	if (table & CG)
		o[n++] = 8, o[n++] = t - 2;
	else
		o[n++] = t;
	o[n++] = 1, o[n++] = col;
	n = put(o, n, "syscalls", 0);
	n = put(o, n, metric, 0);
	n = put(o, n, index, t != 5);
	if (t == 5)
		o[n++] = slot + 1;
	return n;
}

/* GET of that column of that row. */
static enum mib_lookup get_row(const struct mib_tree *v, uint32_t table, uint32_t col, const char *metric,
			       const char *index, uint32_t slot, struct mib_value *out)
{
	uint32_t o[MIB_MAX_SUFFIX];

	return mib_tree_get(v, &env, o, table_row_oid(o, table, col, metric, index, slot), out);
}

/* An instance past 48 bytes (a container's cgroup) is served under its index (its first 34
 * bytes, '~', 13 digits of its hash: tests/snmp/test_instance_index), in the per-cgroup
 * tables (its cgroup is before a '/'), and the whole instance is a column of every row of
 * the counter, histogram and gauge tables. */
static void test_long_instances(void)
{
	static const char docker[] = "system.slice_docker-0123456789abcdef0123456789abcdef0123456789abcdef"
				     "0123456789abcdef.scope/fsync";
	static const char index[] = "system.slice_docker-0123456789abcd~atmmkn27eg7ds";
	struct snapshot_bucket buckets[2] = { { .slot = 3, .count = 4 }, { .slot = 9, .count = 6 } };
	struct snapshot_histogram h = { .metric = "latency", .unit = SNAPSHOT_UNIT_NANOSECONDS, .count = 10,
					.nbuckets = 2 };
	struct snapshot_counter c[2] = { { .metric = "calls", .value = 7 }, { .metric = "calls", .instance = "fsync",
										  .value = 3 } };
	struct snapshot_gauge g = { .metric = "share", .value = 12.5 };
	struct snapshot_module m = { .label = "syscalls", .counters = c, .ncounters = 2, .histograms = &h,
				     .nhistograms = 1, .gauges = &g, .ngauges = 1, .buckets = buckets, .nbuckets = 2 };
	struct snapshot s = { .modules = &m, .nmodules = 1, .written_us = 1 };
	struct mib_value val;
	struct mib_tree v;
	struct mib_walk w;

	CHECK_EQ_U64(strlen(docker), 96);
	snprintf(c[0].instance, sizeof(c[0].instance), "%s", docker);
	snprintf(h.instance, sizeof(h.instance), "%s", docker);
	snprintf(g.instance, sizeof(g.instance), "%s", docker);
	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
	CHECK_EQ_U64(v.skipped, 0);

	CHECK(get_row(&v, CG | 3, 3, "calls", index, 0, &val) == MIB_FOUND && val.type == MIB_COUNTER64 &&
	      val.num == 7);
	/* ebpfCgroupCounterFullInstance */
	CHECK(get_row(&v, CG | 3, 5, "calls", index, 0, &val) == MIB_FOUND && val.type == MIB_STRING);
	CHECK_STR(val.str, docker);
	/* a short one's is its index (ebpfCounterFullInstance of a host-wide row) */
	CHECK(get_row(&v, 3, 5, "calls", "fsync", 0, &val) == MIB_FOUND);
	CHECK_STR(val.str, "fsync");
	/* the instance itself, cut or not, is no index */
	CHECK(get_row(&v, CG | 3, 3, "calls", docker, 0, &val) == MIB_NO_SUCH_INSTANCE);
	/* nor is the per-cgroup row in the host-wide table */
	CHECK(get_row(&v, 3, 3, "calls", index, 0, &val) == MIB_NO_SUCH_INSTANCE);

	CHECK(get_row(&v, CG | 4, 4, "latency", index, 0, &val) == MIB_FOUND && val.type == MIB_COUNTER64 &&
	      val.num == 10);
	CHECK(get_row(&v, CG | 4, 14, "latency", index, 0, &val) == MIB_FOUND); /* ebpfCgroupHistFullInstance */
	CHECK_STR(val.str, docker);
	CHECK(get_row(&v, CG | 5, 4, "latency", index, 9, &val) == MIB_FOUND && val.num == 6);
	CHECK(get_row(&v, CG | 6, 3, "share", index, 0, &val) == MIB_FOUND && val.type == MIB_GAUGE32 &&
	      val.num == 12);
	CHECK(get_row(&v, CG | 6, 5, "share", index, 0, &val) == MIB_FOUND); /* ebpfCgroupGaugeFullInstance */
	CHECK_STR(val.str, docker);

	/* 2 counters (1 host-wide), 1 histogram, 2 buckets, 1 gauge; the walk's OIDs stay within
	 * 122 arcs */
	CHECK(mib_walk_all(&v, &env, 1000, &w) == NULL);
	CHECK_EQ_U64(w.per_table[3], 3);
	CHECK_EQ_U64(w.per_cgroup_table[1], 3);
	CHECK_EQ_U64(w.per_cgroup_table[2], 12);
	CHECK_EQ_U64(w.per_cgroup_table[3], 2 * 4);
	CHECK_EQ_U64(w.per_cgroup_table[4], 3);
	mib_tree_free(&v);
}

/* Two instances with one index: a long one and a 48-byte one that is that index, as a hash
 * collision of two long ones would be. The row served is the one whose whole instance sorts
 * first, in whichever order the snapshot lists them; the other is counted and named, and a
 * bucket only the other histogram has is not served under the winner's index. */
static void test_index_collision(void)
{
	char longer[64], index[INSTANCE_INDEX_MAX + 1];
	const struct snapshot_bucket win_bucket = { .slot = 0, .count = 1 },
				     lose_buckets[2] = { { .slot = 0, .count = 2 }, { .slot = 5, .count = 3 } };
	struct snapshot_bucket buckets[3];
	struct snapshot_histogram h[2] = { { .metric = "latency", .unit = SNAPSHOT_UNIT_BYTES },
					   { .metric = "latency", .unit = SNAPSHOT_UNIT_BYTES } };
	struct snapshot_counter c[2] = { { .metric = "calls" }, { .metric = "calls" } };
	struct snapshot_module m = { .label = "syscalls", .counters = c, .ncounters = 2, .histograms = h,
				     .nhistograms = 2, .buckets = buckets, .nbuckets = 3 };
	struct snapshot s = { .modules = &m, .nmodules = 1, .written_us = 1 };
	struct mib_value val;
	struct mib_tree v;
	struct mib_walk w;

	/* 34 'a' then 'b's: its byte after the head, 'b', sorts before the index's '~' */
	snprintf(longer, sizeof(longer), "%.34s%s", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb");
	CHECK_EQ_U64(instance_index(longer, index), INSTANCE_INDEX_MAX);
	for (int order = 0; order < 2; order++) {
		int win = order, lose = !order; /* the long one first, then last */

		snprintf(c[win].instance, sizeof(c[win].instance), "%s", longer);
		c[win].value = 11;
		snprintf(c[lose].instance, sizeof(c[lose].instance), "%s", index);
		c[lose].value = 22;
		/* the histograms: the winner has slot 0 (count 1), the loser slots 0 and 5 (2 and 3),
		 * in the module's buckets in the order of its histograms */
		snprintf(h[win].instance, sizeof(h[win].instance), "%s", longer);
		snprintf(h[lose].instance, sizeof(h[lose].instance), "%s", index);
		h[win].count = 1, h[win].nbuckets = 1;
		h[lose].count = 5, h[lose].nbuckets = 2;
		h[0].first_bucket = 0, h[1].first_bucket = h[0].nbuckets;
		memcpy(&buckets[h[win].first_bucket], &win_bucket, sizeof(win_bucket));
		memcpy(&buckets[h[lose].first_bucket], lose_buckets, sizeof(lose_buckets));
		CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);

		CHECK(get_row(&v, 3, 3, "calls", index, 0, &val) == MIB_FOUND && val.num == 11);
		CHECK(get_row(&v, 3, 5, "calls", index, 0, &val) == MIB_FOUND);
		CHECK_STR(val.str, longer);
		CHECK(get_row(&v, 4, 4, "latency", index, 0, &val) == MIB_FOUND && val.num == 1);
		CHECK(get_row(&v, 5, 4, "latency", index, 0, &val) == MIB_FOUND && val.num == 1);
		CHECK(get_row(&v, 5, 4, "latency", index, 5, &val) == MIB_NO_SUCH_INSTANCE);
		CHECK(mib_walk_all(&v, &env, 1000, &w) == NULL);
		CHECK_EQ_U64(w.per_table[3], 3);
		CHECK_EQ_U64(w.per_table[5], 4);
		/* the counter, the histogram and its 2 buckets; 2 series, named */
		CHECK_EQ_U64(v.skipped, 4);
		CHECK_EQ_U64(v.skipped_series, 2);
		CHECK(strstr(v.skipped_names, "syscalls/calls/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa~") == v.skipped_names);
		CHECK(strstr(v.skipped_names, ", syscalls/latency/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa~") != NULL);
		mib_tree_free(&v);
	}
}

/* Per-cgroup rows (instance "<cgroup>/<instance>", By "cgroup") are served in tables of their
 * own under 1.8, with the index and columns of their host-wide twins, and never in the
 * host-wide tables: a view that excludes 1.8 serves every host-wide value and no cgroup name
 * (contrib/snmpd.conf.snippet's v2c view). */
static void test_cgroup_tables(void)
{
	static const char cg[] = "collectd-ebpf-snapshot\t3\n"
				 "written\t1000000000000000\n"
				 "module\tsyscalls\trunning\t999999990000000\tsys_exit=tp_btf\t\n"
				 "counter\tcalls\tfsync\t840\n"
				 "counter\tcalls\tsystem.slice_pg.service/fsync\t600\n"
				 "counter\tcalls\tother/fsync\t240\n"
				 "gauge\tmap_fill\tstart_tid\t12.5\n"
				 "gauge\tshare\tsystem.slice_pg.service/fsync\t71.4\n"
				 "histogram\tlatency\tfsync\tnanoseconds\t0\t840\t8400000\t840\t10000\t9000\t20000\t30000\n"
				 "bucket\t14\t840\n"
				 "histogram\tlatency\tsystem.slice_pg.service/fsync\tnanoseconds\t0\t600\t6000000\t600\t10000"
				 "\t9000\t20000\t30000\n"
				 "bucket\t13\t100\n"
				 "bucket\t14\t500\n"
				 "end\n";
	uint32_t cur[MIB_MAX_SUFFIX] = { 0 }, next[MIB_MAX_SUFFIX];
	size_t cur_len = 0, next_len, host = 0, cgroup = 0;
	struct snapshot s;
	struct mib_tree v;
	struct mib_value val;
	struct mib_walk w;
	char err[ERR_MAX];
	FILE *f = fmemopen((void *)cg, strlen(cg), "r");
	bool inclusive = true, in_cgroup = false;

	CHECK(snapshot_parse(f, &s, err, sizeof(err)) == 0);
	fclose(f);
	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
	CHECK_EQ_U64(v.skipped, 0);

	/* Each row in its own table, with its own values; none in the other. */
	CHECK(get_row(&v, 3, 3, "calls", "fsync", 0, &val) == MIB_FOUND && val.num == 840);
	CHECK(get_row(&v, CG | 3, 3, "calls", "system.slice_pg.service/fsync", 0, &val) == MIB_FOUND &&
	      val.type == MIB_COUNTER64 && val.num == 600);
	CHECK(get_row(&v, CG | 3, 4, "calls", "other/fsync", 0, &val) == MIB_FOUND && val.type == MIB_COUNTER32 &&
	      val.num == 240);
	CHECK(get_row(&v, CG | 3, 5, "calls", "other/fsync", 0, &val) == MIB_FOUND);
	CHECK_STR(val.str, "other/fsync");
	CHECK(get_row(&v, 3, 3, "calls", "system.slice_pg.service/fsync", 0, &val) == MIB_NO_SUCH_INSTANCE);
	CHECK(get_row(&v, CG | 3, 3, "calls", "fsync", 0, &val) == MIB_NO_SUCH_INSTANCE);
	CHECK(get_row(&v, 4, 4, "latency", "fsync", 0, &val) == MIB_FOUND && val.num == 840);
	CHECK(get_row(&v, CG | 4, 4, "latency", "system.slice_pg.service/fsync", 0, &val) == MIB_FOUND &&
	      val.num == 600);
	CHECK(get_row(&v, CG | 4, 13, "latency", "system.slice_pg.service/fsync", 0, &val) == MIB_FOUND &&
	      val.type == MIB_GAUGE32 && val.num == 30);
	CHECK(get_row(&v, 4, 4, "latency", "system.slice_pg.service/fsync", 0, &val) == MIB_NO_SUCH_INSTANCE);
	/* buckets: slot 13 is the cgroup's alone; (8192, 16384] at precision 0 */
	CHECK(get_row(&v, CG | 5, 4, "latency", "system.slice_pg.service/fsync", 13, &val) == MIB_FOUND &&
	      val.num == 100);
	CHECK(get_row(&v, CG | 5, 3, "latency", "system.slice_pg.service/fsync", 14, &val) == MIB_FOUND &&
	      val.num == 16384);
	CHECK(get_row(&v, 5, 4, "latency", "fsync", 14, &val) == MIB_FOUND && val.num == 840);
	CHECK(get_row(&v, 5, 4, "latency", "fsync", 13, &val) == MIB_NO_SUCH_INSTANCE);
	CHECK(get_row(&v, 5, 4, "latency", "system.slice_pg.service/fsync", 13, &val) == MIB_NO_SUCH_INSTANCE);
	CHECK(get_row(&v, 6, 3, "map_fill", "start_tid", 0, &val) == MIB_FOUND && val.num == 12);
	CHECK(get_row(&v, CG | 6, 3, "share", "system.slice_pg.service/fsync", 0, &val) == MIB_FOUND && val.num == 71);
	CHECK(get_row(&v, CG | 6, 4, "share", "system.slice_pg.service/fsync", 0, &val) == MIB_FOUND);
	CHECK_STR(val.str, "71.4");
	CHECK(get_row(&v, 6, 3, "share", "system.slice_pg.service/fsync", 0, &val) == MIB_NO_SUCH_INSTANCE);

	/* The walk: every host-wide row, then the per-cgroup ones, none of those before 1.8; and
	 * nothing outside 1.8 (an OID's arcs, a string value) names a cgroup. */
	CHECK(mib_walk_all(&v, &env, 1000, &w) == NULL);
	CHECK_EQ_U64(w.per_table[3], 1 * 3);
	CHECK_EQ_U64(w.per_table[4], 1 * 12);
	CHECK_EQ_U64(w.per_table[5], 1 * 4);
	CHECK_EQ_U64(w.per_table[6], 1 * 3);
	CHECK_EQ_U64(w.per_cgroup_table[1], 2 * 3);
	CHECK_EQ_U64(w.per_cgroup_table[2], 1 * 12);
	CHECK_EQ_U64(w.per_cgroup_table[3], 2 * 4);
	CHECK_EQ_U64(w.per_cgroup_table[4], 1 * 3);
	while (mib_tree_next(&v, &env, cur, cur_len, inclusive, next, &next_len, &val) == MIB_FOUND) {
		bool under = next_len > 1 && next[1] == 8;

		CHECK(!in_cgroup || under); /* once in 1.8, the walk stays there */
		in_cgroup = under;
		if (!under) {
			for (size_t i = 0; i < next_len; i++)
				CHECK(next[i] != '/');
			CHECK(val.type != MIB_STRING || (!strchr(val.str, '/') && !strstr(val.str, "slice")));
		}
		*(under ? &cgroup : &host) += 1;
		memcpy(cur, next, next_len * sizeof(*cur));
		cur_len = next_len;
		inclusive = false;
	}
	CHECK_EQ_U64(host, 3 + 4 + 3 + 12 + 4 + 3);
	CHECK_EQ_U64(cgroup, 6 + 12 + 8 + 3);
	/* After the host-wide tables' last OID, the first per-cgroup one: ebpfCgroupCounterValue */
	CHECK(mib_tree_next(&v, &env, (uint32_t[]){ 1, 7 }, 2, false, next, &next_len, &val) == MIB_FOUND);
	CHECK(next[1] == 8 && next[2] == 1 && next[3] == 1 && next[4] == 3 && val.num == 240); /* other/ first */
	mib_tree_free(&v);
	snapshot_free(&s);
}

/* A per-cgroup row's OID has one arc more than its host-wide twin's (1.8.<table>.1.<col>): a
 * bucket row of the longest names the index allows is 121 arcs below the base, served under
 * the default base (122 arcs of room), left out under a base of 8 arcs (120), where its
 * host-wide twin (120 arcs) is still served. */
static void test_cgroup_room(void)
{
	struct snapshot_bucket bucket = { .slot = 0, .count = 1 };
	struct snapshot_histogram h[2] = { { .unit = SNAPSHOT_UNIT_BYTES, .count = 1, .nbuckets = 1 },
					   { .unit = SNAPSHOT_UNIT_BYTES, .count = 1, .nbuckets = 1 } };
	struct snapshot_bucket buckets[2] = { bucket, bucket };
	struct snapshot_module m = { .label = "", .histograms = h, .nhistograms = 2, .buckets = buckets, .nbuckets = 2 };
	struct snapshot s = { .modules = &m, .nmodules = 1, .written_us = 1 };
	struct mib_tree v;
	struct mib_walk w;

	memset(m.label, 'a', 32);
	for (int i = 0; i < 2; i++) {
		memset(h[i].metric, 'b', 32);
		memset(h[i].instance, 'c', 48);
		h[i].first_bucket = i;
	}
	h[1].instance[20] = '/'; /* a cgroup of 20 bytes: "ccc.../ccc..." */

	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
	CHECK(mib_walk_all(&v, &env, 1000, &w) == NULL);
	CHECK_EQ_U64(v.skipped, 0);
	CHECK_EQ_U64(w.per_table[5], 4);
	CHECK_EQ_U64(w.per_cgroup_table[3], 4);
	mib_tree_free(&v);

	CHECK(mib_tree_build(&v, &s, MIB_SNAPSHOT_OK, "", MIB_MAX_OID - 8) == 0);
	CHECK(mib_walk_all(&v, &env, 1000, &w) == NULL);
	CHECK_EQ_U64(v.skipped, 1);
	CHECK_EQ_U64(w.per_table[5], 4);
	CHECK_EQ_U64(w.per_cgroup_table[3], 0);
	CHECK_EQ_U64(w.per_cgroup_table[2], 12); /* the histogram's own row (IMPLIED instance) fits */
	mib_tree_free(&v);
}

int main(void)
{
	char err[ERR_MAX];
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	CHECK(snapshot_parse(f, &snap, err, sizeof(err)) == 0);
	fclose(f);
	CHECK(mib_tree_build(&view, &snap, MIB_SNAPSHOT_OK, "", MIB_MAX_SUFFIX) == 0);
	test_get();
	test_walk();
	test_base_room();
	test_age_extremes();
	test_skipped_named();
	test_long_strings();
	test_gauges();
	test_long_instances();
	test_index_collision();
	test_cgroup_tables();
	test_cgroup_room();
	mib_tree_free(&view);
	snapshot_free(&snap);
	test_cache();
	test_cache_stale();
	return testing_done();
}
