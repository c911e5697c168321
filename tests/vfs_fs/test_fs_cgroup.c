/* Root test: fs with By "cgroup" on a scratch ext4 (loop device), fentry and kprobe (the
 * kernel matrix; "auto" on a kernel with neither must report the module unsupported, as
 * test_fs). Cgroups made here under a private parent in the cgroup2 mount: `home`, where
 * this process lives for the whole test, and a, b and c, which it visits (one write into
 * their cgroup.procs, opened beforehand: cgroupfs, not ext4). In the k-th it opens, writes
 * and fsyncs, and reads an ext4 file N x k times each. The module counts this process only:
 *
 *   - each visited cgroup's ext4-read, -write, -open and -fsync have exactly N x k samples
 *     and calls;
 *   - the host-wide rows hold exactly the sum of the cgroups' (samples, calls, sums);
 *   - the per-cgroup rows at CgroupPrecision 2, the host-wide at the default 5: each sample
 *     of a host-wide row is in its cgroup's row, in the slot at 2 of its own value;
 *   - with MaxSeries 2 home and a (home working on ext4 here) keep the series and b and c
 *     are `other`, exactly their sum, with folded 2;
 *   - a cgroup outside the Cgroup glob takes no row (the filter in the kernel);
 *   - with By "cgroup" off none of its maps is created. */
#include "libcore/engine/module.h"
#include "tests/support/loop_ext4.h"
#include "tests/support/module_test.h"
#include "tests/support/test_cgroups.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"

enum { N = 20 };

static const char *const ops[4] = { "read", "write", "open", "fsync" };

static char file[128];
static struct tcg_visits cg;

/* Samples, calls and the latency sum of each ext4 op under an instance prefix (NULL:
 * host-wide). */
struct fs_values {
	uint64_t samples[4], calls[4], ns[4];
};

static struct fs_values values_of(const struct recording *r, const char *prefix)
{
	struct fs_values v = { 0 };

	for (int i = 0; i < 4; i++) {
		char inst[600];
		const struct hist_interval *h;

		snprintf(inst, sizeof(inst), "%s%sext4-%s", prefix ? prefix : "", prefix ? "/" : "", ops[i]);
		h = recorded_histogram(r, "latency", inst, HIST_UNIT_NANOSECONDS);
		v.samples[i] = h ? h->total_count : 0;
		v.ns[i] = h ? h->total_sum : 0;
		v.calls[i] = recorded_counter(r, "calls", inst);
	}
	return v;
}

static void check_counts(const char *what, const struct fs_values *v, uint64_t n)
{
	for (int i = 0; i < 4; i++) {
		if (v->samples[i] != n || v->calls[i] != n)
			fprintf(stderr, "%s ext4-%s: %llu samples, %llu calls, want %llu\n", what, ops[i],
				(unsigned long long)v->samples[i], (unsigned long long)v->calls[i], (unsigned long long)n);
		CHECK_EQ_U64(v->samples[i], n);
		CHECK_EQ_U64(v->calls[i], n);
	}
}

/* The host-wide rows are the sum of the prefixes' (n of them) exactly. */
static void check_sum(const struct recording *r, const char *const *prefixes, int n)
{
	struct fs_values host = values_of(r, NULL), sum = { 0 };

	for (int p = 0; p < n; p++) {
		struct fs_values v = values_of(r, prefixes[p]);

		for (int i = 0; i < 4; i++) {
			sum.samples[i] += v.samples[i];
			sum.calls[i] += v.calls[i];
			sum.ns[i] += v.ns[i];
		}
	}
	for (int i = 0; i < 4; i++) {
		CHECK_EQ_U64(host.samples[i], sum.samples[i]);
		CHECK_EQ_U64(host.calls[i], sum.calls[i]);
		CHECK_EQ_U64(host.ns[i], sum.ns[i]);
	}
	CHECK(host.samples[0] > 0);
}

/* Into the cgroup of procs_fd, N x k of each ext4 op there, back home. */
static void visit(int procs_fd, int k)
{
	char buf[4096];
	int ok = tcg_join_fd(procs_fd) == 0;

	memset(buf, 'f', sizeof(buf));
	for (int i = 0; i < N * k; i++) {
		int fd = open(file, O_RDWR | O_CREAT, 0600);

		ok &= fd >= 0 && pwrite(fd, buf, sizeof(buf), (off_t)(i % 8) * 4096) == sizeof(buf) && fsync(fd) == 0 &&
		      pread(fd, buf, sizeof(buf), (off_t)(i % 8) * 4096) == sizeof(buf);
		if (fd >= 0)
			close(fd);
	}
	ok &= tcg_join_fd(cg.procs[0]) == 0;
	CHECK(ok);
}

static struct module *cgroup_fs(const char *method, int max_series)
{
	struct module *m = mt_module("fs", method, "Filesystem", "ext4", NULL);

	if (m) {
		tcg_select(m, max_series);
		tcg_option(m, "CgroupPrecision", NULL, TCG_CGROUP_PRECISION);
	}
	return m;
}

/* Each op's per-cgroup rows of `prefixes` (n of them) at the per-cgroup precision, every
 * sample in the slot of its value, the host-wide rows being their sum. */
static void check_slots(const struct recording *r, const char *const *prefixes, int n)
{
	for (int i = 0; i < 4; i++) {
		const struct hist_interval *parts[4] = { NULL };
		char inst[600];

		for (int c = 0; c < n && c < 4; c++) {
			snprintf(inst, sizeof(inst), "%s/ext4-%s", prefixes[c], ops[i]);
			parts[c] = recorded_histogram(r, "latency", inst, HIST_UNIT_NANOSECONDS);
		}
		snprintf(inst, sizeof(inst), "ext4-%s", ops[i]);
		tcg_check_folded(inst, recorded_histogram(r, "latency", inst, HIST_UNIT_NANOSECONDS), parts, n,
				 TCG_CGROUP_PRECISION);
	}
}

/* Each cgroup its series, exact; the host-wide their sum. Then MaxSeries 2 and a cgroup
 * outside the glob. False when the module does not run with this method. */
static bool run_method(const char *method)
{
	const char *const all[] = { cg.names[0], cg.names[1], cg.names[2], cg.names[3] };
	const char *const folded_to[] = { cg.names[0], cg.names[1], "other" };
	int before = testing_failures;
	struct module *m = cgroup_fs(method, 10);
	struct recording r = { 0 };
	struct fs_values got;
	uint64_t id = tcg_inode(cg.out);
	double folded = -1;

	mt_log_reset();
	if (!m || !mt_start(m, "test_fs_cgroup", method, before, (const char *const[]){ "ext4", NULL }))
		return false;
	tcg_check_precisions(m, (const char *const[]){ "cgroup_latency" }, 1);
	for (int k = 1; k <= 3; k++)
		visit(cg.procs[k], k);
	CHECK(recording_read(&r, m) == 0);
	check_slots(&r, all, 4);
	for (int k = 1; k <= 3; k++) {
		got = values_of(&r, cg.names[k]);
		check_counts(cg.names[k], &got, N * k);
	}
	check_sum(&r, all, 4);
	CHECK(!recorded_gauge(&r, "folded", "cgroups", &folded));
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
	printf("  %s: a %llu, b %llu, c %llu ext4 reads; host-wide %llu = their sum\n", method,
	       (unsigned long long)values_of(&r, cg.names[1]).samples[0], (unsigned long long)values_of(&r, cg.names[2]).samples[0],
	       (unsigned long long)values_of(&r, cg.names[3]).samples[0], (unsigned long long)values_of(&r, NULL).samples[0]);
	module_free(m);

	/* MaxSeries 2 (tables for 4 cgroups): home and a, read first, keep them; b and c are
	 * other. Home works on ext4 too, as it does not in the other steps. */
	m = cgroup_fs(method, 2);
	CHECK(module_start(m) == 0);
	visit(cg.procs[0], 1);
	tcg_visits_fold(m, &r, &cg, visit);
	for (int k = 0; k < 2; k++) {
		got = values_of(&r, cg.names[k]);
		check_counts(cg.names[k], &got, N);
	}
	got = values_of(&r, "other");
	check_counts("other", &got, N * 5);
	CHECK(recorded_gauge(&r, "folded", "cgroups", &folded) && folded == 2);
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
	check_sum(&r, folded_to, 3);
	module_free(m);

	/* Outside the glob: no row from its first event (the glob names the parent: the kernel
	 * leaves the rest out, cgroup_select). */
	m = cgroup_fs(method, 0);
	CHECK(module_start(m) == 0);
	visit(cg.out_procs, 1);
	CHECK_EQ_U64(tcg_rows_of(m, "cgroup_latency", id), 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(tcg_rows_of(m, "cgroup_latency", id), 0);
	visit(cg.out_procs, 1);
	CHECK_EQ_U64(tcg_rows_of(m, "cgroup_latency", id), 0);
	CHECK(recording_read(&r, m) == 0);
	for (int i = 0; i < r.n; i++)
		CHECK(!strstr(r.values[i].instance, "-out"));
	module_free(m);
	recording_free(&r);
	mt_result("test_fs_cgroup", method, before, NULL);
	return true;
}

/* Off (the default): none of the per-cgroup maps is created. */
static void test_off(void)
{
	static const char *const maps[] = { "cgroup_latency", "cgroup_zero", "cgroup_full", "cgroup_ignored" };
	struct module *m = mt_module("fs", "auto", "Filesystem", "ext4", NULL);

	tcg_check_off(m, maps, COUNT_OF(maps));
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "auto", NULL };
	struct method_list ml;
	struct loop_ext4 fs;
	bool ran = false;

	mt_require_root();
	methods_from(argc, argv, defaults, &ml);
	/* Mounting first also loads ext4 where it is a module, so /proc/filesystems lists it. */
	if (loop_ext4_setup(&fs, 64))
		mt_skip_all("test_fs_cgroup", &ml, fs.why);
	snprintf(file, sizeof(file), "%s/fs-cgroup-test", fs.mnt);
	/* Depth 2 is our cgroups: the private parent is at depth 1. */
	tcg_setup("ebpf-test-fscg");
	tcg_visits_setup(&cg);
	for (int i = 0; i < ml.n; i++)
		ran |= run_method(ml.names[i]);
	if (ran)
		test_off();
	tcg_visits_teardown(&cg);
	loop_ext4_teardown(&fs);
	return testing_done();
}
