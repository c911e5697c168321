/* Root test: vfs with By "cgroup" in the running kernel, every attach method. Cgroups made
 * here under a private parent in the cgroup2 mount: `home`, where this process lives for the
 * whole test, and a, b and c, which it visits. The module counts this process only, so every
 * call it counts is in one of the parent's children, all of them selected:
 *
 *   - a visit to a cgroup is one write of one byte into its cgroup.procs (opened before the
 *     module started), counted for the cgroup it arrives in, then a known workload there
 *     (reads of a cached file, failing reads, writes, fsyncs, opens; k times more in the k-th
 *     cgroup), then the write back home, counted for home: each visited cgroup's series is
 *     exactly its workload and its arrival;
 *   - the host-wide rows are the sum of the cgroups' exactly (calls, errors, latency and
 *     bytes, counts and sums): By "cgroup" takes nothing from them and puts nothing elsewhere;
 *   - with MaxSeries 3 the cgroups met in the first read (home, a, b) have series and c,
 *     met later, is `other`, exactly, with folded 1;
 *   - the per-cgroup rows at CgroupPrecision 2, the host-wide at the default 5: each sample
 *     of the host-wide latency and bytes rows is in its cgroup's row, in the slot at 2 of its
 *     own value (a's 4096-byte reads all in the slot of 4096);
 *   - a cgroup outside the Cgroup glob takes no row (the filter in the kernel);
 *   - with By "cgroup" off none of its maps is created (the programs load without them: the
 *     verifier drops the per-cgroup path) and tuning without it is refused. */
#include "libcore/engine/module.h"
#include "tests/support/module_test.h"
#include "tests/support/test_cgroups.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"

#include <fcntl.h>

enum { PAGES = 16, R = 40, B = 10, W = 20, WS = 512, F = 4, O = 6 };

static const char *const ops[4] = { "read", "write", "fsync", "open" };

/* What one instance prefix (a cgroup as sent, "other", or NULL: host-wide) holds per op. */
struct op_values {
	uint64_t calls, errors, latencies, latency_ns, reads_bytes_count, bytes;
};

struct values {
	struct op_values op[4];
};

static char path[] = "/var/tmp/ebpf-test-vfscg-XXXXXX";
static int file_fd, wronly_fd;
static struct tcg_visits cg;

static struct values values_of(const struct recording *r, const char *prefix)
{
	struct values v = { 0 };

	for (int i = 0; i < 4; i++) {
		char inst[600];
		const struct hist_interval *lat, *bytes;

		if (prefix)
			snprintf(inst, sizeof(inst), "%s/%s", prefix, ops[i]);
		else
			snprintf(inst, sizeof(inst), "%s", ops[i]);
		lat = recorded_histogram(r, "latency", inst, HIST_UNIT_NANOSECONDS);
		bytes = recorded_histogram(r, "bytes", inst, HIST_UNIT_BYTES);
		v.op[i] = (struct op_values){ .calls = recorded_counter(r, "calls", inst),
					      .errors = recorded_counter(r, "errors", inst),
					      .latencies = lat ? lat->total_count : 0,
					      .latency_ns = lat ? lat->total_sum : 0,
					      .reads_bytes_count = bytes ? bytes->total_count : 0,
					      .bytes = bytes ? bytes->total_sum : 0 };
	}
	return v;
}

static void add_values(struct values *to, const struct values *from)
{
	for (int i = 0; i < 4; i++) {
		to->op[i].calls += from->op[i].calls;
		to->op[i].errors += from->op[i].errors;
		to->op[i].latencies += from->op[i].latencies;
		to->op[i].latency_ns += from->op[i].latency_ns;
		to->op[i].reads_bytes_count += from->op[i].reads_bytes_count;
		to->op[i].bytes += from->op[i].bytes;
	}
}

/* What a visit with workload k leaves in the cgroup visited (latency sums are not known). */
static struct values visit_values(int k)
{
	struct values v = { 0 };

	v.op[0] = (struct op_values){ .calls = (R + B) * k, .errors = B * k, .latencies = (R + B) * k,
				      .reads_bytes_count = R * k, .bytes = (uint64_t)R * k * 4096 };
	/* and the arrival: one write of "0" into cgroup.procs */
	v.op[1] = (struct op_values){ .calls = W * k + 1, .latencies = W * k + 1, .reads_bytes_count = W * k + 1,
				      .bytes = (uint64_t)W * k * WS + 1 };
	v.op[2] = (struct op_values){ .calls = F * k, .latencies = F * k };
	v.op[3] = (struct op_values){ .calls = O * k, .latencies = O * k };
	return v;
}

/* Everything but the latency sums, which only the host-wide comparison knows. */
static void check_values(const char *what, const struct values *got, const struct values *want, bool with_ns)
{
	for (int i = 0; i < 4; i++) {
		const struct op_values *g = &got->op[i], *w = &want->op[i];

		if (g->calls != w->calls || g->errors != w->errors || g->latencies != w->latencies ||
		    g->reads_bytes_count != w->reads_bytes_count || g->bytes != w->bytes ||
		    (with_ns && g->latency_ns != w->latency_ns))
			fprintf(stderr, "%s %s: calls %llu/%llu errors %llu/%llu latencies %llu/%llu bytes %llu/%llu "
				"(%llu/%llu calls)\n", what, ops[i], (unsigned long long)g->calls,
				(unsigned long long)w->calls, (unsigned long long)g->errors,
				(unsigned long long)w->errors, (unsigned long long)g->latencies,
				(unsigned long long)w->latencies, (unsigned long long)g->bytes,
				(unsigned long long)w->bytes, (unsigned long long)g->reads_bytes_count,
				(unsigned long long)w->reads_bytes_count);
		CHECK_EQ_U64(g->calls, w->calls);
		CHECK_EQ_U64(g->errors, w->errors);
		CHECK_EQ_U64(g->latencies, w->latencies);
		CHECK_EQ_U64(g->reads_bytes_count, w->reads_bytes_count);
		CHECK_EQ_U64(g->bytes, w->bytes);
		if (with_ns)
			CHECK_EQ_U64(g->latency_ns, w->latency_ns);
	}
}

/* Into the cgroup of `procs_fd`, workload k there, back home. Nothing in it may read, write,
 * fsync or open but the workload (no output). */
static void visit(int procs_fd, int k)
{
	char buf[4096] = { 0 };
	int ok = tcg_join_fd(procs_fd) == 0;

	for (int i = 0; i < R * k; i++)
		ok &= pread(file_fd, buf, sizeof(buf), (off_t)(i % PAGES) * 4096) == (ssize_t)sizeof(buf);
	for (int i = 0; i < B * k; i++)
		ok &= read(wronly_fd, buf, 1) == -1;
	for (int i = 0; i < W * k; i++)
		ok &= pwrite(wronly_fd, buf, WS, (off_t)i * WS) == WS;
	for (int i = 0; i < F * k; i++)
		ok &= fsync(wronly_fd) == 0;
	for (int i = 0; i < O * k; i++) {
		int f = open(path, O_RDONLY);

		ok &= f >= 0;
		if (f >= 0)
			close(f);
	}
	ok &= tcg_join_fd(cg.procs[0]) == 0;
	CHECK(ok);
}

static struct module *cgroup_vfs(const char *method, int max_series)
{
	struct module *m = mt_module("vfs", method, NULL);

	if (m) {
		tcg_select(m, max_series);
		tcg_option(m, "CgroupPrecision", NULL, TCG_CGROUP_PRECISION);
	}
	return m;
}

/* Each op's latency and bytes rows of `prefixes` (n cgroups as sent) at the per-cgroup
 * precision, every sample in the slot of its value, the host-wide rows being their sum; the
 * first prefix's 4096-byte reads, k x R, all in the slot of 4096. */
static void check_slots(const struct recording *r, const char *const *prefixes, int n, int k)
{
	static const char *const metrics[2] = { "latency", "bytes" };
	static const enum hist_unit units[2] = { HIST_UNIT_NANOSECONDS, HIST_UNIT_BYTES };
	const struct hist_interval *reads;
	char inst[600];

	for (int i = 0; i < 4; i++)
		for (int h = 0; h < 2; h++) {
			const struct hist_interval *parts[4] = { NULL };

			if (h == 1 && i != 0 && i != 1) /* bytes: read and write only */
				continue;
			for (int c = 0; c < n && c < 4; c++) {
				snprintf(inst, sizeof(inst), "%s/%s", prefixes[c], ops[i]);
				parts[c] = recorded_histogram(r, metrics[h], inst, units[h]);
			}
			snprintf(inst, sizeof(inst), "%s %s", metrics[h], ops[i]);
			tcg_check_folded(inst, recorded_histogram(r, metrics[h], ops[i], units[h]), parts, n,
					 TCG_CGROUP_PRECISION);
		}
	snprintf(inst, sizeof(inst), "%s/read", prefixes[0]);
	reads = recorded_histogram(r, "bytes", inst, HIST_UNIT_BYTES);
	CHECK(reads != NULL);
	if (reads)
		CHECK_EQ_U64(reads->slots[hist_slot_p(4096, TCG_CGROUP_PRECISION)], (uint64_t)R * k);
}

/* No instance of the recording names a cgroup other than `allowed` (n of them). */
static void check_only(const struct recording *r, const char *const *allowed, int n)
{
	for (int i = 0; i < r->n; i++) {
		bool ok = !strchr(r->values[i].instance, '/');

		for (int j = 0; j < n && !ok; j++)
			ok = !strncmp(r->values[i].instance, allowed[j], strlen(allowed[j])) &&
			     r->values[i].instance[strlen(allowed[j])] == '/';
		if (!ok)
			fprintf(stderr, "unexpected series %s-%s\n", r->values[i].metric, r->values[i].instance);
		CHECK(ok);
	}
}

/* The host-wide values are the sum of the series' (`prefixes`, n of them) exactly. */
static void check_sum(const struct recording *r, const char *const *prefixes, int n)
{
	struct values sum = { 0 }, host = values_of(r, NULL);

	for (int i = 0; i < n; i++) {
		struct values v = values_of(r, prefixes[i]);

		add_values(&sum, &v);
	}
	check_values("host-wide", &host, &sum, true);
	CHECK(host.op[0].calls > 0);
}

static int rows_everywhere(struct module *m, uint64_t id)
{
	return tcg_rows_of(m, "cgroup_counts", id) + tcg_rows_of(m, "cgroup_latency", id) +
	       tcg_rows_of(m, "cgroup_bytes", id);
}

/* A cgroup outside the glob (a sibling of the parent), visited by m's process: no row from
 * its first event (the glob names the parent: the kernel leaves the rest out, cgroup_select),
 * and never a series. */
static void check_unselected(struct module *m)
{
	struct recording r = { 0 };
	uint64_t id = tcg_inode(cg.out);

	visit(cg.out_procs, 1);
	CHECK_EQ_U64(rows_everywhere(m, id), 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(rows_everywhere(m, id), 0);
	visit(cg.out_procs, 1);
	CHECK_EQ_U64(rows_everywhere(m, id), 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
	for (int i = 0; i < r.n; i++)
		CHECK(!strstr(r.values[i].instance, "-out"));
	recording_free(&r);
}

/* One module per method (the kernel matrix gives a method 240 s, and 5.10 verifies the
 * eight syscall programs slowly under emulation), MaxSeries 3: home, a and b, met in the
 * first read, have series, each exact, and the host-wide values are their sum; c, met later,
 * is `other`, exactly; a second visit to a goes on from where it was; then a cgroup outside
 * the glob. */
static void run_method(const char *method)
{
	int before = testing_failures;
	struct module *m = cgroup_vfs(method, 3);
	const char *const first[] = { cg.names[0], cg.names[1], cg.names[2] };
	const char *const all[] = { cg.names[0], cg.names[1], cg.names[2], "other" };
	struct recording r = { 0 };
	struct values got, want;
	double folded = -1;

	if (!m || !mt_start(m, "test_vfs_cgroup", method, before, NULL))
		return;
	tcg_check_precisions(m, (const char *const[]){ "cgroup_latency", "cgroup_bytes" }, 2);
	visit(cg.procs[1], 1);
	visit(cg.procs[2], 2);
	CHECK(recording_read(&r, m) == 0);
	check_slots(&r, (const char *const[]){ cg.names[1], cg.names[2], cg.names[0] }, 3, 1);
	for (int k = 1; k <= 2; k++) {
		got = values_of(&r, cg.names[k]);
		want = visit_values(k);
		check_values(cg.names[k], &got, &want, false);
	}
	check_sum(&r, first, 3);
	check_only(&r, first, 3);
	CHECK(!recorded_gauge(&r, "folded", "cgroups", &folded));

	visit(cg.procs[3], 3);
	CHECK(recording_read(&r, m) == 0);
	got = values_of(&r, "other");
	want = visit_values(3);
	check_values("other", &got, &want, false);
	CHECK(recorded_gauge(&r, "folded", "cgroups", &folded) && folded == 1);
	check_sum(&r, all, 4);
	check_only(&r, all, 4);
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
	printf("  %s: a %llu reads %llu writes, b %llu reads, other (c) %llu reads; host-wide %llu reads = their sum\n",
	       method, (unsigned long long)values_of(&r, cg.names[1]).op[0].calls,
	       (unsigned long long)values_of(&r, cg.names[1]).op[1].calls,
	       (unsigned long long)values_of(&r, cg.names[2]).op[0].calls, (unsigned long long)got.op[0].calls,
	       (unsigned long long)values_of(&r, NULL).op[0].calls);

	visit(cg.procs[1], 1);
	CHECK(recording_read(&r, m) == 0);
	got = values_of(&r, cg.names[1]);
	want = visit_values(1);
	add_values(&want, &want);
	check_values(cg.names[1], &got, &want, false);
	check_sum(&r, all, 4);
	check_unselected(m);
	recording_free(&r);
	mt_result("test_vfs_cgroup", method, before, NULL);
	module_free(m);
}

/* Off (the default): none of the per-cgroup maps is created; tuning without By is refused. */
static void test_off(void)
{
	static const char *const maps[] = { "cgroup_counts", "cgroup_latency", "cgroup_bytes",
					    "cgroup_zero",   "cgroup_full",    "cgroup_ignored" };
	struct module *m = module_new(module_find("vfs"), NULL);

	m->filter_tgid = getpid();
	tcg_check_off(m, maps, COUNT_OF(maps));
	m = module_new(module_find("vfs"), NULL);
	tcg_option(m, "CgroupDepth", NULL, 3);
	CHECK(module_start(m) == -1);
	CHECK(strstr(m->last_error, "By \"cgroup\"") != NULL);
	module_free(m);
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "tp_btf", "raw_tp", "tracepoint", NULL };
	struct method_list ml;

	mt_require_root();
	methods_from(argc, argv, defaults, &ml);
	mt_log_reset();
	/* Depth 2 is our cgroups: the private parent is at depth 1. */
	tcg_setup("ebpf-test-vfscg");

	file_fd = testing_temp_file(path);
	testing_cached_pages(file_fd, PAGES);
	wronly_fd = open(path, O_WRONLY);
	CHECK(wronly_fd >= 0);

	tcg_visits_setup(&cg);
	for (int i = 0; i < ml.n; i++)
		run_method(ml.names[i]);
	test_off();
	tcg_visits_teardown(&cg);
	close(wronly_fd);
	close(file_fd);
	unlink(path);
	return testing_done();
}
