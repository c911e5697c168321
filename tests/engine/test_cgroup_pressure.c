/* Pressure beside the per-cgroup rows (libcore/engine/cgroup_pressure.h), no root: the
 * host's files from a directory the test writes (as /proc/pressure): nothing sent at the
 * first read, then exactly the totals' growth; a file absent or not a pressure file said
 * once, the others still sent; no /proc/pressure at all said once. And the option:
 * Pressure's values, refused without By "cgroup". (The cgroups' own files against the real
 * collectd: tests/runqueue/collectd_runqueue_pressure.sh.) */
#include "base/log.h"
#include "base/options.h"
#include "libcore/engine/cgroup_group.h"
#include "libcore/engine/cgroup_pressure.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"

static char warnings[4096];

static void on_log(enum ebpf_log_level level, const char *msg)
{
	size_t used = strlen(warnings);

	if (level == EBPF_LOG_WARNING)
		snprintf(warnings + used, sizeof(warnings) - used, "%s\n", msg);
}

static int count(const char *needle)
{
	int n = 0;

	for (const char *p = strstr(warnings, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	CHECK(f != NULL);
}

static void test_options(void)
{
	struct cgroup_options o;
	struct opt_value no = { .type = OPT_BOOLEAN, .boolean = false }, text = { .type = OPT_STRING, .string = "x" };
	struct option p_no = { .key = "Pressure", .values = &no, .nvalues = 1 };
	struct option p_text = { .key = "Pressure", .values = &text, .nvalues = 1 };
	char err[512];

	cgroup_options_init(&o);
	o.pressure = true; /* the module's default */
	CHECK(cgroup_options_set(&o, &p_no, err, sizeof(err)) == 1 && !o.pressure);
	CHECK(cgroup_options_check(&o, err, sizeof(err)) == -1 && strstr(err, "Pressure") && strstr(err, "By \"cgroup\""));
	CHECK(cgroup_options_set(&o, &p_text, err, sizeof(err)) == -1 && strstr(err, "Pressure"));
	cgroup_options_free(&o);
}

static void test_host(struct cgroup_group *g)
{
	char dir[] = "/tmp/ebpf-test-pressure.XXXXXX";
	struct recording r = { 0 };
	struct metric_sink sink = recording_sink(&r);
	struct cgroup_pressure *p;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	put(dir, "cpu", "some avg10=1.00 avg60=0.00 avg300=0.00 total=1000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=10\n");
	put(dir, "memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=500\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=5\n");
	/* no io */
	warnings[0] = '\0';
	p = cgroup_pressure_new("runqueue", 4, dir);
	CHECK(p != NULL);
	if (!p)
		return;
	cgroup_pressure_read(p, g, &sink);
	CHECK(r.n == 0); /* the start only */
	CHECK(count("runqueue: Pressure:") == 1 && count("cannot open io") == 1 && count("psi=0") == 1);

	put(dir, "cpu", "some avg10=1.00 avg60=0.00 avg300=0.00 total=1250\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=17\n");
	put(dir, "memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=900\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=5\n");
	recording_clear(&r);
	cgroup_pressure_read(p, g, &sink);
	CHECK_EQ_U64(recorded_counter(&r, "pressure", "cpu-some"), 250);
	CHECK_EQ_U64(recorded_counter(&r, "pressure", "cpu-full"), 7);
	CHECK_EQ_U64(recorded_counter(&r, "pressure", "memory-some"), 400);
	CHECK_EQ_U64(recorded_counter(&r, "pressure", "memory-full"), 0);
	CHECK(recorded_count(&r, RECORDED_COUNTER, "pressure", NULL) == 4); /* no io */
	CHECK(count("runqueue: Pressure:") == 1); /* io's said once */

	/* memory cut short: said once, its counters stay where they were, cpu goes on */
	put(dir, "memory", "some avg10=0.00 avg60=");
	put(dir, "cpu", "some avg10=1.00 avg60=0.00 avg300=0.00 total=1300\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=17\n");
	for (int i = 0; i < 2; i++) {
		recording_clear(&r);
		cgroup_pressure_read(p, g, &sink);
	}
	CHECK_EQ_U64(recorded_counter(&r, "pressure", "cpu-some"), 300);
	CHECK_EQ_U64(recorded_counter(&r, "pressure", "memory-some"), 400);
	CHECK(count("memory is not a pressure file (memory: line 1") == 1);
	CHECK(count("runqueue: Pressure:") == 2);
	cgroup_pressure_free(p);

	/* no directory at all (psi=0): said once */
	warnings[0] = '\0';
	p = cgroup_pressure_new("runqueue", 4, "/nonexistent-pressure");
	for (int i = 0; p && i < 3; i++) {
		recording_clear(&r);
		cgroup_pressure_read(p, g, &sink);
		CHECK(r.n == 0);
	}
	CHECK(count("/nonexistent-pressure: No such file or directory: the host's pressure is not sent") == 1);
	CHECK(count("runqueue: Pressure:") == 1);
	cgroup_pressure_free(p);
	recording_free(&r);
	for (const char *const *f = (const char *const[]){ "cpu", "memory", NULL }; *f; f++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", dir, *f);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	struct cgroup_options o;
	struct cgroup_group *g;
	char err[512];

	ebpf_log_set_handler(on_log);
	test_options();
	cgroup_options_init(&o);
	o.on = true;
	g = cgroup_group_new(&o, "runqueue", -1, -1, 16, err, sizeof(err));
	if (!g) {
		fprintf(stderr, "SKIP: %s\n", err);
		return testing_done();
	}
	cgroup_group_begin_read(g); /* no entries: no places, the host only */
	test_host(g);
	cgroup_group_free(g);
	cgroup_options_free(&o);
	return testing_done();
}
