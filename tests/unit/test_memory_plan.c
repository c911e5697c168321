/* KernelMemoryLimit's value (memory_plan.h) without collectd: sizes with K, M, G, the
 * bounds, and the text the plan and its errors print sizes in. The plan itself needs BPF
 * objects and the kernel: tests/bpf/test_kernel_memory, tests/integration/collectd_kernel_memory.sh. */
#include <math.h>

#include "libcore/engine/memory_plan.h"
#include "tests/unit/option_values.h"
#include "tests/testing.h"

static int limit_of(struct opt_value v, uint64_t *limit, char *err, size_t len)
{
	struct option o = { .key = "kernelmemorylimit", .values = &v, .nvalues = 1 };

	return kernel_memory_limit_option(limit, &o, err, len);
}

int main(void)
{
	char err[512], t[32];
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
	struct opt_value two[] = { str("1M"), str("2M") };
	struct option o2 = { .key = "KernelMemoryLimit", .values = two, .nvalues = 2 };
	CHECK(kernel_memory_limit_option(&limit, &o2, err, sizeof(err)) == -1);
	CHECK_STR(memory_bytes_text(368, t, sizeof(t)), "368 B");
	CHECK_STR(memory_bytes_text(20792, t, sizeof(t)), "20.3 KiB");
	CHECK_STR(memory_bytes_text(64ull << 20, t, sizeof(t)), "64.0 MiB");
	CHECK(KERNEL_MEMORY_LIMIT_DEFAULT == 64ull << 20);
	return testing_done();
}
