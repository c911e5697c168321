/* Root test of the self-metrics every module sends the same way (libcore/engine/self_metrics.c):
 * each module of the module table is started with its own attach order and read once, and must
 * send `dropped`/`recursion` (the kernel's recursion misses of its programs) exactly once, one
 * `map_fill` (0-100) per hash map its object created, and one `attach` per enabled point.
 * The value itself is whatever the kernel counted (0 on kernels before 5.12); only its
 * presence is asserted, so the test cannot be flaky.
 *
 * A module this kernel has no way to run (the kernel-function modules on a kernel without
 * fentry and kprobes, as this project's CI machine) must be off as "unsupported"; where the
 * kernel matrix says those methods exist (EBPF_EXPECT_KFUNCS=1), every module must run. */
#include "libcore/kernel/map_entries.h"
#include "tests/support/loop_ext4.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"

#include <bpf/libbpf.h>

struct seen {
	int recursion; /* times dropped/recursion was sent */
	uint64_t value;
	int fills, bad_fills; /* map_fill gauges sent, and those outside 0-100 */
	int attach;           /* attach gauges sent */
};

/* What one read sent: how often dropped-recursion came, and the map_fill and attach gauges. */
static struct seen seen_in(const struct recording *r)
{
	struct seen s = { 0 };
	const struct recorded_value *recursion = recorded(r, RECORDED_COUNTER, "dropped", "recursion");

	s.recursion = recorded_count(r, RECORDED_COUNTER, "dropped", "recursion");
	s.value = recursion ? recursion->counter : 0;
	s.attach = recorded_count(r, RECORDED_GAUGE, "attach", NULL);
	for (int i = 0; i < r->n; i++) {
		const struct recorded_value *v = &r->values[i];

		if (v->kind == RECORDED_GAUGE && !strcmp(v->metric, "map_fill")) {
			s.fills++;
			s.bad_fills += !(v->gauge >= 0 && v->gauge <= 100);
		}
	}
	return s;
}

/* The maps of m's object that can fill and were created: one map_fill each. */
static int fillable_maps(const struct module *m)
{
	struct bpf_map *map;
	int n = 0;

	bpf_object__for_each_map(map, m->probes.obj)
		n += map_created(map) && map_type_can_fill(bpf_map__type(map));
	return n;
}

static int enabled_points(const struct module *m)
{
	int n = 0;

	for (int i = 0; i < m->probes.npoints; i++)
		n += m->probes.points[i].enabled;
	return n;
}

/* 1 if the module ran and was checked, 0 if it is off on this kernel. */
static int check_module(const struct module_ops *ops, bool kfuncs)
{
	/* fs times the filesystems it is given: the scratch ext4 is mounted. */
	struct module *m = !strcmp(ops->name, "fs") ? mt_module(ops->name, "auto", "Filesystem", "ext4", NULL)
						  : mt_module(ops->name, "auto", NULL);
	struct recording r = { 0 };
	struct seen s;
	int ran = 0;

	if (!m)
		return 0;
	if (module_start(m) == 0) {
		CHECK(recording_read(&r, m) == 0);
		s = seen_in(&r);
		recording_free(&r);
		printf("  %s: dropped-recursion sent %d time(s), value %llu\n", ops->name, s.recursion,
		       (unsigned long long)s.value);
		CHECK(s.recursion == 1);
		printf("  %s: map_fill sent for %d map(s) of %d that can fill, attach for %d point(s)\n", ops->name,
		       s.fills, fillable_maps(m), s.attach);
		CHECK(s.fills == fillable_maps(m));
		CHECK(s.bad_fills == 0);
		CHECK(s.attach == enabled_points(m));
		ran = 1;
	} else {
		printf("  %s: off on this kernel (%s): %s\n", ops->name, module_state_name(m->state), m->last_error);
		CHECK(!kfuncs); /* the matrix's kernels have a way in for every module */
		CHECK(m->state == MODULE_UNSUPPORTED);
	}
	module_free(m);
	return ran;
}

int main(void)
{
	const char *e = getenv("EBPF_EXPECT_KFUNCS");
	bool kfuncs = e && !strcmp(e, "1");
	struct loop_ext4 fs;
	int ran = 0;

	mt_require_root();
	mt_log_reset();
	/* Mounting first also loads ext4 where it is a module, so the fs module finds it. */
	if (loop_ext4_setup(&fs, 32))
		SKIP("%s", fs.why);
	for (int i = 0; module_table[i]; i++)
		ran += check_module(module_table[i], kfuncs);
	loop_ext4_teardown(&fs);
	printf("%d modules ran and sent dropped-recursion\n", ran);
	CHECK(ran >= 5); /* the tracepoint modules run on every kernel we support */
	return testing_done();
}
