/* KernelMemoryLimit's value (memory_plan.h) without collectd: sizes with K, M, G, the
 * bounds, and the text the plan and its errors print sizes in; the default precisions'
 * budget (hist_config.h) for host-wide and per-cgroup rows. The plan itself needs BPF
 * objects and the kernel: tests/engine/test_kernel_memory, tests/engine/collectd_kernel_memory.sh. */
#include <math.h>

#include "libcore/engine/memory_plan.h"
#include "libcore/hist/hist_config.h"
#include "tests/support/option_values.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

static int limit_of(struct opt_value v, uint64_t *limit, char *err, size_t len)
{
	struct option o = { .key = "kernelmemorylimit", .values = &v, .nvalues = 1 };

	return kernel_memory_limit_option(limit, &o, err, len);
}

int main(void)
{
	char err[ERR_MAX], t[32];
	uint64_t limit = 0;
	struct option other = { .key = "CollectCost" };

	CHECK(kernel_memory_limit_option(&limit, &other, err, sizeof(err)) == 0); /* not ours */
	CHECK(limit_of(str("64M"), &limit, err, sizeof(err)) == 1 && limit == 64ull << 20);
	CHECK(limit_of(str("300k"), &limit, err, sizeof(err)) == 1 && limit == 300ull << 10);
	CHECK(limit_of(str("1G"), &limit, err, sizeof(err)) == 1 && limit == 1ull << 30);
	CHECK(limit_of(str("1.5M"), &limit, err, sizeof(err)) == 1 && limit == 1572864);
	CHECK(limit_of(num(8192), &limit, err, sizeof(err)) == 1 && limit == 8192);
	CHECK(limit_of(str("4096"), &limit, err, sizeof(err)) == 1 && limit == 4096);
	/* refused, the limit left as it was */
	const struct opt_value bad[] = { str("lots"), str("64X"), str("64MB"), str(""), str("-1M"), num(0),
					 num(4095), num(5000.5), num(NAN), num(1e300), str("2T") };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK(limit_of(bad[i], &limit, err, sizeof(err)) == -1);
		CHECK(strstr(err, "KernelMemoryLimit takes one size in bytes") != NULL);
	}
	CHECK(limit == 4096);
	/* Each refusal names the value as written and what is wrong with it. */
	const struct {
		struct opt_value v;
		const char *says;
	} why[] = {
		{ str("64MB"), "KernelMemoryLimit \"64MB\": \"MB\" is not a unit (K, M or G, nothing after it)" },
		{ num(64), "KernelMemoryLimit 64: 64 bytes, fewer than the least, 4096: a number without K, M or G "
			   "counts bytes, \"64M\" would be 64 MiB" },
		{ str("lots"), "KernelMemoryLimit \"lots\": it does not start with a number" },
		{ str("-1M"), "KernelMemoryLimit \"-1M\": a negative size" },
		{ num(5000.5), "KernelMemoryLimit 5000.5: not a whole number of bytes" },
		{ str("2T"), "KernelMemoryLimit \"2T\": \"T\" is not a unit" },
		{ num(1e300), "KernelMemoryLimit 1e+300: more than the most, 1T" },
	};
	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		CHECK(limit_of(why[i].v, &limit, err, sizeof(err)) == -1);
		if (!strstr(err, why[i].says))
			printf("  expected \"%s\" in: %s\n", why[i].says, err);
		CHECK(strstr(err, why[i].says) != NULL);
	}
	struct opt_value two[] = { str("1M"), str("2M") };
	struct option o2 = { .key = "KernelMemoryLimit", .values = two, .nvalues = 2 };
	CHECK(kernel_memory_limit_option(&limit, &o2, err, sizeof(err)) == -1);
	CHECK_STR(memory_bytes_text(368, t, sizeof(t)), "368 B");
	CHECK_STR(memory_bytes_text(20792, t, sizeof(t)), "20.3 KiB");
	CHECK_STR(memory_bytes_text(64ull << 20, t, sizeof(t)), "64.0 MiB");
	CHECK(KERNEL_MEMORY_LIMIT_DEFAULT == 64ull << 20);

	/* The budget of the default precisions, for block with By "cgroup" on a machine with 10
	 * disks at 2 possible CPUs (doc/modules.md, Memory): its disk table counts (100 + 2) x 3
	 * / 8 = 38 rows, its per-cgroup table 2 x MaxSeries 100 x 3 = 600. One budget for both
	 * would take the host-wide rows from 5 to 2; each on its own keeps them at 5 and gives
	 * the per-cgroup rows 2 (600 x 1,200 bytes fit 1 MiB, 600 x 2,320 do not). */
	struct hist_config def, user;
	hist_config_init(&def);
	CHECK(hist_config_precision(&def, 38 + 600) == 2);
	CHECK(hist_config_precision(&def, 38) == 5);
	CHECK(hist_config_precision_at_most(&def, 5, 600) == 2);
	CHECK(hist_config_precision_at_most(&def, 5, 20 * 2 * 3) == 5); /* MaxSeries 20: 120 x 8,720 bytes fit */
	CHECK(hist_config_precision_at_most(&def, 5, 21 * 2 * 3) == 4);
	CHECK(hist_config_precision_at_most(&def, 1, 600) == 1);        /* no finer than the host-wide rows */
	def.precision = 0;                                              /* lowered by KernelMemoryLimit */
	CHECK(hist_config_precision_at_most(&def, 5, 1) == 0);
	hist_config_init(&user);
	user.precision = 4;
	user.precision_from_user = true; /* CgroupPrecision 4: whatever the budget or the host-wide rows */
	CHECK(hist_config_precision_at_most(&user, 1, 600) == 4);
	return testing_done();
}
