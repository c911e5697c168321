/* block and runqueue configuration through the module table, the Disk ignorelist, and
 * disk naming from uevent and /proc/partitions text; no root, no BPF loaded (block's
 * object is opened and sized for its memory plan, as collectd -T does). */
#include "libcore/decode/disk_names.h"
#include "libcore/engine/memory_plan.h"
#include "libcore/engine/module.h"
#include "libcore/decode/name_filter.h"
#include "tests/support/option_values.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_block_options(void)
{
	char err[ERR_MAX];
	struct module *m = module_new(module_find("block"), NULL);

	CHECK(m != NULL);
	struct opt_value disks[] = { str("sda"), str("/^nvme/") };
	CHECK(set_option(m, "Disk", disks, 2, err, sizeof(err)) == 0);
	struct opt_value yes[] = { { .type = OPT_BOOLEAN, .boolean = true } };
	CHECK(set_option(m, "IgnoreSelected", yes, 1, err, sizeof(err)) == 0);
	CHECK(set_option(m, "QueueTime", yes, 1, err, sizeof(err)) == 0);
	struct opt_value quoted[] = { str("false") };
	CHECK(set_option(m, "QueueTime", quoted, 1, err, sizeof(err)) == 0);

	struct opt_value badre[] = { str("/sd[/") };
	CHECK(set_option(m, "Disk", badre, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "Disk") && strstr(err, "not a valid regular expression"));
	struct opt_value empty[] = { str("") };
	CHECK(set_option(m, "Disk", empty, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "/proc/diskstats") != NULL);
	struct opt_value n1[] = { { .type = OPT_NUMBER, .number = 1 } };
	CHECK(set_option(m, "Disk", n1, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "double quotes") != NULL);
	CHECK(set_option(m, "IgnoreSelected", n1, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "IgnoreSelected") && strstr(err, "boolean"));
	struct opt_value maybe[] = { str("maybe") };
	CHECK(set_option(m, "QueueTime", maybe, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "QueueTime") != NULL);
	CHECK(set_option(m, "Disks", disks, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown option \"Disks\"") && strstr(err, "Disk, IgnoreSelected, QueueTime"));
	module_free(m);
}

/* block's plan with and without By "cgroup", at 2 possible CPUs (objects opened and sized,
 * never loaded). */
static struct module *block_with(bool by_cgroup, double precision, double cgroup_precision)
{
	char err[ERR_MAX];
	struct module *m = module_new(module_find("block"), NULL);
	struct opt_value by[] = { str("cgroup") }, p[] = { num(precision) }, cp[] = { num(cgroup_precision) };

	CHECK(m != NULL);
	if (by_cgroup)
		CHECK(set_option(m, "By", by, 1, err, sizeof(err)) == 0);
	if (precision >= 0)
		CHECK(set_option(m, "Precision", p, 1, err, sizeof(err)) == 0);
	if (cgroup_precision >= 0)
		CHECK(set_option(m, "CgroupPrecision", cp, 1, err, sizeof(err)) == 0);
	return m;
}

static void plan(struct module *m, struct module_memory *mm)
{
	char err[ERR_MAX];

	CHECK(module_plan_memory(m, 2, mm, err, sizeof(err)) == 0);
}

/* By "cgroup" leaves the host-wide rows' precision as it is without it; the per-cgroup rows
 * (2 x MaxSeries cgroups x 3 = 600 latency rows) get theirs on a budget of their own: 600
 * rows fit 1 MiB at precision 2 (1,200 bytes a row), not 3 (2,320). */
static void test_block_cgroup_precision(void)
{
	char err[ERR_MAX];
	struct module *off = block_with(false, -1, -1), *on = block_with(true, -1, -1);
	struct module_memory a, b;

	plan(off, &a);
	plan(on, &b);
	CHECK(a.cgroup_hist_rows == 0);
	CHECK(b.precision == a.precision);
	CHECK(b.cgroup_hist_rows == 600);
	CHECK(b.cgroup_precision == (a.precision < 2 ? a.precision : 2));
	CHECK(on->precision == b.precision && on->cgroup_precision == b.cgroup_precision);

	/* KernelMemoryLimit just under the plan: the per-cgroup rows record coarser first, the
	 * host-wide rows keep their precision. */
	struct memory_plan mp;
	struct module *mods[] = { on };
	CHECK(memory_plan_make(&mp, mods, 1, b.bytes - 1) == 0);
	CHECK(!mp.refused[0] && mp.plans[0].bytes <= b.bytes - 1);
	CHECK(mp.plans[0].precision == b.precision);
	CHECK(mp.plans[0].cgroup_precision < b.cgroup_precision);
	char line[2048];
	memory_plan_describe(&mp, 0, line, sizeof(line));
	char want[64];
	snprintf(want, sizeof(want), ", precision %u, per-cgroup precision %u", b.precision, mp.plans[0].cgroup_precision);
	CHECK(strstr(line, want) != NULL);
	memory_plan_free(&mp);
	module_free(off);
	module_free(on);

	/* The user's CgroupPrecision, finer or coarser than the host-wide rows'. */
	on = block_with(true, 1, 4);
	plan(on, &b);
	CHECK(b.precision == 1 && b.cgroup_precision == 4);
	module_free(on);
	/* Precision alone: the per-cgroup rows no finer than it. */
	on = block_with(true, 1, -1);
	plan(on, &b);
	CHECK(b.precision == 1 && b.cgroup_precision == 1);
	module_free(on);

	/* CgroupPrecision needs By "cgroup"; out of range is refused, naming its range. */
	on = block_with(false, -1, 3);
	CHECK(module_check_config(on, err, sizeof(err)) == -1);
	CHECK(strstr(err, "CgroupPrecision") && strstr(err, "By \"cgroup\""));
	struct opt_value six[] = { num(6) };
	CHECK(set_option(on, "CgroupPrecision", six, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "CgroupPrecision takes one whole number from 0 to 5") != NULL);
	module_free(on);
}

static void test_runqueue_options(void)
{
	char err[ERR_MAX];
	struct module *m = module_new(module_find("runqueue"), NULL);

	CHECK(m != NULL);
	struct opt_value yes[] = { { .type = OPT_BOOLEAN, .boolean = true } };
	CHECK(set_option(m, "PerCPU", yes, 1, err, sizeof(err)) == 0);
	struct opt_value cpu0[] = { str("cpu0") };
	CHECK(set_option(m, "PerCPU", cpu0, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "PerCPU") != NULL);
	CHECK(set_option(m, "Disk", cpu0, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "valid options: PerCPU") != NULL);
	module_free(m);
}

static void test_name_filter(void)
{
	char err[ERR_MAX];
	struct name_filter none = { 0 }, only = { 0 }, but = { .ignore_selected = true }, but_nothing = { .ignore_selected = true };

	/* no Disk: everything, whatever IgnoreSelected says */
	CHECK(name_filter_collects(&none, "sda"));
	CHECK(name_filter_collects(&but_nothing, "sda"));
	/* Disk "sda" "/^loop[0-9]+$/": only those */
	CHECK(name_filter_add(&only, "Disk", "sda", err, sizeof(err)) == 0);
	CHECK(name_filter_add(&only, "Disk", "/^loop[0-9]+$/", err, sizeof(err)) == 0);
	CHECK(name_filter_collects(&only, "sda"));
	CHECK(name_filter_collects(&only, "loop12"));
	CHECK(!name_filter_collects(&only, "sda1")); /* exact names, not prefixes */
	CHECK(!name_filter_collects(&only, "nvme0n1"));
	/* IgnoreSelected true: all but those */
	CHECK(name_filter_add(&but, "Disk", "/^loop/", err, sizeof(err)) == 0);
	CHECK(!name_filter_collects(&but, "loop0"));
	CHECK(name_filter_collects(&but, "dm-0"));
	name_filter_free(&only);
	name_filter_free(&but);
}

static void test_disk_names(void)
{
	char name[DISK_NAME_LEN];
	const char *uevent = "MAJOR=259\nMINOR=0\nDEVNAME=nvme0n1\nDEVTYPE=disk\nDISKSEQ=1\n";
	const char *partitions = "major minor  #blocks  name\n\n 254        0  268435456 vda\n 253        1    1048576 dm-1\n";

	CHECK(uevent_devname(uevent, name, sizeof(name)) == 0);
	CHECK_STR(name, "nvme0n1");
	CHECK(uevent_devname("MAJOR=7\nMINOR=0\n", name, sizeof(name)) == -1);
	CHECK(partitions_name(partitions, 253, 1, name, sizeof(name)) == 0);
	CHECK_STR(name, "dm-1");
	CHECK(partitions_name(partitions, 253, 2, name, sizeof(name)) == -1);
	CHECK(kdev_major((254u << 20) | 3) == 254 && kdev_minor((254u << 20) | 3) == 3);

	/* A dev_t nothing knows reads MAJ_MIN; with a fake /proc/partitions it is resolved. */
	char path[] = "/tmp/ebpf-test-partitions-XXXXXX";
	int fd = mkstemp(path);
	struct disk_names c = { .sysfs = "/nonexistent", .partitions = path };

	CHECK(fd >= 0);
	CHECK(write(fd, partitions, strlen(partitions)) == (ssize_t)strlen(partitions));
	close(fd);
	CHECK_STR(disk_name(&c, (253u << 20) | 1), "dm-1");
	CHECK_STR(disk_name(&c, (253u << 20) | 1), "dm-1"); /* cached */
	CHECK_STR(disk_name(&c, (8u << 20) | 16), "8_16");
	CHECK(c.n == 1); /* unresolved names are not cached: tried again next time */
	unlink(path);
	disk_names_free(&c);
}

/* write_file PATH TEXT */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* Hot-replug: the disk at 259:3 goes and another comes at the same dev_t under another
 * name. Within an interval the cached name is served; after disk_names_expire() (each
 * read) the new name; once the disk is gone, its last name. */
static void test_disk_name_reuse(void)
{
	char dir[] = "/tmp/ebpf-test-sysfs-XXXXXX", path[256];
	struct disk_names c = { .partitions = "/nonexistent" };
	uint32_t dev = (259u << 20) | 3;

	CHECK(mkdtemp(dir) != NULL);
	c.sysfs = dir;
	snprintf(path, sizeof(path), "%s/dev", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dev/block", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dev/block/259:3", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dev/block/259:3/uevent", dir);
	write_file(path, "MAJOR=259\nMINOR=3\nDEVNAME=nvme1n1\n");
	CHECK_STR(disk_name(&c, dev), "nvme1n1");
	write_file(path, "MAJOR=259\nMINOR=3\nDEVNAME=nvme0n1p2\n");
	CHECK_STR(disk_name(&c, dev), "nvme1n1"); /* the same interval */
	disk_names_expire(&c);
	CHECK_STR(disk_name(&c, dev), "nvme0n1p2");
	unlink(path);
	disk_names_expire(&c);
	CHECK_STR(disk_name(&c, dev), "nvme0n1p2"); /* gone: its last name */
	CHECK(c.n == 1);
	snprintf(path, sizeof(path), "%s/dev/block/259:3", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/dev/block", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/dev", dir);
	rmdir(path);
	rmdir(dir);
	disk_names_free(&c);
}

/* A /proc/partitions of 1000 disks (about 40 KiB): the last one is found too (the reader
 * stopped at 16 KiB before). */
static void test_partitions_big(void)
{
	char path[] = "/tmp/ebpf-test-partitions-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct disk_names c = { .sysfs = "/nonexistent", .partitions = path };

	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "major minor  #blocks  name\n\n");
	for (int i = 0; i < 1000; i++)
		fprintf(f, " 259 %10d  268435456 nvme%dn1\n", i, i);
	fclose(f);
	CHECK_STR(disk_name(&c, (259u << 20) | 999), "nvme999n1");
	unlink(path);
	disk_names_free(&c);
}

int main(void)
{
	test_block_options();
	test_block_cgroup_precision();
	test_runqueue_options();
	test_name_filter();
	test_disk_names();
	test_disk_name_reuse();
	test_partitions_big();
	return testing_done();
}
