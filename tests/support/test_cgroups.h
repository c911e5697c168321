/* Shared by the By "cgroup" kernel tests: a private parent in the cgroup2 mount (depth 1,
 * so that CgroupDepth 2 is its children), children run in a child cgroup, the names the
 * module sends, and the kernel rows of a cgroup. */
#ifndef EBPF_TESTS_TEST_CGROUPS_H
#define EBPF_TESTS_TEST_CGROUPS_H

#include "bpf/include/cgroup_key.h"
#include "bpf/include/hist_row.h"
#include "bpf/include/hist_slot.h"
#include "libcore/decode/cgroup_paths.h"
#include "libcore/engine/module.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tcg_root[512], tcg_parent[1024];

/* Makes the private parent "<cgroup2>/<prefix>-<pid>"; SKIPs without cgroup2. */
static inline void tcg_setup(const char *prefix)
{
	char err[ERR_MAX];

	if (cgroup2_mount(tcg_root, sizeof(tcg_root), err, sizeof(err)))
		SKIP("%s", err);
	snprintf(tcg_parent, sizeof(tcg_parent), "%s/%s-%d", tcg_root, prefix, (int)getpid());
	if (mkdir(tcg_parent, 0755))
		SKIP("cannot make a cgroup under %s: %s", tcg_root, strerror(errno));
}

/* "<parent>/<child>" into out. */
static inline const char *tcg_dir(const char *child, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", tcg_parent, child);
	return out;
}

/* The name the module sends for child: its path below the root, '/' as '_'. */
static inline const char *tcg_name(const char *child, char *out, size_t len)
{
	snprintf(out, len, "%s_%s", strrchr(tcg_parent, '/') + 1, child);
	return out;
}

/* The Cgroup glob of the parent's children: "/<parent>/ *". */
static inline const char *tcg_glob(char *out, size_t len)
{
	snprintf(out, len, "%s/*", tcg_parent + strlen(tcg_root));
	return out;
}

static inline uint64_t tcg_inode(const char *dir)
{
	struct stat st;

	return stat(dir, &st) ? 0 : (uint64_t)st.st_ino;
}

/* dir's cgroup.procs opened for writing, or -1: a test that counts its own file calls
 * opens it before it counts, and then joins with tcg_join_fd (one write, nothing else). */
static inline int tcg_procs_fd(const char *dir)
{
	char procs[1700];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	return open(procs, O_WRONLY);
}

/* Moves the calling process into the cgroup whose cgroup.procs is fd. 0 or -1. */
static inline int tcg_join_fd(int fd)
{
	return fd >= 0 && write(fd, "0", 1) == 1 ? 0 : -1;
}

/* Moves the calling process into dir. 0 or -1. */
static inline int tcg_join(const char *dir)
{
	int p = tcg_procs_fd(dir), e = tcg_join_fd(p);

	if (p >= 0)
		close(p);
	return e;
}

/* The calling process's own cgroup2 directory ("0::/x" in /proc/self/cgroup), to go back
 * to after a tcg_join(); "" when unknown. */
static inline void tcg_own(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[1024];

	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%s%s", tcg_root, line + 3);
		}
	if (f)
		fclose(f);
}

/* Runs work(arg) in a child that joined cgroup dir first; the child's exit status must
 * be 0. */
static inline void tcg_run_in(const char *dir, int (*work)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	CHECK(pid >= 0);
	if (pid == 0)
		_exit(tcg_join(dir) ? 3 : work(arg));
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* rmdir, while the kernel still drains an exited child. 0 or -1. */
static inline int tcg_remove(const char *dir)
{
	int tries = 0, e;

	while ((e = rmdir(dir)) && errno == EBUSY && tries++ < 200)
		usleep(1000);
	return e;
}

/* Cgroups this process visits itself (a test counting its own calls): `home`, where it
 * lives during the test, a, b and c under the private parent, and `out`, a sibling of the
 * parent (outside the glob of its children). Each cgroup.procs is opened at setup, so that a
 * visit costs one write and nothing else. */
struct tcg_visits {
	char dirs[4][1100];  /* home, a, b, c */
	char out[1200];
	int procs[4], out_procs;
	char names[4][300];  /* home, a, b, c as sent */
	char back[1600];     /* where the process was */
};

/* After tcg_setup: makes them and moves the process to home. */
static inline void tcg_visits_setup(struct tcg_visits *v)
{
	static const char *const children[] = { "home", "a", "b", "c" };

	for (int i = 0; i < 4; i++) {
		tcg_name(children[i], v->names[i], sizeof(v->names[i]));
		CHECK(mkdir(tcg_dir(children[i], v->dirs[i], sizeof(v->dirs[i])), 0755) == 0);
		CHECK((v->procs[i] = tcg_procs_fd(v->dirs[i])) >= 0);
	}
	snprintf(v->out, sizeof(v->out), "%s-out", tcg_parent);
	CHECK(mkdir(v->out, 0755) == 0);
	CHECK((v->out_procs = tcg_procs_fd(v->out)) >= 0);
	tcg_own(v->back, sizeof(v->back));
	CHECK(v->back[0] && tcg_join_fd(v->procs[0]) == 0);
}

/* The visits that fold: a (workload 1), a read that gives a its series, then b (2) and c
 * (3), which find MaxSeries taken, and a read. */
static inline void tcg_visits_fold(struct module *m, struct recording *r, const struct tcg_visits *v,
				   void (*visit)(int procs_fd, int k))
{
	visit(v->procs[1], 1);
	CHECK(recording_read(r, m) == 0);
	visit(v->procs[2], 2);
	visit(v->procs[3], 3);
	CHECK(recording_read(r, m) == 0);
}

/* The process back where it was, the cgroups and the parent removed. */
static inline void tcg_visits_teardown(struct tcg_visits *v)
{
	CHECK(tcg_join(v->back) == 0);
	for (int i = 0; i < 4; i++) {
		close(v->procs[i]);
		CHECK(tcg_remove(v->dirs[i]) == 0);
	}
	close(v->out_procs);
	CHECK(tcg_remove(v->out) == 0);
	CHECK(rmdir(tcg_parent) == 0);
}

/* Rows of map (a per-cgroup table of m) whose cgroup is id. */
static inline int tcg_rows_of(struct module *m, const char *map, uint64_t id)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(m->obj, map));
	struct cgroup_row_key k, next;
	void *prev = NULL;
	int n = 0;

	struct bpf_map *slots = bpf_object__find_map_by_name(m->obj, "slot_of");
	struct row_whose whose = { .cgroup = id };
	uint32_t slot;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		n += next.cgroup == id;
		k = next;
		prev = &k;
	}
	/* a module that counts by slot (cgroup_slot.bpf.h): the cgroup's slot holds its rows */
	if (slots && bpf_map__fd(slots) >= 0 && !bpf_map_lookup_elem(bpf_map__fd(slots), &whose, &slot))
		n++;
	return n;
}

/* The instance of a cgroup's row ("<cgroup>/<row>"), in a static buffer. */
static inline const char *tcg_hist_instance(const char *cgroup, const char *row)
{
	static char inst[600];

	snprintf(inst, sizeof(inst), "%.300s/%.200s", cgroup, row);
	return inst;
}

/* Events in histogram `metric` of a cgroup's row (the cgroup as the module names it, or
 * "other"; the row's instance: "fsync", "all") since the module started; 0 while unsent. */
static inline uint64_t tcg_hist_total(const struct recording *r, const char *metric, const char *cgroup, const char *row)
{
	const struct hist_interval *h = recorded_histogram(r, metric, tcg_hist_instance(cgroup, row), HIST_UNIT_NANOSECONDS);

	return h ? h->total_count : 0;
}

/* Starts m (By "cgroup" off): none of the per-cgroup maps is created, and no cgroup_full
 * is sent; then frees m. */
static inline void tcg_check_off(struct module *m, const char *const *maps, int nmaps)
{
	struct recording r = { 0 };

	CHECK(module_start(m) == 0);
	for (int i = 0; i < nmaps; i++)
		CHECK(bpf_map__fd(bpf_object__find_map_by_name(m->obj, maps[i])) < 0 ||
		      !bpf_map__autocreate(bpf_object__find_map_by_name(m->obj, maps[i])));
	CHECK(recording_read(&r, m) == 0);
	CHECK_EQ_U64(recorded_count(&r, RECORDED_COUNTER, "dropped", "cgroup_full"), 0);
	recording_free(&r);
	module_free(m);
}

/* The per-cgroup precision the tests set (CgroupPrecision), below the host-wide rows'
 * default. tcg_check_precisions: m runs its host-wide rows at the default, as without By
 * "cgroup", and its per-cgroup histogram tables (maps, n of them) at this one, sized for it. */
#define TCG_CGROUP_PRECISION 2
static inline void tcg_check_precisions(const struct module *m, const char *const *maps, int n)
{
	CHECK(m->precision == HIST_PRECISION_DEFAULT);
	CHECK(m->cgroup_precision == TCG_CGROUP_PRECISION);
	for (int i = 0; i < n; i++)
		CHECK(bpf_map__value_size(bpf_object__find_map_by_name(m->obj, maps[i])) ==
		      HIST_ROW_SIZE(TCG_CGROUP_PRECISION));
}

/* The host-wide histogram `host` folded to precision p (each of its slots into the slot at p
 * that holds it: every slot edge at p is one at a finer precision) is the sum of `parts`, n
 * per-cgroup histograms at p (NULL: a cgroup without samples), slot by slot: with the module
 * counting this process only, every sample is in its cgroup's row at the per-cgroup
 * precision, in the slot of its own value. */
static inline void tcg_check_folded(const char *what, const struct hist_interval *host,
				    const struct hist_interval *const *parts, int n, unsigned int p)
{
	uint64_t want[HIST_SLOTS] = { 0 }, got[HIST_SLOTS] = { 0 };

	CHECK(host != NULL);
	if (!host)
		return;
	CHECK(host->precision >= p);
	for (unsigned int i = 0; i < host->nslots; i++)
		want[hist_slot_p(hist_slot_upper_bound(host->precision, i), p)] += host->slots[i];
	for (int k = 0; k < n; k++) {
		if (!parts[k])
			continue;
		CHECK(parts[k]->precision == p && parts[k]->nslots == HIST_NSLOTS(p));
		for (unsigned int i = 0; i < HIST_NSLOTS(p); i++)
			got[i] += parts[k]->slots[i];
	}
	for (unsigned int i = 0; i < HIST_NSLOTS(p); i++) {
		if (got[i] != want[i])
			fprintf(stderr, "%s: slot %u at precision %u: %llu per cgroup, %llu host-wide\n", what, i, p,
				(unsigned long long)got[i], (unsigned long long)want[i]);
		CHECK_EQ_U64(got[i], want[i]);
	}
}

/* Sets a string or number option; the check fails when it is refused. */
static inline void tcg_option(struct module *m, const char *key, const char *s, double num)
{
	char err[ERR_MAX] = "";
	struct opt_value v = s ? (struct opt_value){ .type = OPT_STRING, .string = s }
			       : (struct opt_value){ .type = OPT_NUMBER, .number = num };
	struct option o = { .key = key, .values = &v, .nvalues = 1 };

	if (module_set_option(m, &o, err, sizeof(err)))
		fprintf(stderr, "%s: %s\n", key, err);
	CHECK(err[0] == '\0');
}

/* By "cgroup" for the parent's children (the Cgroup glob), and MaxSeries unless 0. */
static inline void tcg_select(struct module *m, int max_series)
{
	char glob[1100];

	tcg_option(m, "By", "cgroup", 0);
	tcg_option(m, "Cgroup", tcg_glob(glob, sizeof(glob)), 0);
	if (max_series)
		tcg_option(m, "MaxSeries", NULL, max_series);
}

#endif
