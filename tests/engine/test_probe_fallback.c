/* Root test of libcore/engine/probe.c's attach fallback with a real BPF object whose candidates
 * fail in different ways: a load failure (fentry, refused on kernels without it) and an
 * attach failure (a tracepoint that does not exist) must each be noted, and the first
 * candidate that works must be chosen, attached and counting. */
#include "base/log.h"
#include "libcore/kernel/privileges.h"
#include "libcore/engine/probe.h"
#include "tests/support/testing.h"
#include "fallback.skel.h"
#include "base/err_max.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct fallback_bpf *skel;

static struct bpf_object *open_obj(void *ctx)
{
	skel = fallback_bpf__open();
	if (!skel)
		return NULL;
	skel->rodata->filter_tgid = getpid();
	return skel->obj;
}

static int load_obj(void *ctx)
{
	return fallback_bpf__load(skel);
}

static void close_obj(void *ctx)
{
	fallback_bpf__destroy(skel);
	skel = NULL;
}

static const struct probe_candidate candidates[] = {
	{ ATTACH_FENTRY, NULL, { "via_fentry" }, { NULL } },
	{ ATTACH_TRACEPOINT, NULL, { "via_missing_tracepoint" }, { NULL } },
	{ ATTACH_TP_BTF, NULL, { "via_tp_btf" }, { NULL } },
};

/* Kernel-function candidates with alternates: a missing first name is skipped by the
 * existence check, the second (vfs_read) is tried; a kprobe candidate whose names all
 * miss is noted as such. Wherever this runs, the chosen method names its function, and
 * the chosen program counts our reads. `only` restricts to one method (AttachOrder). */
static const struct probe_candidate target_candidates[] = {
	{ ATTACH_FENTRY, NULL, { "via_fentry_target" }, { NULL }, { "ebpf_test_no_such_function", "vfs_read" } },
	{ ATTACH_KPROBE, NULL, { "via_kprobe_target" }, { NULL }, { "ebpf_test_missing_a", "ebpf_test_missing_b" } },
	{ ATTACH_KPROBE, NULL, { "via_kprobe_target" }, { NULL }, { "ebpf_test_no_such_function", "vfs_read" } },
	{ ATTACH_TP_BTF, NULL, { "via_tp_btf" }, { NULL } },
};

/* Each run enables one point; the other candidates' programs sit in a disabled point so
 * that they stay unloaded (a program no candidate names would be loaded by default). */
static void run(const enum attach_method *order, int norder, const char *expect_method)
{
	struct probe_point points[2] = {
		{ .name = "test_point", .candidates = candidates, .ncandidates = 3, .enabled = true, .chosen = -1 },
		{ .name = "unused", .candidates = target_candidates, .ncandidates = 3, .enabled = false, .chosen = -1 },
	};
	struct probe_point *const p = &points[0];
	struct probe_set ps = { .points = points, .npoints = 2, .module = "fallback-test", .norder = norder };
	struct probe_object po = { .open = open_obj, .load = load_obj, .close = close_obj };
	char err[ERR_MAX] = "", used[64];

	for (int i = 0; i < norder; i++)
		ps.order[i] = order[i];
	if (probe_set_start(&ps, &po, err, sizeof(err))) {
		fprintf(stderr, "start failed: %s\n", err);
		CHECK(!"probe set started");
		return;
	}
	probe_point_method(p, used, sizeof(used));
	printf("chosen: %s; failures: %s\n", used, p->failures[0] ? p->failures : "none");
	if (!strcmp(used, "fentry")) {
		printf("this kernel runs fentry: the fallback path is exercised in the VM tests\n");
	} else {
		CHECK_STR(used, expect_method);
		CHECK(strstr(p->failures, "fentry load failed") != NULL || norder > 0);
		CHECK(strstr(p->failures, "tracepoint attach failed") != NULL);
		CHECK(probe_set_fell_back(&ps));
	}
	/* The chosen program is attached and counts our own syscalls. */
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	CHECK(skel->bss->hits >= 100);
	probe_set_stop(&ps);
	close_obj(NULL);
}

static void run_targets(const char *only)
{
	/* The second point is disabled: it keeps the object's other programs (the first two
	 * candidates of the table above; tp_btf is shared) unloaded. */
	struct probe_point points[2] = {
		{ .name = "read_point", .candidates = target_candidates, .ncandidates = 4, .enabled = true, .chosen = -1 },
		{ .name = "unused", .candidates = candidates, .ncandidates = 2, .enabled = false, .chosen = -1 },
	};
	struct probe_point *const p = &points[0];
	struct probe_set ps = { .points = points, .npoints = 2, .module = "fallback-test" };
	struct probe_object po = { .open = open_obj, .load = load_obj, .close = close_obj };
	char err[ERR_MAX] = "", used[96], buf[16];
	int fd;

	if (only && attach_method_parse(only, &ps.order[0])) {
		printf("FAIL test_probe_fallback targets: EBPF_ATTACH_ORDER=%s is not one attach method\n", only);
		CHECK(!"EBPF_ATTACH_ORDER names one method");
		return;
	}
	ps.norder = only ? 1 : 0;
	if (probe_set_start(&ps, &po, err, sizeof(err))) {
		printf("FAIL test_probe_fallback targets %s: %s\n", only ? only : "default", err);
		CHECK(!"probe set with targets started");
		return;
	}
	probe_point_method(p, used, sizeof(used));
	printf("targets: chosen %s; failures: %s\n", used, p->failures[0] ? p->failures : "none");
	CHECK(!strcmp(used, "fentry:vfs_read") || !strcmp(used, "kprobe:vfs_read") || !strcmp(used, "tp_btf"));
	if (only)
		CHECK(!strncmp(used, only, strlen(only)));
	/* The existence check skipped the missing first name: it was never loaded. */
	CHECK(strstr(p->failures, "ebpf_test_no_such_function") == NULL);
	if (only) {
		/* Restricted to one method: the others were never tried, so never failed. */
		for (enum attach_method a = 0; a < ATTACH_METHOD_COUNT; a++)
			if (strcmp(attach_method_name(a), only))
				CHECK(strstr(p->failures, attach_method_name(a)) == NULL);
	} else if (!strcmp(used, "tp_btf")) {
		/* Table order reached tp_btf: both kernel-function methods were tried and failed. */
		CHECK(strstr(p->failures, "fentry:vfs_read") != NULL);
		CHECK(strstr(p->failures, "kprobe:vfs_read") != NULL);
	}
	/* Whenever the kprobe candidates were tried, the one whose names all miss says so. */
	if (!strncmp(used, "kprobe", 6) || (!only && !strcmp(used, "tp_btf")))
		CHECK(strstr(p->failures, "kprobe: no function ebpf_test_missing_a, ebpf_test_missing_b") != NULL);
	fd = open("/dev/zero", O_RDONLY);
	CHECK(fd >= 0);
	skel->bss->hits = 0;
	for (int i = 0; i < 100; i++)
		CHECK(read(fd, buf, sizeof(buf)) == sizeof(buf));
	close(fd);
	/* fentry/kprobe on vfs_read: exactly our reads; tp_btf counts every syscall. */
	if (strcmp(used, "tp_btf"))
		CHECK_EQ_U64(skel->bss->hits, 100);
	else
		CHECK(skel->bss->hits >= 100);
	printf("%s test_probe_fallback targets %s (%s)\n", testing_failures ? "FAIL" : "PASS", only ? only : "default",
	       used);
	probe_set_stop(&ps);
	close_obj(NULL);
}

int main(int argc, char **argv)
{
	if (geteuid() != 0 || !privileges_sufficient())
		SKIP("needs root (or CAP_BPF + CAP_PERFMON) to load BPF programs");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP("kernel has no BTF (/sys/kernel/btf/vmlinux)");

	/* Table order: fentry, tracepoint, tp_btf. */
	run(NULL, 0, "tp_btf");
	/* AttachOrder reorders and restricts: tracepoint first, then tp_btf; fentry never tried. */
	const enum attach_method order[] = { ATTACH_TRACEPOINT, ATTACH_TP_BTF };
	run(order, 2, "tp_btf");

	/* Nothing left: the error lists every failure. */
	const enum attach_method only_tp[] = { ATTACH_TRACEPOINT };
	struct probe_point points[2] = {
		{ .name = "test_point", .candidates = candidates, .ncandidates = 3, .enabled = true, .chosen = -1 },
		{ .name = "unused", .candidates = target_candidates, .ncandidates = 3, .enabled = false, .chosen = -1 },
	};
	struct probe_set ps = { .points = points, .npoints = 2, .module = "fallback-test", .norder = 1 };
	struct probe_object po = { .open = open_obj, .load = load_obj, .close = close_obj };
	char err[ERR_MAX] = "";

	ps.order[0] = only_tp[0];
	CHECK(probe_set_start(&ps, &po, err, sizeof(err)) == -1);
	printf("error: %s\n", err);
	CHECK(strstr(err, "no attach method works for test_point: tracepoint attach failed") != NULL);
	CHECK(skel == NULL); /* the object is closed on failure */
	/* EBPF_ATTACH_ORDER=fentry, kprobe or tp_btf makes that one method mandatory, for
	 * kernels that have it (the VM runs); without it the table order decides. */
	const char *only = getenv("EBPF_ATTACH_ORDER");

	run_targets(only && only[0] ? only : NULL);
	return testing_done();
}
