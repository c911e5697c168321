/* Root test: syscalls with By "cgroup" in the running kernel, every attach method. Two
 * cgroups made here under a private parent in the cgroup2 mount; a child process in each does
 * a known number of fsync() calls (and one cgroup a known number of failing ones): each
 * cgroup's series equals its workload exactly, counts, errors and latency samples. Then:
 * with MaxSeries 1 the second cgroup is `other`, exactly, with the folded count; a removed
 * cgroup's kernel rows are deleted and its series goes on with its last values; made again
 * under its path (a restart), its series goes on from there, each call counted once and its
 * latency only in the interval of its calls; removed for good, its series stops after
 * CGROUP_LINGER_READS reads; churn, and live cgroups in `other` that keep no kernel row; a
 * cgroup outside the selection gets no kernel row, from its first event where the glob
 * names a directory (the filter in the kernel, by the ancestor helper and by CO-RE), else
 * after the first read that finds it; per-cgroup
 * rows at a precision (CgroupPrecision 2) other than the host-wide rows' (5) count and
 * place every sample right; CgroupCalls "latency" keeps a cgroup's counts to the Latency
 * syscalls; options without By "cgroup" are refused; with By "cgroup" off
 * none of its maps exist. */
#include "base/log.h"
#include "bpf/include/cgroup_key.h"
#include "bpf/include/hist_row.h"
#include "libcore/decode/cgroup_paths.h"
#include "libcore/engine/cgroup_group.h"
#include "libcore/engine/cgroup_rows.h"
#include "libcore/engine/module_cgroup.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/privileges.h"
#include "tests/support/attach_methods.h"
#include "tests/support/test_cgroups.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char cg_a[1100], cg_b[1100];
static char name_a[256], name_b[256]; /* as sent: "<parent>_a" */

struct fsyncs {
	int fd, n, nerr;
};

/* n fsync() calls on fd and nerr of fsync(-1). */
static int do_fsyncs(void *arg)
{
	const struct fsyncs *f = arg;

	for (int i = 0; i < f->n; i++)
		if (pwrite(f->fd, "x", 1, i % 4096) != 1 || fsync(f->fd))
			return 4;
	for (int i = 0; i < f->nerr; i++)
		if (fsync(-1) != -1 || errno != EBADF)
			return 5;
	return 0;
}

/* A child joins cgroup `dir`, calls fsync() n times on fd and fsync(-1) nerr times. */
static void workload_in(const char *dir, int fd, int n, int nerr)
{
	struct fsyncs f = { fd, n, nerr };

	tcg_run_in(dir, do_fsyncs, &f);
}

/* syscalls By "cgroup" with the Cgroup glob `glob`. */
static struct module *cgroup_module_glob(const char *method, const char *max_series, bool latency, const char *glob)
{
	struct module *m = module_new(module_find("syscalls"), NULL);
	char err[ERR_MAX] = "";
	struct opt_value v;
	struct option o = { .values = &v, .nvalues = 1 };
	const char *opts[][2] = { { "AttachOrder", method }, { "By", "cgroup" }, { "Cgroup", glob },
				  { "Latency", latency ? "fsync" : NULL } };
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (!opts[i][1])
			continue;
		v = (struct opt_value){ .type = OPT_STRING, .string = opts[i][1] };
		o.key = opts[i][0];
		CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
	}
	v = (struct opt_value){ .type = OPT_NUMBER, .number = atoi(max_series) };
	o.key = "MaxSeries";
	CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
	/* The workloads are other processes: the whole system is counted, the glob keeps ours. */
	m->filter_tgid = 0;
	return m;
}

/* ... with the glob of the test's cgroups, tcg_glob(): every cgroup below the parent. */
static struct module *cgroup_module(const char *method, const char *max_series, bool latency)
{
	char glob[1100];

	return cgroup_module_glob(method, max_series, latency, tcg_glob(glob, sizeof(glob)));
}

static uint64_t counter_of(const struct recording *r, const char *metric, const char *cgroup, const char *sc)
{
	char inst[600];

	snprintf(inst, sizeof(inst), "%s/%s", cgroup, sc);
	return recorded_counter(r, metric, inst);
}

static uint64_t samples_of(const struct recording *r, const char *cgroup)
{
	return tcg_hist_total(r, "latency", cgroup, "fsync");
}

/* The fsync latency events of this read's interval (0 when no histogram was sent). */
static uint64_t interval_of(const struct recording *r, const char *cgroup)
{
	const struct hist_interval *h =
		recorded_histogram(r, "latency", tcg_hist_instance(cgroup, "fsync"), HIST_UNIT_NANOSECONDS);

	return h ? h->count : 0;
}

static int rows_of(struct module *m, uint64_t id)
{
	return tcg_rows_of(m, "cgroup_counts", id);
}

static void make_cgroups(void)
{
	CHECK(mkdir(cg_a, 0755) == 0);
	CHECK(mkdir(cg_b, 0755) == 0);
}

static void run_method(const char *method, bool latency, int fd)
{
	struct module *m;
	struct recording r = { 0 };
	const int n = 300, k = 170, nerr = 25;
	double folded = -1;
	uint64_t id_a;

	/* Both cgroups with series: each exactly its workload. */
	make_cgroups();
	id_a = tcg_inode(cg_a);
	m = cgroup_module(method, "10", latency);
	if (module_start(m)) {
		fprintf(stderr, "%s: start failed: %s\n", method, m->last_error);
		CHECK(!"module started");
		module_free(m);
		rmdir(cg_a), rmdir(cg_b);
		return;
	}
	workload_in(cg_a, fd, n, nerr);
	workload_in(cg_b, fd, k, 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), n + nerr);
	CHECK_EQ_U64(counter_of(&r, "errors", name_a, "fsync"), nerr);
	CHECK_EQ_U64(counter_of(&r, "calls", name_b, "fsync"), k);
	CHECK_EQ_U64(counter_of(&r, "errors", name_b, "fsync"), 0);
	if (latency) {
		CHECK_EQ_U64(samples_of(&r, name_a), n + nerr);
		CHECK_EQ_U64(samples_of(&r, name_b), k);
	}
	/* Only our cgroups (the glob), nothing folded. */
	for (int i = 0; i < r.n; i++)
		if (strchr(r.values[i].instance, '/'))
			CHECK(!strncmp(r.values[i].instance, name_a, strlen(name_a)) ||
			      !strncmp(r.values[i].instance, name_b, strlen(name_b)));
	CHECK(!recorded_gauge(&r, "folded", "cgroups", &folded));
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
	CHECK(rows_of(m, id_a) > 0);
	printf("%-10s latency=%d: %s fsync %llu (errors %llu), %s fsync %llu\n", method, latency, name_a,
	       (unsigned long long)counter_of(&r, "calls", name_a, "fsync"),
	       (unsigned long long)counter_of(&r, "errors", name_a, "fsync"), name_b,
	       (unsigned long long)counter_of(&r, "calls", name_b, "fsync"));

	/* a removed: its rows go at the next read, its series keeps its last values, b goes on. */
	CHECK(rmdir(cg_a) == 0);
	workload_in(cg_b, fd, 5, 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(counter_of(&r, "calls", name_b, "fsync"), k + 5);
	CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), n + nerr);
	CHECK_EQ_U64(rows_of(m, id_a), 0);
	/* a made again under its path (a service restarted: a new cgroup id), 40 calls: its
	 * series goes on from where it was (the sum over its incarnations: never back, each call
	 * once), and its latency interval is those 40 calls, once: the reads after, without a
	 * call, have none (no percentile, no bucket rate). */
	CHECK(mkdir(cg_a, 0755) == 0);
	CHECK(tcg_inode(cg_a) != id_a);
	workload_in(cg_a, fd, 40, 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), n + nerr + 40);
	if (latency)
		CHECK_EQ_U64(interval_of(&r, name_a), 40);
	for (int i = 0; i < CGROUP_LINGER_READS + 2; i++) {
		CHECK(recording_read(&r, m) == 0);
		CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), n + nerr + 40);
		if (latency)
			CHECK_EQ_U64(interval_of(&r, name_a), 0);
	}
	/* Removed for good: its series goes on, unchanged, for CGROUP_LINGER_READS reads (a
	 * restart whose new cgroup comes a read later keeps it), then it stops. */
	id_a = tcg_inode(cg_a);
	CHECK(rmdir(cg_a) == 0);
	for (int i = 0; i <= CGROUP_LINGER_READS; i++) {
		CHECK(recording_read(&r, m) == 0);
		CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), n + nerr + 40);
	}
	CHECK_EQ_U64(rows_of(m, id_a), 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), 0); /* its series stopped */
	CHECK_EQ_U64(counter_of(&r, "calls", name_b, "fsync"), k + 5);
	module_free(m);
	CHECK(rmdir(cg_b) == 0);

	/* MaxSeries 1: the first cgroup met has the series, the other is `other`, exactly. */
	make_cgroups();
	m = cgroup_module(method, "1", latency);
	CHECK(module_start(m) == 0);
	workload_in(cg_a, fd, n, 0);
	CHECK(recording_read(&r, m) == 0); /* a takes the place */
	workload_in(cg_b, fd, k, 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), n);
	CHECK_EQ_U64(counter_of(&r, "calls", name_b, "fsync"), 0);
	CHECK_EQ_U64(counter_of(&r, "calls", "other", "fsync"), k);
	if (latency)
		CHECK_EQ_U64(samples_of(&r, "other"), k);
	CHECK(recorded_gauge(&r, "folded", "cgroups", &folded) && folded == 1);
	/* b removed while in other: other keeps its count, the rows go. */
	id_a = tcg_inode(cg_b);
	CHECK(rmdir(cg_b) == 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(counter_of(&r, "calls", "other", "fsync"), k);
	CHECK_EQ_U64(rows_of(m, id_a), 0);
	CHECK(recorded_gauge(&r, "folded", "cgroups", &folded) && folded == 0);
	module_free(m);
	CHECK(rmdir(cg_a) == 0);
	recording_free(&r);
}

/* Churn: 2,000 cgroups made, used by one process (one fsync) and removed, beside 25 that
 * live on (L fsync calls each), under MaxSeries 20, read every 50 cgroups. At most 20 series
 * (the live ones that came first), `other` exactly the rest, and the kernel rows back to the
 * 20 live cgroups' with series alone: nothing grows with the churn, and the 5 live ones in
 * `other` pin no row (their next calls make rows that the next read folds and deletes). */
static void test_churn(const char *method, int fd)
{
	enum { CHURN = 2000, LIVE = 25, L = 4, MAX = 20 };
	char dir[1200], name[300], home[1600];
	uint64_t live_id[LIVE], total = 0;
	int home_procs = -1;
	static uint64_t churn_id[CHURN];
	struct recording r = { 0 };
	struct module *m;
	int nseries = 0, foreign = 0;
	bool folded_live[LIVE];
	double folded = -1;

	for (int i = 0; i < LIVE; i++) {
		snprintf(dir, sizeof(dir), "%s/live%d", tcg_parent, i);
		CHECK(mkdir(dir, 0755) == 0);
		live_id[i] = tcg_inode(dir);
	}
	m = cgroup_module(method, "20", false);
	CHECK(module_start(m) == 0);
	for (int i = 0; i < LIVE; i++) {
		snprintf(dir, sizeof(dir), "%s/live%d", tcg_parent, i);
		workload_in(dir, fd, L, 0);
	}
	/* The churn visits each cgroup itself (join, one fsync, back home, rmdir) instead of
	 * forking a child into it: 2,000 forks and their exits took minutes under the sanitizers
	 * and in the qemu matrix, and what the kernel sees is the same, one fsync per cgroup. */
	tcg_own(home, sizeof(home));
	CHECK(home[0] && (home_procs = tcg_procs_fd(home)) >= 0);
	for (int i = 0; i < CHURN; i++) {
		struct fsyncs once = { fd, 1, 0 };
		int procs;

		snprintf(dir, sizeof(dir), "%s/churn%d", tcg_parent, i);
		CHECK(mkdir(dir, 0755) == 0);
		churn_id[i] = tcg_inode(dir);
		CHECK((procs = tcg_procs_fd(dir)) >= 0);
		CHECK(tcg_join_fd(procs) == 0);
		CHECK(do_fsyncs(&once) == 0);
		CHECK(tcg_join_fd(home_procs) == 0);
		close(procs);
		CHECK(rmdir(dir) == 0);
		if ((i + 1) % 50 == 0)
			CHECK(recording_read(&r, m) == 0);
	}
	close(home_procs);
	CHECK(recording_read(&r, m) == 0);
	CHECK(recording_read(&r, m) == 0);
	for (int i = 0; i < LIVE; i++) {
		uint64_t v;
		char child[32];

		snprintf(child, sizeof(child), "live%d", i);
		tcg_name(child, name, sizeof(name));
		v = counter_of(&r, "calls", name, "fsync");
		CHECK(v == 0 || v == L);
		nseries += v == L;
		total += v;
		folded_live[i] = v == 0;
		/* A live cgroup in other pins no kernel row: its rows were carried and deleted. */
		if (!v)
			CHECK_EQ_U64(rows_of(m, live_id[i]), 0);
	}
	total += counter_of(&r, "calls", "other", "fsync");
	CHECK_EQ_U64(nseries, MAX);
	CHECK_EQ_U64(total, CHURN + LIVE * L);
	CHECK_EQ_U64(counter_of(&r, "calls", "other", "fsync"), CHURN + (LIVE - MAX) * L);
	/* The folded gauge: the cgroups whose events went into other since the last read (none
	 * since the churn); one more call in each folded live cgroup: those 5, other exactly 5 up. */
	CHECK(recorded_gauge(&r, "folded", "cgroups", &folded) && folded == 0);
	for (int i = 0; i < LIVE; i++) {
		snprintf(dir, sizeof(dir), "%s/live%d", tcg_parent, i);
		if (folded_live[i])
			workload_in(dir, fd, 1, 0);
	}
	CHECK(recording_read(&r, m) == 0);
	CHECK(recorded_gauge(&r, "folded", "cgroups", &folded) && folded == LIVE - MAX);
	CHECK_EQ_U64(counter_of(&r, "calls", "other", "fsync"), CHURN + (LIVE - MAX) * (L + 1));
	for (int i = 0; i < LIVE; i++)
		if (folded_live[i])
			CHECK_EQ_U64(rows_of(m, live_id[i]), 0);
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
	for (int i = 0; i < r.n; i++)
		if (r.values[i].kind == RECORDED_COUNTER && strstr(r.values[i].instance, "_churn"))
			foreign++;
	CHECK_EQ_U64(foreign, 0);
	{
		int fdm = bpf_map__fd(bpf_object__find_map_by_name(m->obj, "cgroup_counts"));
		struct cgroup_row_key k, next;
		void *prev = NULL;
		int live_rows = 0, churn_rows = 0;

		while (!bpf_map_get_next_key(fdm, prev, &next)) {
			for (int i = 0; i < LIVE; i++)
				live_rows += next.cgroup == live_id[i];
			for (int i = 0; i < CHURN; i++)
				churn_rows += next.cgroup == churn_id[i];
			k = next;
			prev = &k;
		}
		CHECK(live_rows >= LIVE);
		CHECK_EQ_U64(churn_rows, 0);
		printf("churn: %d cgroups made and removed beside %d live: %d series, other %llu fsync, kernel rows: "
		       "%d of the live ones, %d of the removed\n", CHURN, LIVE, nseries,
		       (unsigned long long)counter_of(&r, "calls", "other", "fsync"), live_rows, churn_rows);
	}
	module_free(m);
	for (int i = 0; i < LIVE; i++) {
		snprintf(dir, sizeof(dir), "%s/live%d", tcg_parent, i);
		CHECK(rmdir(dir) == 0);
	}
	recording_free(&r);
}

/* A cgroup the selection leaves out (a sibling of the test's parent, outside its glob) is
 * never a series, and never takes a kernel row that the selected ones need. With the glob
 * tcg_glob() the kernel itself leaves it out (cgroup_select: below /<parent> only), from
 * its first event on, whether the task's cgroup is read by the ancestor helper or by CO-RE
 * (core: as on 5.10, which has no helper for tracing programs), while a selected cgroup
 * beside it is counted exactly. With a wildcard before the parent's name (in the first
 * component: no directory to filter on in the kernel) its first events take a row until a
 * read finds it, and from then on cgroup_ignored gives it none. */
static void test_unselected(const char *method, int fd, bool core, bool in_kernel)
{
	char out[1200], glob[1100];
	const char *parent = tcg_parent + strlen(tcg_root);
	struct module *m;
	struct recording r = { 0 };
	uint64_t id;

	snprintf(out, sizeof(out), "%s-out", tcg_parent);
	CHECK(mkdir(out, 0755) == 0);
	id = tcg_inode(out);
	make_cgroups();
	if (in_kernel)
		tcg_glob(glob, sizeof(glob));
	else
		snprintf(glob, sizeof(glob), "/*%s/*", parent + 1);
	m = cgroup_module_glob(method, "10", true, glob);
	m->cgroup->opts.ancestors_by_core = core;
	CHECK(module_start(m) == 0);
	workload_in(out, fd, 5, 0);
	workload_in(cg_a, fd, 7, 0);
	if (in_kernel)
		CHECK_EQ_U64(rows_of(m, id), 0);
	else
		CHECK(rows_of(m, id) > 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), 7);
	CHECK_EQ_U64(samples_of(&r, name_a), 7);
	CHECK_EQ_U64(rows_of(m, id), 0);
	workload_in(out, fd, 5, 0);
	CHECK_EQ_U64(rows_of(m, id), 0);
	CHECK_EQ_U64(tcg_rows_of(m, "cgroup_latency", id), 0);
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), 7);
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
	for (int i = 0; i < r.n; i++)
		CHECK(!strstr(r.values[i].instance, "-out"));
	printf("%-10s a cgroup outside the selection (%s, %s): %s\n", method, glob,
	       core ? "CO-RE" : "helper where there is one",
	       in_kernel ? "no row from its first event" : "no row after the first read");
	recording_free(&r);
	module_free(m);
	CHECK(rmdir(out) == 0);
	CHECK(rmdir(cg_a) == 0 && rmdir(cg_b) == 0);
}

/* nanosleep() of each of the durations, `rounds` times: a syscall almost nothing else on
 * the machine makes (libc sleeps with clock_nanosleep), of known latency. */
#define SLEEP_ROUNDS 12
static const long sleep_ns[] = { 300000, 1500000, 5000000 };

static int do_sleeps(void *arg)
{
	(void)arg;
	for (int i = 0; i < SLEEP_ROUNDS; i++)
		for (size_t k = 0; k < sizeof(sleep_ns) / sizeof(sleep_ns[0]); k++) {
			struct timespec ts = { 0, sleep_ns[k] };

			if (syscall(SYS_nanosleep, &ts, NULL))
				return 4;
		}
	return 0;
}

/* Precision 5 for the host-wide rows, CgroupPrecision 2 for the per-cgroup ones: the
 * cgroup's table is sized for 2, its samples counted exactly, each in the precision-2 slot
 * that holds the precision-5 slot the host-wide row put the same sleep in (every slot edge
 * at 2 is one at 5), and its percentiles within 2^-2 (plus the host-wide's 2^-5) of the
 * host-wide ones. */
static void test_cgroup_precision(const char *method)
{
	struct module *m = cgroup_module(method, "10", false);
	struct recording r = { 0 };
	const struct hist_interval *cg, *host;
	const uint64_t n = SLEEP_ROUNDS * sizeof(sleep_ns) / sizeof(sleep_ns[0]);
	uint64_t coarse[HIST_SLOTS] = { 0 }, in_place = 0;

	tcg_option(m, "Latency", "nanosleep", 0);
	tcg_option(m, "Precision", NULL, 5);
	tcg_option(m, "CgroupPrecision", NULL, 2);
	make_cgroups();
	CHECK(module_start(m) == 0);
	CHECK(m->precision == 5 && m->cgroup_precision == 2);
	CHECK(bpf_map__value_size(bpf_object__find_map_by_name(m->obj, "cgroup_latency")) == HIST_ROW_SIZE(2));
	CHECK(bpf_map__value_size(bpf_object__find_map_by_name(m->obj, "latency")) == HIST_ROW_SIZE(5));
	tcg_run_in(cg_a, do_sleeps, NULL);
	CHECK(recording_read(&r, m) == 0);
	cg = recorded_histogram(&r, "latency", tcg_hist_instance(name_a, "nanosleep"), HIST_UNIT_NANOSECONDS);
	host = recorded_histogram(&r, "latency", "nanosleep", HIST_UNIT_NANOSECONDS);
	CHECK(cg != NULL && host != NULL);
	if (!cg || !host) {
		recording_free(&r);
		module_free(m);
		rmdir(cg_a), rmdir(cg_b);
		return;
	}
	CHECK(cg->precision == 2 && cg->nslots == HIST_NSLOTS(2));
	CHECK(host->precision == 5);
	CHECK_EQ_U64(cg->total_count, n);
	CHECK(host->total_count >= n); /* the whole machine's nanosleep calls: ours at least */
	for (unsigned int i = 0; i < host->nslots; i++)
		coarse[hist_slot_p(hist_slot_upper_bound(5, i), 2)] += host->slots[i];
	for (unsigned int i = 0; i < cg->nslots; i++)
		in_place += cg->slots[i] <= coarse[i] ? cg->slots[i] : coarse[i];
	CHECK_EQ_U64(in_place, n);
	for (unsigned int i = 0; i < cg->nslots; i++)
		if (cg->slots[i]) /* no sleep is shorter than asked */
			CHECK(hist_slot_upper(2, i) >= (double)sleep_ns[0]);
	for (int k = 0; k < 3; k++) {
		static const double pcts[] = { 20, 50, 90 };
		double a = hist_percentile(cg, pcts[k]), b = hist_percentile(host, pcts[k]);

		printf("%-10s p%.0f: per-cgroup (precision 2) %.0f ns, host-wide (precision 5) %.0f ns\n", method,
		       pcts[k], a, b);
		CHECK(fabs(a - b) <= (0.25 + 1.0 / 32) * b);
	}
	recording_free(&r);
	module_free(m);
	CHECK(rmdir(cg_a) == 0 && rmdir(cg_b) == 0);
}

/* CgroupCalls "latency": a cgroup's counts only for the syscalls of Latency (fsync), the
 * host-wide counts of every syscall as ever; a name that is no syscall is refused. */
static void test_cgroup_calls(const char *method, int fd)
{
	struct module *m = cgroup_module(method, "10", true);
	struct recording r = { 0 };
	char err[ERR_MAX] = "";
	struct opt_value v = { .type = OPT_STRING, .string = "fsyncs" };
	struct option o = { .key = "CgroupCalls", .values = &v, .nvalues = 1 };

	tcg_option(m, "CgroupCalls", "latency", 0);
	make_cgroups();
	CHECK(module_start(m) == 0);
	workload_in(cg_a, fd, 50, 0); /* a pwrite64 before each fsync */
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(counter_of(&r, "calls", name_a, "fsync"), 50);
	CHECK_EQ_U64(counter_of(&r, "calls", name_a, "pwrite64"), 0);
	CHECK(recorded_counter(&r, "calls", "pwrite64") >= 50);
	for (int i = 0; i < r.n; i++) /* nothing per cgroup but fsync's */
		if (!strncmp(r.values[i].instance, name_a, strlen(name_a)))
			CHECK(strstr(r.values[i].instance, "/fsync") != NULL);
	module_free(m);
	recording_free(&r);
	CHECK(rmdir(cg_a) == 0 && rmdir(cg_b) == 0);

	m = module_new(module_find("syscalls"), NULL);
	CHECK(module_set_option(m, &o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "CgroupCalls: \"fsyncs\" is not a syscall") != NULL);
	module_free(m);
}

/* Off (the default): none of the per-cgroup maps is created; tuning without By is refused. */
static void test_off(void)
{
	struct module *m = module_new(module_find("syscalls"), NULL);
	char err[ERR_MAX] = "";
	struct opt_value v = { .type = OPT_NUMBER, .number = 3 };
	struct option o = { .key = "CgroupDepth", .values = &v, .nvalues = 1 };
	const char *maps[] = { "cgroup_counts", "cgroup_latency", "cgroup_zero", "cgroup_full", "cgroup_ignored" };

	m->filter_tgid = getpid();
	CHECK(module_start(m) == 0);
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		CHECK(bpf_map__fd(bpf_object__find_map_by_name(m->obj, maps[i])) < 0 ||
		      !bpf_map__autocreate(bpf_object__find_map_by_name(m->obj, maps[i])));
	module_free(m);

	m = module_new(module_find("syscalls"), NULL);
	CHECK(module_set_option(m, &o, err, sizeof(err)) == 0);
	CHECK(module_start(m) == -1);
	CHECK(strstr(m->last_error, "By \"cgroup\"") != NULL);
	module_free(m);

	m = module_new(module_find("syscalls"), NULL);
	tcg_option(m, "CgroupCalls", "latency", 0);
	CHECK(module_start(m) == -1);
	CHECK(strstr(m->last_error, "CgroupCalls chooses the per-cgroup counts, which By \"cgroup\" turns on") != NULL);
	module_free(m);
}

int main(int argc, char **argv)
{
	struct method_list methods;
	char path[] = "/var/tmp/ebpf-test-syscalls-cg-XXXXXX";
	int fd;

	if (geteuid() != 0 || !privileges_sufficient())
		SKIP("needs root (or CAP_BPF + CAP_PERFMON) to load BPF programs");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP("kernel has no BTF (/sys/kernel/btf/vmlinux): CO-RE programs cannot load");
	if (access("/sys/kernel/tracing/events/raw_syscalls", F_OK) &&
	    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		SKIP("tracefs is not mounted and cannot be: mount -t tracefs nodev /sys/kernel/tracing");
	/* Depth 2 is our two cgroups: the private parent is at depth 1. */
	tcg_setup("ebpf-test-cg");
	tcg_dir("a", cg_a, sizeof(cg_a));
	tcg_dir("b", cg_b, sizeof(cg_b));
	tcg_name("a", name_a, sizeof(name_a));
	tcg_name("b", name_b, sizeof(name_b));
	fd = testing_unlinked_temp_file(path);

	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n; i++) {
		run_method(methods.names[i], false, fd);
		run_method(methods.names[i], true, fd);
		test_unselected(methods.names[i], fd, false, true);
	}
	test_unselected(methods.names[0], fd, true, true);
	test_unselected(methods.names[0], fd, false, false);
	test_churn(methods.names[0], fd);
	test_cgroup_precision(methods.names[0]);
	test_cgroup_calls(methods.names[0], fd);
	test_off();
	close(fd);
	rmdir(cg_a);
	rmdir(cg_b);
	CHECK(rmdir(tcg_parent) == 0);
	return testing_done();
}
