/* Root test of the modules' kernel memory (libcore/engine/map_layout.h, memory_plan.h):
 * every module of the table, and syscalls with `Latency "all"`, planned before load and
 * then started, on this kernel and at its possible CPUs:
 *   - the self-metric kernel_memory equals the sum of what the kernel charges for the
 *     object's maps (fdinfo memlock, what bpftool prints), read through the maps' ids;
 *   - each map's planned bytes are within 1/8 + 8 KiB of that charge (kernels before 6.4
 *     charge whole pages, later ones the exact sizes);
 *   - a map that holds histograms is shared (BPF_MAP_TYPE_ARRAY, one copy for all CPUs),
 *     except runqueue's per-CPU series; a counter map is per-CPU only while its copies
 *     take at most MAP_LAYOUT_PERCPU_MAX_BYTES, a hot one (syscalls' count table) at most
 *     MAP_LAYOUT_HOT_PERCPU_MAX_BYTES: planned as at 128 possible CPUs it is per-CPU, as
 *     at 129 shared.
 * In the scale bench's VM (256 possible CPUs) the same checks run where per-CPU copies
 * really cost 256 times. A module off on this kernel is left out (test_self_metrics says
 * why it is off). */
#include "libcore/engine/map_layout.h"
#include "libcore/engine/memory_plan.h"
#include "tests/support/module_test.h"
#include "tests/support/recording_sink.h"
#include "base/err_max.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <string.h>

/* The map's kernel-side type and charge, asked by id (as bpftool does), not by our fd. */
static int charge_by_id(int fd, uint32_t *type, uint64_t *bytes)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	int id_fd, e;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	*type = info.type;
	id_fd = bpf_map_get_fd_by_id(info.id);
	if (id_fd < 0)
		return -1;
	e = map_charged_bytes(id_fd, bytes);
	close(id_fd);
	return e;
}

static const struct map_view *view_of(const struct module *m, const char *map)
{
	for (int i = 0; i < m->ops->nviews; i++)
		if (!strcmp(m->ops->views[i].map, map))
			return &m->ops->views[i];
	return NULL;
}

static bool has_histograms(const struct map_view *v)
{
	for (int i = 0; i < v->nfields; i++)
		if (v->fields[i].kind == VALUE_HISTOGRAM)
			return true;
	return false;
}

static void check_layout(const struct module *m, const struct bpf_map *map, uint32_t type, int ncpus)
{
	const struct map_view *v = view_of(m, bpf_map__name(map));
	uint64_t copy = ((bpf_map__value_size(map) + 7) & ~7u) * (uint64_t)bpf_map__max_entries(map);

	if (!v || v->shape != VIEW_PERCPU_ARRAY)
		return;
	if (v->per_cpu_feature)
		CHECK(type == BPF_MAP_TYPE_PERCPU_ARRAY);
	else if (has_histograms(v))
		CHECK(type == BPF_MAP_TYPE_ARRAY);
	else
		CHECK(type == (copy * ncpus <= (v->hot ? MAP_LAYOUT_HOT_PERCPU_MAX_BYTES : MAP_LAYOUT_PERCPU_MAX_BYTES)
				       ? BPF_MAP_TYPE_PERCPU_ARRAY
				       : BPF_MAP_TYPE_ARRAY));
}

/* 1 if the module ran and was checked. */
static int check(struct module *m, const char *what)
{
	struct recording r = { 0 };
	double kernel_memory = 0;
	int kernel_memory_sent;
	struct module_memory plan;
	char err[ERR_MAX];
	uint64_t total = 0;
	int ncpus = libbpf_num_possible_cpus();

	if (!m)
		return 0;
	CHECK(module_plan_memory(m, ncpus, &plan, err, sizeof(err)) == 0);
	if (module_start(m)) {
		printf("  %s: off here: %s\n", what, m->last_error);
		module_free(m);
		return 0;
	}
	for (int i = 0; i < plan.nmaps; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(m->probes.obj, plan.maps[i].name);
		uint64_t charged = 0, planned = plan.maps[i].bytes, diff;
		uint32_t type = 0;

		CHECK(map != NULL);
		if (!map || bpf_map__fd(map) < 0)
			continue;
		CHECK(charge_by_id(bpf_map__fd(map), &type, &charged) == 0);
		total += charged;
		diff = planned > charged ? planned - charged : charged - planned;
		printf("  %s: map %-20s %-7s planned %9llu B, the kernel charges %9llu B\n", what, plan.maps[i].name,
		       type == BPF_MAP_TYPE_PERCPU_ARRAY ? "per-CPU" : "", (unsigned long long)planned,
		       (unsigned long long)charged);
		CHECK(diff <= charged / 8 + 8192);
		check_layout(m, map, type, ncpus);
	}
	CHECK(recording_read(&r, m) == 0);
	kernel_memory_sent = recorded_count(&r, RECORDED_GAUGE, "kernel_memory", NULL);
	recorded_gauge(&r, "kernel_memory", NULL, &kernel_memory);
	recording_free(&r);
	printf("  %s: kernel_memory %.0f B, the maps' charges add up to %llu B (%d possible CPUs)\n", what,
	       kernel_memory, (unsigned long long)total, ncpus);
	CHECK(kernel_memory_sent == 1);
	CHECK(kernel_memory == (double)total);
	module_free(m);
	return 1;
}

/* Whether syscalls' count table is planned per-CPU as a machine with cpus possible CPUs
 * would lay it out (the kernel is not asked: nothing loads). */
static bool counts_percpu_at(int cpus)
{
	struct module *m = mt_module("syscalls", "auto", NULL);
	struct module_memory plan;
	char err[ERR_MAX];
	bool percpu = false;

	CHECK(m && module_plan_memory(m, cpus, &plan, err, sizeof(err)) == 0);
	for (int i = 0; m && i < plan.nmaps; i++)
		if (!strcmp(plan.maps[i].name, "counts"))
			percpu = plan.maps[i].percpu;
	module_free(m);
	return percpu;
}

int main(void)
{
	int ran = 0;

	mt_require_root();
	mt_log_reset();
	for (int i = 0; module_table[i]; i++)
		ran += check(mt_module(module_table[i]->name, "auto", NULL), module_table[i]->name);
	ran += check(mt_module("syscalls", "auto", "Latency", "all", NULL), "syscalls Latency all");
	printf("%d module configurations ran\n", ran);
	/* 512 rows x 16 B: 1 MiB of copies at 128 possible CPUs, 2 MiB at 256. */
	CHECK(counts_percpu_at(128));
	CHECK(!counts_percpu_at(129));
	CHECK(!counts_percpu_at(256));
	CHECK(ran >= 6); /* the tracepoint modules run on every kernel we support */
	return testing_done();
}
