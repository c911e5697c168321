/* Root test: the syscalls module's cached slot (bpf/include/cgroup_slot.bpf.h) never counts
 * a call under the row the task had before, every attach method. Each CPU caches the slot
 * of the task it runs, cleared at a context switch; a task that changes its own key between
 * two calls does it without one, so the cache must be made stale there too:
 *   - By "command": a process that renames itself (prctl PR_SET_NAME) and makes N calls at
 *     once; one that execs (its comm then the file's name) and makes N calls at once;
 *   - By "cgroup": a process that moves itself into another cgroup (writes "0" into its
 *     cgroup.procs) and makes N calls at once.
 * Each call is counted under its new row, exactly (sched_rr_get_interval: a syscall nothing
 * else on a test machine makes), and the calls before under the old one. */
#define _GNU_SOURCE
#include "base/log.h"
#include "bpf/include/cgroup_key.h"
#include "libcore/engine/module.h"
#include "tests/support/attach_methods.h"
#include "tests/support/bpf_requirements.h"
#include "tests/support/start_on_method.h"
#include "libcore/kernel/tracing_helpers.h"
#include "tests/support/recording_sink.h"
#include "tests/support/test_cgroups.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BEFORE 40 /* calls under the old row */
#define AFTER 400 /* calls under the new one, at once */
#define ROW "sched_rr_get_interval"

static char exec_link[256]; /* a symlink to this program: after exec, the comm is its name */

static int calls(int n)
{
	struct timespec ts;

	for (int i = 0; i < n; i++)
		if (sched_rr_get_interval(0, &ts))
			return -1;
	return 0;
}

static struct module *started(const char *method, const char *by, const char *glob)
{
	struct module *m = module_new(module_find("syscalls"), NULL);

	tcg_option(m, "AttachOrder", method, 0);
	tcg_option(m, "By", by, 0);
	if (glob)
		tcg_option(m, "Cgroup", glob, 0);
	/* By "command": every command of the host is counted; room for all of them, so that
	 * ours are never folded into other */
	tcg_option(m, "MaxSeries", NULL, 500);
	m->filter_tgid = 0; /* the workloads are other processes */
	return start_or_fail(m, method);
}

static void wait_child(pid_t pid)
{
	int status;

	CHECK(pid >= 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void check_calls(const struct recording *r, const char *who, uint64_t want)
{
	char inst[300];

	snprintf(inst, sizeof(inst), "%s/%s", who, ROW);
	CHECK_EQ_U64(recorded_counter(r, "calls", inst), want);
}

static void by_command(const char *method)
{
	struct module *m;
	struct recording r = { 0 };
	pid_t pid;

	/* 5.10: no bpf_get_current_task_btf (5.11) for tp_btf's direct read of the comm, so
	 * By "command" takes raw_tp there (doc/modules.md); with tp_btf alone it must refuse. */
	if (!strcmp(method, "tp_btf") && !tracing_helper_available(BPF_FUNC_get_current_task_btf)) {
		m = module_new(module_find("syscalls"), NULL);
		tcg_option(m, "AttachOrder", method, 0);
		tcg_option(m, "By", "command", 0);
		CHECK(module_start(m) != 0 && strstr(m->last_error, "tp_btf load failed"));
		printf("%-10s By \"command\": not on this kernel (no bpf_get_current_task_btf): refused\n", method);
		module_free(m);
		return;
	}
	m = started(method, "command", NULL);
	if (!m)
		return;
	pid = fork();
	if (pid == 0)
		_exit(prctl(PR_SET_NAME, "slot_old", 0, 0, 0) || calls(BEFORE) ||
		      prctl(PR_SET_NAME, "slot_new", 0, 0, 0) || calls(AFTER));
	wait_child(pid);
	pid = fork();
	if (pid == 0) {
		char n[16];

		snprintf(n, sizeof(n), "%d", AFTER);
		if (prctl(PR_SET_NAME, "slot_pre", 0, 0, 0) || calls(BEFORE))
			_exit(1);
		execl(exec_link, "slot_exec", "--calls", n, (char *)NULL);
		_exit(2);
	}
	wait_child(pid);
	CHECK(recording_read(&r, m) == 0);
	check_calls(&r, "slot_old", BEFORE);
	check_calls(&r, "slot_new", AFTER);
	check_calls(&r, "slot_pre", BEFORE);
	check_calls(&r, "slot_exec", AFTER);
	CHECK_EQ_U64(recorded_counter(&r, "dropped", "command_full"), 0);
	printf("%-10s By \"command\": slot_old %llu, slot_new %llu, slot_pre %llu, slot_exec %llu\n", method,
	       (unsigned long long)recorded_counter(&r, "calls", "slot_old/" ROW),
	       (unsigned long long)recorded_counter(&r, "calls", "slot_new/" ROW),
	       (unsigned long long)recorded_counter(&r, "calls", "slot_pre/" ROW),
	       (unsigned long long)recorded_counter(&r, "calls", "slot_exec/" ROW));
	recording_free(&r);
	module_free(m);
}

static void by_cgroup(const char *method)
{
	char glob[1100], a[1100], b[1100], name_a[256], name_b[256];
	struct module *m;
	struct recording r = { 0 };
	pid_t pid;

	tcg_dir("a", a, sizeof(a));
	tcg_dir("b", b, sizeof(b));
	tcg_name("a", name_a, sizeof(name_a));
	tcg_name("b", name_b, sizeof(name_b));
	CHECK(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0);
	m = started(method, "cgroup", tcg_glob(glob, sizeof(glob)));
	if (m) {
		int procs_b = tcg_procs_fd(b);

		CHECK(procs_b >= 0);
		pid = fork();
		if (pid == 0) /* moves itself: one write, then the calls at once */
			_exit(tcg_join(a) || calls(BEFORE) || tcg_join_fd(procs_b) || calls(AFTER));
		wait_child(pid);
		close(procs_b);
		CHECK(recording_read(&r, m) == 0);
		check_calls(&r, name_a, BEFORE);
		check_calls(&r, name_b, AFTER);
		CHECK_EQ_U64(recorded_counter(&r, "dropped", "cgroup_full"), 0);
		printf("%-10s By \"cgroup\": a %llu, b %llu\n", method,
		       (unsigned long long)recorded_counter(&r, "calls", tcg_hist_instance(name_a, ROW)),
		       (unsigned long long)recorded_counter(&r, "calls", tcg_hist_instance(name_b, ROW)));
		recording_free(&r);
		module_free(m);
	}
	CHECK(tcg_remove(a) == 0 && tcg_remove(b) == 0);
}

int main(int argc, char **argv)
{
	struct method_list methods;
	char dir[] = "/tmp/ebpf-test-slot-XXXXXX";

	if (argc == 3 && !strcmp(argv[1], "--calls")) /* the exec'd workload */
		_exit(calls(atoi(argv[2])) ? 1 : 0);
	require_bpf_tracing("/sys/kernel/tracing/events/raw_syscalls");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(exec_link, sizeof(exec_link), "%s/slot_exec", dir);
	{
		char self[512];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		CHECK(n > 0);
		self[n > 0 ? n : 0] = '\0';
		CHECK(symlink(self, exec_link) == 0);
	}
	tcg_setup("ebpf-test-slot");
	tracepoint_methods_from(argc, argv, &methods);
	for (int i = 0; i < methods.n; i++) {
		by_command(methods.names[i]);
		by_cgroup(methods.names[i]);
	}
	unlink(exec_link);
	rmdir(dir);
	CHECK(rmdir(tcg_parent) == 0);
	return testing_done();
}
