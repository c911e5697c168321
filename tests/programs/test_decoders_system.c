/* The label decoders that ask the running system, on real objects (root):
 *  - majorminor: a loop device attached here, its dev_t in both encodings (the kernel's
 *    MKDEV as block tracepoints report it, and stat()'s st_rdev), 4 and 8 bytes, must read
 *    as its name, which /proc/diskstats must list;
 *  - cgroup: a cgroup made here under the cgroup2 mount, its id from name_to_handle_at (as
 *    bpf_get_current_cgroup_id() gives it) equal to its inode number, must read as its path,
 *    by file handle and by walking the hierarchy; a removed one as its number;
 *  - ksym: addresses of symbols /proc/kallsyms lists must read as their names;
 *  - kstack: a stack of addresses inside three of those functions, in both texts, ending at
 *    its first 0, with an address below every symbol and one above them all;
 *  - ifname: in a network namespace of its own (last: the process stays in it), a veth
 *    interface made here must read as its name, under its new name from the read after a
 *    rename, and as unknown:N from the read after its deletion. */
#define _GNU_SOURCE /* name_to_handle_at, unshare */
#include "libcore/decode/cgroup_paths.h"
#include "libcore/decode/ksym_table.h"
#include "libcore/decode/label_decoder.h"
#include "base/label_value.h"
#include "tests/support/loop_device.h"
#include "tests/support/testing.h"
#include "base/err_max.h"
#include "base/text_append.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *decode1(const char *name, const char *arg, const void *bytes, size_t size)
{
	static char out[DECODE_TEXT_MAX];
	struct decoder_chain c;
	char err[ERR_MAX];

	decoder_chain_init(&c, "test");
	if (decoder_chain_add(&c, name, &arg, arg ? 1 : 0, err, sizeof(err)) ||
	    decoder_chain_check(&c, size, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", name, err);
		snprintf(out, sizeof(out), "<error>");
	} else {
		decoder_chain_decode(&c, bytes, size, out, sizeof(out));
	}
	decoder_chain_free(&c);
	return out;
}

static int diskstats_lists(const char *name)
{
	FILE *f = fopen("/proc/diskstats", "re");
	char line[512], dev[64];
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*u %*u %63s", dev) == 1 && !strcmp(dev, name);
	if (f)
		fclose(f);
	return found;
}

static void test_majorminor(void)
{
	struct loop_device l;
	struct stat st;
	char err[ERR_MAX], path[64];
	uint32_t kdev32, sdev32;
	uint64_t kdev64, sdev64;

	if (loop_device_setup(&l, 8, NULL, err, sizeof(err))) {
		fprintf(stderr, "FAIL: no loop device: %s\n", err);
		CHECK(0);
		return;
	}
	snprintf(path, sizeof(path), "/dev/%s", l.name);
	CHECK(stat(path, &st) == 0);
	kdev32 = l.dev;
	kdev64 = l.dev;
	sdev64 = st.st_rdev;
	sdev32 = (uint32_t)st.st_rdev;
	CHECK_EQ_U64(kdev32, major(st.st_rdev) << 20 | minor(st.st_rdev)); /* two encodings of one device */
	CHECK(diskstats_lists(l.name));
	CHECK_STR(decode1("majorminor", NULL, &kdev32, 4), l.name);
	CHECK_STR(decode1("majorminor", "kernel", &kdev64, 8), l.name);
	CHECK_STR(decode1("majorminor", "stat", &sdev64, 8), l.name);
	CHECK_STR(decode1("majorminor", "stat", &sdev32, 4), l.name);
	/* ebpf_exporter's programs write stat's encoding in a u32 (its MKDEV is user space's) */
	CHECK_STR(decode1("majorminor", "ebpf_exporter", &sdev32, 4), l.name);
	CHECK_STR(decode1("majorminor", "ebpf_exporter", &sdev64, 8), l.name);
	printf("majorminor: %s is %u:%u, kernel 0x%x, stat 0x%llx\n", l.name, major(st.st_rdev), minor(st.st_rdev),
	       kdev32, (unsigned long long)sdev64);
	loop_device_remove(&l);
}

static void test_cgroup(void)
{
	struct {
		struct file_handle h;
		uint64_t id;
	} fh = { .h = { .handle_bytes = sizeof(uint64_t) } };
	char mnt[512], dir[700], sub[760], want[300], err[ERR_MAX], safe[LABEL_VALUE_MAX];
	struct cgroup_paths walk, shallow;
	char want_parent[300];
	struct stat st;
	int mount_id;
	uint64_t id, root_id;

	if (cgroup2_mount(mnt, sizeof(mnt), err, sizeof(err))) {
		fprintf(stderr, "FAIL: %s\n", err);
		CHECK(0);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/ebpf-decode-test-%d", mnt, (int)getpid());
	snprintf(sub, sizeof(sub), "%s/child", dir);
	if (mkdir(dir, 0755) || mkdir(sub, 0755)) {
		fprintf(stderr, "FAIL: mkdir %s: %m\n", sub);
		CHECK(0);
		rmdir(dir);
		return;
	}
	CHECK(stat(sub, &st) == 0);
	CHECK(name_to_handle_at(AT_FDCWD, sub, &fh.h, &mount_id, 0) == 0);
	id = fh.id;
	CHECK_EQ_U64(id, st.st_ino); /* the cgroup id is the directory's inode number */
	snprintf(want, sizeof(want), "/ebpf-decode-test-%d/child", (int)getpid());
	snprintf(want_parent, sizeof(want_parent), "/ebpf-decode-test-%d", (int)getpid());

	CHECK_STR(decode1("cgroup", NULL, &id, 8), want);
	snprintf(safe, sizeof(safe), "ebpf-decode-test-%d_child", (int)getpid());
	CHECK_STR(label_value_safe(decode1("cgroup", NULL, &id, 8), (char[LABEL_VALUE_MAX]){ 0 }), safe);
	CHECK(stat(mnt, &st) == 0);
	root_id = st.st_ino;
	CHECK_STR(decode1("cgroup", NULL, &root_id, 8), "/");

	/* Without file handles: the walk finds it too; then the cache answers. */
	CHECK(cgroup_paths_init(&walk, NULL, err, sizeof(err)) == 0);
	walk.walk_only = 1;
	CHECK(cgroup_path(&walk, id) && !strcmp(cgroup_path(&walk, id), want));
	CHECK_EQ_U64(walk.walks, 1);
	CHECK_EQ_U64(walk.lookups, 1);
	/* The walk named every cgroup it met: the parent is named by it too, without a walk of
	 * its own (one walk a second at most, whatever the number of new ids). */
	CHECK(stat(dir, &st) == 0);
	CHECK(cgroup_path(&walk, st.st_ino) && !strcmp(cgroup_path(&walk, st.st_ino), want_parent));
	CHECK_EQ_U64(walk.walks, 1);
	CHECK_EQ_U64(walk.lookups, 2);
	/* A walk goes walk_depth levels down (CgroupDepth): the child, at depth 2, is not met
	 * when 1 is the bound, its parent is. */
	CHECK(cgroup_paths_init(&shallow, NULL, err, sizeof(err)) == 0);
	shallow.walk_only = 1;
	shallow.walk_depth = 1;
	CHECK(cgroup_path(&shallow, id) == NULL);
	CHECK(cgroup_path(&shallow, st.st_ino) && !strcmp(cgroup_path(&shallow, st.st_ino), want_parent));
	CHECK_EQ_U64(shallow.walks, 1);
	CHECK(!shallow.walk_cut);
	cgroup_paths_free(&shallow);

	CHECK(rmdir(sub) == 0);
	CHECK(rmdir(dir) == 0);
	/* Removed: the cached path stays (ids are never reused); a fresh decoder reads the number. */
	CHECK(cgroup_path(&walk, id) && !strcmp(cgroup_path(&walk, id), want));
	cgroup_paths_free(&walk);
	snprintf(want, sizeof(want), "%llu", (unsigned long long)id);
	CHECK_STR(decode1("cgroup", NULL, &id, 8), want);
}

static void test_ksym(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long long addr;
	uint64_t a;
	int tested = 0;

	while (f && tested < 3 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || (type != 'T' && type != 't') ||
		    (strcmp(name, "do_sys_openat2") && strcmp(name, "schedule") && strcmp(name, "vfs_read")))
			continue;
		a = addr;
		CHECK_STR(decode1("ksym", NULL, &a, 8), name);
		a = addr + 1; /* inside the function (a return address, a kprobe's ip) */
		CHECK_STR(decode1("ksym", NULL, &a, 8), name);
		printf("ksym: 0x%llx is %s\n", addr, name);
		tested++;
	}
	if (f)
		fclose(f);
	CHECK_EQ_U64(tested, 3);
	a = 0x10;
	CHECK_STR(decode1("ksym", NULL, &a, 8), "0x10");
}

/* The address /proc/kallsyms gives `want` (a function of the kernel's), 0 if none. */
static uint64_t kallsyms_address(const char *want)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long long addr, found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && (type == 'T' || type == 't') &&
		    !strcmp(name, want))
			found = addr;
	if (f)
		fclose(f);
	return found;
}

/* The name, as ebpf_exporter prints it, of the table's highest address (of aliases, the
 * first listed): the kstack of ebpf_exporter names any address above it so. The table's,
 * not /proc/kallsyms' now: a BPF program loaded since (its symbols are the highest) is not
 * in the table. */
static void table_last(char *out, size_t outlen)
{
	char err[ERR_MAX];
	const struct ksym_table *t = ksym_table_kernel(err, sizeof(err));
	size_t i;
	const char *name;

	if (!t || !t->n) {
		text_printf_cut(out, outlen, "<no table: %s>", t ? "empty" : err);
		return;
	}
	for (i = t->n - 1; i > 0 && t->v[i - 1].addr == t->v[t->n - 1].addr; i--)
		;
	name = t->names + t->v[i].name;
	snprintf(out, outlen, "%s%s", name, ksym_name_module(name));
}

static void test_kstack(void)
{
	uint64_t vfs_read = kallsyms_address("vfs_read"), schedule = kallsyms_address("schedule"),
		 openat2 = kallsyms_address("do_sys_openat2");
	/* return addresses inside each function, innermost first, as bpf_get_stack writes them */
	uint64_t stack[5] = { vfs_read + 1, schedule + 2, openat2 + 3, 0, vfs_read };
	uint64_t outside[3] = { 0x10, vfs_read + 1, UINT64_MAX - 0xff };
	uint64_t empty[2] = { 0, vfs_read };
	struct decoder_chain c;
	char err[ERR_MAX], last[256], want[512];

	CHECK(vfs_read && schedule && openat2);
	CHECK_STR(decode1("kstack", NULL, stack, sizeof(stack)), "vfs_read;schedule;do_sys_openat2");
	CHECK_STR(decode1("kstack", "ebpf_exporter", stack, sizeof(stack)), "vfs_read\nschedule\ndo_sys_openat2");
	CHECK_STR(decode1("kstack", NULL, outside, sizeof(outside)), "0x10;vfs_read;0xffffffffffffff00");
	table_last(last, sizeof(last));
	snprintf(want, sizeof(want), "??\nvfs_read\n%s", last);
	CHECK_STR(decode1("kstack", "ebpf_exporter", outside, sizeof(outside)), want);
	CHECK_STR(decode1("kstack", "ebpf_exporter", empty, sizeof(empty)), "");
	CHECK_STR(decode1("kstack", NULL, empty, sizeof(empty)), "");

	decoder_chain_init(&c, "stack");
	CHECK(decoder_chain_add(&c, "kstack", NULL, 0, err, sizeof(err)) == 0);
	CHECK(decoder_chain_check(&c, 256, err, sizeof(err)) == 0);
	CHECK(decoder_chain_check(&c, 12, err, sizeof(err)) == -1);
	CHECK_STR(err, "decoder kstack needs a multiple of 8 bytes (one u64 address a frame), at most 256 (32 frames), "
		       "label \"stack\" has 12");
	CHECK(decoder_chain_check(&c, 264, err, sizeof(err)) == -1);
	CHECK_STR(err, "decoder kstack needs a multiple of 8 bytes (one u64 address a frame), at most 256 (32 frames), "
		       "label \"stack\" has 264");
	decoder_chain_free(&c);
}

static void test_ifname(void)
{
	struct decoder_chain c;
	char err[ERR_MAX], out[DECODE_TEXT_MAX], expect[32];
	uint32_t lo, idx;

	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "FAIL: unshare(CLONE_NEWNET): %m\n");
		CHECK(0);
		return;
	}
	CHECK(system("ip link add cdt0 type veth peer name cdt1") == 0);
	lo = if_nametoindex("lo");
	idx = if_nametoindex("cdt0");
	CHECK(lo > 0 && idx > 0);
	decoder_chain_init(&c, "interface");
	CHECK(decoder_chain_add(&c, "ifname", (const char *[]){ "ebpf_exporter" }, 1, err, sizeof(err)) == 0);
	CHECK_STR(decoder_chain_decode(&c, &lo, 4, out, sizeof(out)), "lo");
	CHECK_STR(decoder_chain_decode(&c, &idx, 4, out, sizeof(out)), "cdt0");
	CHECK(system("ip link set cdt0 name cdt2") == 0);
	CHECK_STR(decoder_chain_decode(&c, &idx, 4, out, sizeof(out)), "cdt0"); /* this read's answer */
	decoder_chain_next_read(&c);
	CHECK_STR(decoder_chain_decode(&c, &idx, 4, out, sizeof(out)), "cdt2");
	CHECK(system("ip link del cdt2") == 0);
	decoder_chain_next_read(&c);
	snprintf(expect, sizeof(expect), "unknown:%u", idx);
	CHECK_STR(decoder_chain_decode(&c, &idx, 4, out, sizeof(out)), expect);
	decoder_chain_free(&c);
}

int main(void)
{
	if (geteuid() != 0)
		SKIP("needs root: loop devices, cgroups, kallsyms addresses and a network namespace");
	test_majorminor();
	test_cgroup();
	test_ksym();
	test_kstack();
	test_ifname();
	return testing_done();
}
