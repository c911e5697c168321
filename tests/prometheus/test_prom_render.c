/* collectd-ebpf-prometheus's page from snapshots of known content (prometheus/prom_render.h):
 * names with units and _total, labels apart and escaped (a hostile value never breaks a
 * line, never reaches the page as invalid UTF-8), histograms cumulative with every le a
 * real slot bound and +Inf = _count, OpenMetrics' # EOF, snapshot_up 0 without a snapshot,
 * a label set twice left out; and the command line (prom_args.h). */
#include "prometheus/prom_args.h"
#include "prometheus/prom_render.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

static int parse_text(const char *text, struct snapshot *s)
{
	char err[ERR_MAX];
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = snapshot_parse(f, s, err, sizeof(err));

	if (r)
		fprintf(stderr, "parse: %s\n", err);
	fclose(f);
	return r;
}

static const char snap_text[] =
	"collectd-ebpf-snapshot\t3\nwritten\t1700000000000000\n"
	"module\tsyscalls\trunning\t1700000000000000\tsys_exit=tp_btf\t\n"
	"counter\tcalls\tfsync\t300\tsyscall=fsync\n"
	"counter\tcalls\tpg/fsync\t120\tcgroup=pg\tsyscall=fsync\n"
	"counter\tcalls\tpg/fsync\t7\tcgroup=pg\tsyscall=fsync\n" /* the same label set again */
	"counter\trun_time\tsys_exit\t1500000000\tkind=sys_exit\n"
	"counter\terrors\tx\t2\tsyscall=caf\xc3\xa9\xff\x1b[2J\n" /* raw bytes a hostile file may hold */
	"gauge\tmap_fill\tcounts\t12.5\tkind=counts\n"
	/* precision 0: slot i holds (2^(i-1), 2^i]; 3 in slot 10 (512, 1024], 1 in slot 12 */
	"histogram\tlatency\tfsync\tnanoseconds\t0\t4\t4000\t4\t1000\t1000\t2000\t4000\tsyscall=fsync\n"
	"bucket\t10\t3\nbucket\t12\t1\n"
	"histogram\tlatency\tbad\tnanoseconds\t0\t1\t1\t0\t-\t-\t-\t-\tsyscall=a\"b\\\\c\\nd\\\\xff\tle=5\t__name__=x\n"
	"bucket\t0\t1\n"
	"histogram\tio_size\tloop0-write\tbytes\t0\t2\t8192\t0\t-\t-\t-\t-\tdisk=loop0\top=write\t@help=Size of a block IO\n"
	"bucket\t12\t2\n"
	"end\n";

/* The line of page that starts with `start`, NULL without it. */
static const char *line_of(const char *page, const char *start)
{
	size_t n = strlen(start);

	for (const char *p = page; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, start, n))
			return p;
	return NULL;
}

static void test_text(void)
{
	struct snapshot s;
	struct prom_status st = { .up = 1, .error = "", .scrapes = 3 };
	struct prom_text page = { 0 };

	CHECK(parse_text(snap_text, &s) == 0);
	CHECK(prom_render(&s, &st, PROM_TEXT, PROM_BUCKETS_POW4, &page) == 1); /* the label set twice */
	CHECK(page.buf != NULL);
	if (!page.buf)
		return;
	static const char *const want[] = {
		"# TYPE collectd_ebpf_syscalls_calls_total counter\n",
		"collectd_ebpf_syscalls_calls_total{module=\"syscalls\",cgroup=\"pg\",syscall=\"fsync\"} 120\n",
		"collectd_ebpf_syscalls_calls_total{module=\"syscalls\",syscall=\"fsync\"} 300\n",
		"collectd_ebpf_prometheus_series_skipped 1\n",
		/* units: ns counters in seconds, percent as a ratio */
		"collectd_ebpf_syscalls_run_time_seconds_total{module=\"syscalls\",kind=\"sys_exit\"} 1.5\n",
		"collectd_ebpf_syscalls_map_fill_ratio{module=\"syscalls\",kind=\"counts\"} 0.125\n",
		/* the histogram: pow4 bounds 1, 4, ... ns; 1024 ns = 2^10 is one; cumulative */
		"# TYPE collectd_ebpf_syscalls_latency_seconds histogram\n",
		"collectd_ebpf_syscalls_latency_seconds_bucket{module=\"syscalls\",syscall=\"fsync\",le=\"2.56e-07\"} 0\n",
		"collectd_ebpf_syscalls_latency_seconds_bucket{module=\"syscalls\",syscall=\"fsync\",le=\"1.024e-06\"} 3\n",
		"collectd_ebpf_syscalls_latency_seconds_bucket{module=\"syscalls\",syscall=\"fsync\",le=\"4.096e-06\"} 4\n",
		"collectd_ebpf_syscalls_latency_seconds_bucket{module=\"syscalls\",syscall=\"fsync\",le=\"+Inf\"} 4\n",
		"collectd_ebpf_syscalls_latency_seconds_sum{module=\"syscalls\",syscall=\"fsync\"} 4e-06\n",
		"collectd_ebpf_syscalls_latency_seconds_count{module=\"syscalls\",syscall=\"fsync\"} 4\n",
		/* a hostile label value: escaped, one line, the snapshot's \xff text kept as text; a
		 * program's labels named le and __name__ renamed */
		"collectd_ebpf_syscalls_latency_seconds_count{module=\"syscalls\",syscall=\"a\\\"b\\\\c\\nd\\\\xff\",exported_le=\"5\","
		"exported___name__=\"x\"} 1\n",
		/* not UTF-8, a control: as the text \xHH, valid UTF-8 kept */
		"collectd_ebpf_syscalls_errors_total{module=\"syscalls\",syscall=\"caf\xc3\xa9\\\\xff\\\\x1b[2J\"} 2\n",
		/* bytes, a help note */
		"# HELP collectd_ebpf_syscalls_io_size_bytes Size of a block IO\n",
		"collectd_ebpf_syscalls_io_size_bytes_bucket{module=\"syscalls\",disk=\"loop0\",op=\"write\",le=\"4096\"} 2\n",
		"collectd_ebpf_module_state{module=\"syscalls\",state=\"running\"} 1\n",
		"collectd_ebpf_snapshot_up 1\n",
		"collectd_ebpf_prometheus_scrapes_total 3\n",
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *found = line_of(page.buf, want[i]);

		CHECK(found != NULL);
		if (!found)
			fprintf(stderr, "missing: %s", want[i]);
	}
	CHECK(line_of(page.buf, "collectd_ebpf_syscalls_calls_total{module=\"syscalls\",cgroup=\"pg\",syscall=\"fsync\"} 7") == NULL);
	CHECK(line_of(page.buf, "collectd_ebpf_syscalls_latency_seconds_bucket{module=\"syscalls\",syscall=\"fsync\",le=\"2.048e-06\"") == NULL);
	CHECK(strstr(page.buf, "# EOF") == NULL);
	prom_text_free(&page);

	/* every slot: precision 0's bounds are powers of 2, 2048 ns among them */
	CHECK(prom_render(&s, &st, PROM_TEXT, PROM_BUCKETS_ALL, &page) == 1);
	CHECK(line_of(page.buf, "collectd_ebpf_syscalls_latency_seconds_bucket{module=\"syscalls\",syscall=\"fsync\",le=\"2.048e-06\"} 3\n") != NULL);
	prom_text_free(&page);

	/* OpenMetrics: the counter family without _total, its samples with; UNIT; # EOF last */
	CHECK(prom_render(&s, &st, PROM_OPENMETRICS, PROM_BUCKETS_POW4, &page) == 1);
	CHECK(line_of(page.buf, "# TYPE collectd_ebpf_syscalls_calls counter\n") != NULL);
	CHECK(line_of(page.buf, "collectd_ebpf_syscalls_calls_total{module=\"syscalls\",syscall=\"fsync\"} 300\n") != NULL);
	CHECK(line_of(page.buf, "# UNIT collectd_ebpf_syscalls_latency_seconds seconds\n") != NULL);
	CHECK(page.len >= 6 && !strcmp(page.buf + page.len - 6, "# EOF\n"));
	prom_text_free(&page);
	snapshot_free(&s);
}

/* No snapshot: the page still answers, snapshot_up 0 with the reason, escaped. */
static void test_down(void)
{
	struct prom_status st = { .up = 0, .error = "cannot open /x\"y: No such file", .scrapes = 1, .read_errors = 1 };
	struct prom_text page = { 0 };

	CHECK(prom_render(NULL, &st, PROM_TEXT, PROM_BUCKETS_POW4, &page) == 0);
	CHECK(line_of(page.buf, "collectd_ebpf_snapshot_up{error=\"cannot open /x\\\"y: No such file\"} 0\n") != NULL);
	CHECK(line_of(page.buf, "collectd_ebpf_prometheus_snapshot_read_errors_total 1\n") != NULL);
	CHECK(line_of(page.buf, "collectd_ebpf_syscalls") == NULL);
	prom_text_free(&page);
}

static void test_formats_and_args(void)
{
	struct prom_args a;
	char err[ERR_MAX];
	char *ok[] = { "p", "--snapshot=/run/s", "--listen=[::1]:9999", "--buckets=all", NULL };
	char *bad_listen[] = { "p", "--listen=127.0.0.1", NULL };
	char *bad_port[] = { "p", "--listen=127.0.0.1:70000", NULL };
	char *bad_buckets[] = { "p", "--buckets=pow3", NULL };
	char *relative[] = { "p", "--snapshot=snap", NULL };

	CHECK(prom_format_for(NULL) == PROM_TEXT);
	CHECK(prom_format_for("text/plain;version=0.0.4;q=0.5,*/*;q=0.1") == PROM_TEXT);
	CHECK(prom_format_for("application/openmetrics-text;version=1.0.0,text/plain;q=0.5") == PROM_OPENMETRICS);
	CHECK(!strcmp(prom_content_type(PROM_TEXT), "text/plain; version=0.0.4; charset=utf-8"));
	CHECK(prom_args_parse(4, ok, &a, err, sizeof(err)) == 0);
	CHECK(!strcmp(a.snapshot, "/run/s") && !strcmp(a.host, "::1") && !strcmp(a.port, "9999"));
	CHECK(a.buckets == PROM_BUCKETS_ALL);
	CHECK(prom_args_parse(1, ok, &a, err, sizeof(err)) == 0);
	CHECK(!strcmp(a.host, "127.0.0.1") && !strcmp(a.port, PROM_DEFAULT_PORT) && a.buckets == PROM_BUCKETS_POW4);
	CHECK(prom_args_parse(2, bad_listen, &a, err, sizeof(err)) == -1 && strstr(err, "expected ADDRESS:PORT"));
	CHECK(prom_args_parse(2, bad_port, &a, err, sizeof(err)) == -1 && strstr(err, "1 to 65535"));
	CHECK(prom_args_parse(2, bad_buckets, &a, err, sizeof(err)) == -1 && strstr(err, "pow4"));
	CHECK(prom_args_parse(2, relative, &a, err, sizeof(err)) == -1 && strstr(err, "absolute path"));
}

/* A program of ebpf_exporter's YAML ("@family" notes, bound lines): its names as
 * ebpf_exporter writes them, the counter as named (with _total or not), the histogram's own
 * le set with the bound lines' counts, whatever --buckets says, and no module label. */
static void test_exporter_names(void)
{
	static const char text[] =
		"collectd-ebpf-snapshot\t3\nwritten\t1700000000000000\n"
		"module\tbio\trunning\t1700000000000000\t\t\n"
		"counter\tsyscalls_total\tsyscalls-write\t12\t@family=ebpf_exporter_syscalls_total\t@help=Calls\tsyscall=write\n"
		"counter\tpages\tpages\t5\t@family=ebpf_exporter_pages\t@help=Pages\n"
		"histogram\tlatency\tbio_latency-sda-read\tnanoseconds\t0\t3\t7000\t0\t-\t-\t-\t-"
		"\t@family=ebpf_exporter_bio_latency_seconds\t@help=Block IO latency\tdevice=sda\toperation=read\n"
		"bucket\t10\t2\nbucket\t12\t1\nbound\t1e-06\t2\nbound\t2e-06\t2\nbound\t4e-06\t3\n"
		"end\n";
	struct snapshot s;
	struct prom_status st = { .up = 1, .error = "", .scrapes = 1 };
	struct prom_text page = { 0 };

	CHECK(parse_text(text, &s) == 0);
	CHECK(prom_render(&s, &st, PROM_TEXT, PROM_BUCKETS_ALL, &page) == 0);
	CHECK(line_of(page.buf, "# TYPE ebpf_exporter_syscalls_total counter\n") != NULL);
	CHECK(line_of(page.buf, "ebpf_exporter_syscalls_total{syscall=\"write\"} 12\n") != NULL);
	CHECK(line_of(page.buf, "# TYPE ebpf_exporter_pages counter\n") != NULL);
	CHECK(line_of(page.buf, "ebpf_exporter_pages 5\n") != NULL);
	CHECK(line_of(page.buf, "# HELP ebpf_exporter_bio_latency_seconds Block IO latency\n") != NULL);
	CHECK(line_of(page.buf, "ebpf_exporter_bio_latency_seconds_bucket{device=\"sda\",operation=\"read\",le=\"1e-06\"} 2\n") != NULL);
	CHECK(line_of(page.buf, "ebpf_exporter_bio_latency_seconds_bucket{device=\"sda\",operation=\"read\",le=\"4e-06\"} 3\n") != NULL);
	CHECK(line_of(page.buf, "ebpf_exporter_bio_latency_seconds_bucket{device=\"sda\",operation=\"read\",le=\"+Inf\"} 3\n") != NULL);
	CHECK(line_of(page.buf, "ebpf_exporter_bio_latency_seconds_sum{device=\"sda\",operation=\"read\"} 7e-06\n") != NULL);
	CHECK(line_of(page.buf, "ebpf_exporter_bio_latency_seconds_count{device=\"sda\",operation=\"read\"} 3\n") != NULL);
	/* the bound lines' buckets only: 3 and +Inf */
	CHECK(strstr(page.buf, "le=\"1.024e-06\"") == NULL && strstr(page.buf, "module=\"bio\",device") == NULL);
	prom_text_free(&page);

	/* OpenMetrics: the family less _total; a counter without _total stays its name, unknown */
	CHECK(prom_render(&s, &st, PROM_OPENMETRICS, PROM_BUCKETS_POW4, &page) == 0);
	CHECK(line_of(page.buf, "# TYPE ebpf_exporter_syscalls counter\n") != NULL);
	CHECK(line_of(page.buf, "ebpf_exporter_syscalls_total{syscall=\"write\"} 12\n") != NULL);
	CHECK(line_of(page.buf, "# TYPE ebpf_exporter_pages unknown\n") != NULL);
	CHECK(line_of(page.buf, "ebpf_exporter_pages 5\n") != NULL);
	prom_text_free(&page);
	snapshot_free(&s);
}

int main(void)
{
	test_text();
	test_exporter_names();
	test_down();
	test_formats_and_args();
	return testing_done();
}
