/* Root test: process with By "cgroup" in the running kernel, every attach method. Two
 * cgroups made here under a private parent in the cgroup2 mount; in each a child forks its
 * own number of children, then execs /bin/true: each cgroup's forks, execs and exits are
 * exactly its workload. Then an OOM kill (tests/support/oom_cgroup.h: a memory-limited cgroup, v1 or
 * v2) is counted for the victim's cgroup: the host-wide oom_kills and the victim cgroup's
 * agree. */
#include "libcore/engine/module.h"
#include "tests/support/attach_methods.h"
#include "tests/support/bpf_requirements.h"
#include "tests/support/test_cgroups.h"
#include "tests/support/oom_cgroup.h"
#include "tests/support/recording_sink.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

static int fork_then_exec(void *arg)
{
	int n = *(const int *)arg;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 4;
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid)
			return 5;
	}
	execl("/bin/true", "true", (char *)NULL);
	return 6;
}

static struct module *cgroup_process(const char *method, const char *glob)
{
	struct module *m = module_new(module_find("process"), NULL);

	tcg_option(m, "AttachOrder", method, 0);
	tcg_option(m, "By", "cgroup", 0);
	if (glob)
		tcg_option(m, "Cgroup", glob, 0);
	m->filter_tgid = 0; /* the workloads are other processes: the glob keeps ours */
	return m;
}

static uint64_t count_of(const struct recording *r, const char *metric, const char *name)
{
	char inst[400];

	snprintf(inst, sizeof(inst), "%s/", name);
	return recorded_counter(r, metric, inst);
}

static void run_method(const char *method)
{
	char a[1100], b[1100], na[300], nb[300], glob[1100];
	int fa = 17, fb = 5;
	struct recording r = { 0 };
	struct module *m;

	CHECK(mkdir(tcg_dir("a", a, sizeof(a)), 0755) == 0);
	CHECK(mkdir(tcg_dir("b", b, sizeof(b)), 0755) == 0);
	tcg_name("a", na, sizeof(na));
	tcg_name("b", nb, sizeof(nb));
	m = cgroup_process(method, tcg_glob(glob, sizeof(glob)));
	if (module_start(m)) {
		fprintf(stderr, "%s: start failed: %s\n", method, m->last_error);
		CHECK(!"module started");
	} else {
		tcg_run_in(a, fork_then_exec, &fa);
		tcg_run_in(b, fork_then_exec, &fb);
		CHECK(recording_read(&r, m) == 0);
		CHECK_EQ_U64(count_of(&r, "forks", na), fa);
		CHECK_EQ_U64(count_of(&r, "execs", na), 1);
		CHECK_EQ_U64(count_of(&r, "exits", na), fa + 1);
		CHECK_EQ_U64(count_of(&r, "forks", nb), fb);
		CHECK_EQ_U64(count_of(&r, "execs", nb), 1);
		CHECK_EQ_U64(count_of(&r, "exits", nb), fb + 1);
		CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
		printf("%-10s %s: forks %llu execs %llu exits %llu; %s: forks %llu execs %llu exits %llu\n", method, na,
		       (unsigned long long)count_of(&r, "forks", na), (unsigned long long)count_of(&r, "execs", na),
		       (unsigned long long)count_of(&r, "exits", na), nb, (unsigned long long)count_of(&r, "forks", nb),
		       (unsigned long long)count_of(&r, "execs", nb), (unsigned long long)count_of(&r, "exits", nb));
	}
	module_free(m);
	recording_free(&r);
	CHECK(tcg_remove(a) == 0);
	CHECK(tcg_remove(b) == 0);
}

/* The victim's cgroup: the test joins cgroup c (so the hog starts there); the hog then
 * joins the memory-limited cgroup, which on cgroup v1 leaves its cgroup2 cgroup c and on
 * v2 is its cgroup2 cgroup. */
static void run_oom(const char *method)
{
	struct oom_cgroup cg;
	char why[ERR_MAX], name[128], c[1100], back[1600], victim_name[300];
	struct recording r = { 0 };
	struct module *m;
	uint64_t before, after, per_cgroup;
	int killed = 0;
	pid_t victim;

	snprintf(name, sizeof(name), "ebpf-test-oomcg-%d", (int)getpid());
	if (oom_cgroup_create(&cg, name, 32 << 20, why, sizeof(why))) {
		printf("OOM part skipped: %s\n", why);
		return;
	}
	CHECK(mkdir(tcg_dir("c", c, sizeof(c)), 0755) == 0);
	if (cg.v2)
		snprintf(victim_name, sizeof(victim_name), "%s", name);
	else
		tcg_name("c", victim_name, sizeof(victim_name));
	m = cgroup_process(method, NULL);
	CHECK(module_start(m) == 0);
	CHECK(recording_read(&r, m) == 0);
	before = recorded_counter(&r, "oom_kills", "");
	tcg_own(back, sizeof(back));
	CHECK(tcg_join(c) == 0);
	victim = oom_cgroup_run_hog(&cg, "ebpf_oom_hog", &killed);
	CHECK(back[0] && tcg_join(back) == 0);
	CHECK(victim > 0 && killed);
	CHECK(recording_read(&r, m) == 0);
	after = recorded_counter(&r, "oom_kills", "");
	per_cgroup = count_of(&r, "oom_kills", victim_name);
	printf("%-10s oom: victim %d in %s: oom_kills +%llu, in the victim's cgroup %llu\n", method, (int)victim,
	       victim_name, (unsigned long long)(after - before), (unsigned long long)per_cgroup);
	CHECK(after - before >= 1);
	CHECK_EQ_U64(per_cgroup, after - before);
	module_free(m);
	recording_free(&r);
	oom_cgroup_remove(&cg);
	CHECK(tcg_remove(c) == 0);
}

int main(int argc, char **argv)
{
	struct method_list methods;

	require_bpf_tracing("/sys/kernel/tracing/events/sched");
	tcg_setup("ebpf-test-proccg");
	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n; i++)
		run_method(methods.names[i]);
	/* The victim's task is passed by tp_btf and raw_tp only (the classic tracepoint's
	 * record has its pid): the first of them. */
	for (int i = 0; i < methods.n; i++)
		if (strcmp(methods.names[i], "tracepoint")) {
			run_oom(methods.names[i]);
			break;
		}
	CHECK(rmdir(tcg_parent) == 0);
	return testing_done();
}
