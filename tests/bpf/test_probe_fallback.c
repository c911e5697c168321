/* Root test of libcore/probe.c's attach fallback with a real BPF object whose candidates
 * fail in different ways: a load failure (fentry, refused on kernels without it) and an
 * attach failure (a tracepoint that does not exist) must each be noted, and the first
 * candidate that works must be chosen, attached and counting. */
#include "libcore/log.h"
#include "libcore/privileges.h"
#include "libcore/probe.h"
#include "tests/testing.h"
#include "fallback.skel.h"

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

static void run(const enum attach_method *order, int norder, const char *expect_method)
{
	struct probe_point point = { .name = "test_point", .candidates = candidates, .ncandidates = 3,
				     .enabled = true, .chosen = -1 };
	struct probe_set ps = { .points = &point, .npoints = 1, .module = "fallback-test", .norder = norder };
	struct probe_object po = { .open = open_obj, .load = load_obj, .close = close_obj };
	char err[1024] = "", used[64];

	for (int i = 0; i < norder; i++)
		ps.order[i] = order[i];
	if (probe_set_start(&ps, &po, err, sizeof(err))) {
		fprintf(stderr, "start failed: %s\n", err);
		CHECK(!"probe set started");
		return;
	}
	probe_point_method(&point, used, sizeof(used));
	printf("chosen: %s; failures: %s\n", used, point.failures[0] ? point.failures : "none");
	if (getenv("EBPF_ATTACH_ORDER")) {
		CHECK_STR(used, expect_method); /* a forced method must be the one that works */
	} else if (!strcmp(used, "fentry")) {
		printf("this kernel runs fentry: the fallback path is exercised in the VM tests\n");
	} else {
		CHECK_STR(used, expect_method);
		CHECK(strstr(point.failures, "fentry load failed") != NULL || norder > 0);
		CHECK(strstr(point.failures, "tracepoint attach failed") != NULL);
		CHECK(probe_set_fell_back(&ps));
	}
	/* The chosen program is attached and counts our own syscalls. */
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	CHECK(skel->bss->hits >= 100);
	probe_set_stop(&ps);
	close_obj(NULL);
}

int main(void)
{
	if (geteuid() != 0 || !privileges_sufficient())
		SKIP("needs root (or CAP_BPF + CAP_PERFMON) to load BPF programs");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP("kernel has no BTF (/sys/kernel/btf/vmlinux)");

	const char *forced = getenv("EBPF_ATTACH_ORDER");
	if (forced) {
		/* The kernel matrix (tests/vm/) forces one method per run ("fentry", "tp_btf"): the
		 * object must attach with exactly that method and count. */
		enum attach_method m;

		if (attach_method_parse(forced, &m))
			SKIP("EBPF_ATTACH_ORDER=%s: this test takes one method (fentry, tracepoint, tp_btf)", forced);
		run(&m, 1, forced);
	} else {
		/* Table order: fentry, tracepoint, tp_btf. */
		run(NULL, 0, "tp_btf");
		/* AttachOrder reorders and restricts: tracepoint first, then tp_btf; fentry never tried. */
		const enum attach_method order[] = { ATTACH_TRACEPOINT, ATTACH_TP_BTF };
		run(order, 2, "tp_btf");
	}

	/* Nothing left: the error lists every failure. */
	const enum attach_method only_tp[] = { ATTACH_TRACEPOINT };
	struct probe_point point = { .name = "test_point", .candidates = candidates, .ncandidates = 3,
				     .enabled = true, .chosen = -1 };
	struct probe_set ps = { .points = &point, .npoints = 1, .module = "fallback-test", .norder = 1 };
	struct probe_object po = { .open = open_obj, .load = load_obj, .close = close_obj };
	char err[1024] = "";

	ps.order[0] = only_tp[0];
	CHECK(probe_set_start(&ps, &po, err, sizeof(err)) == -1);
	printf("error: %s\n", err);
	CHECK(strstr(err, "no attach method works for test_point: tracepoint attach failed") != NULL);
	CHECK(skel == NULL); /* the object is closed on failure */
	return testing_done();
}
