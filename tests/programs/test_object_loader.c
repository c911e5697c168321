/* The safe loader's two checks on real files and real BPF objects: object_file (who may have
 * written the file and every directory above it) and object_policy (program types, helper
 * and kfunc calls, subprograms included). Root: it chowns files. Objects are compiled by the
 * build into tests/programs/. */
#include "libcore/programs/object_file.h"
#include "libcore/programs/object_policy.h"
#include "tests/testing.h"

#include <bpf/libbpf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static char dir[64];
static char err[1024];

static void copy_object(const char *name, const char *dest, mode_t mode)
{
	char src[256], cmd[768];

	snprintf(src, sizeof(src), "tests/programs/%s.bpf.o", name);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod %o '%s'", src, dest, (unsigned)mode, dest);
	if (system(cmd)) {
		fprintf(stderr, "cannot copy %s (run from the build directory after make)\n", src);
		exit(1);
	}
}

/* object_file_read() on `path`; true if refused with `needle` in the message. */
static bool refused_with(const char *path, uid_t allowed, const char *needle)
{
	struct object_bytes b;

	err[0] = '\0';
	if (!object_file_read(path, allowed, &b, err, sizeof(err))) {
		object_bytes_free(&b);
		fprintf(stderr, "  %s: accepted, expected refusal with \"%s\"\n", path, needle);
		return false;
	}
	if (!strstr(err, needle)) {
		fprintf(stderr, "  %s: refused with \"%s\", expected \"%s\"\n", path, err, needle);
		return false;
	}
	return true;
}

static void test_file_checks(void)
{
	char path[128], link[128], sub[128], subfile[160], fifo[128];
	struct object_bytes b;

	snprintf(path, sizeof(path), "%s/observe.bpf.o", dir);
	copy_object("observe", path, 0644);
	CHECK(object_file_read(path, (uid_t)-1, &b, err, sizeof(err)) == 0);
	CHECK(b.len > 64 && !memcmp(b.data, "\177ELF", 4));
	object_bytes_free(&b);

	snprintf(link, sizeof(link), "%s/link.bpf.o", dir);
	CHECK(symlink(path, link) == 0);
	CHECK(refused_with(link, (uid_t)-1, "is a symbolic link"));

	CHECK(chmod(path, 0664) == 0);
	CHECK(refused_with(path, (uid_t)-1, "writable by its group (mode 0664)"));
	CHECK(chmod(path, 0646) == 0);
	CHECK(refused_with(path, (uid_t)-1, "writable by everyone"));
	CHECK(strstr(err, "chmod go-w") != NULL);
	CHECK(chmod(path, 0644) == 0);

	CHECK(chown(path, 65534, 65534) == 0);
	CHECK(refused_with(path, (uid_t)-1, "owned by uid 65534"));
	/* collectd's own user may own its objects. */
	CHECK(object_file_read(path, 65534, &b, err, sizeof(err)) == 0);
	object_bytes_free(&b);
	CHECK(chown(path, 0, 0) == 0);

	/* A directory anyone can write to lets anyone swap the file. */
	snprintf(sub, sizeof(sub), "%s/open", dir);
	CHECK(mkdir(sub, 0777) == 0 && chmod(sub, 0777) == 0);
	snprintf(subfile, sizeof(subfile), "%s/observe.bpf.o", sub);
	copy_object("observe", subfile, 0644);
	CHECK(refused_with(subfile, (uid_t)-1, "directory"));
	CHECK(strstr(err, "/open\" is writable by") != NULL);
	CHECK(chmod(sub, 0755) == 0 && chown(sub, 65534, 65534) == 0);
	CHECK(refused_with(subfile, (uid_t)-1, "directory"));
	CHECK(chown(sub, 0, 0) == 0);
	CHECK(object_file_read(subfile, (uid_t)-1, &b, err, sizeof(err)) == 0);
	object_bytes_free(&b);

	/* A FIFO must not hang the loader; a missing file says so. */
	snprintf(fifo, sizeof(fifo), "%s/fifo.bpf.o", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(refused_with(fifo, (uid_t)-1, "not a regular file"));
	CHECK(refused_with("/nonexistent/x.bpf.o", (uid_t)-1, "No such file"));
}

static struct bpf_object *open_bytes(const char *name, struct object_bytes *b)
{
	char path[128];
	struct bpf_object *obj;

	snprintf(path, sizeof(path), "%s/%s.bpf.o", dir, name);
	copy_object(name, path, 0644);
	if (object_file_read(path, (uid_t)-1, b, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	obj = bpf_object__open_mem(b->data, b->len, NULL);
	if (!obj) {
		fprintf(stderr, "libbpf cannot open %s\n", path);
		exit(1);
	}
	return obj;
}

static void test_types(void)
{
	struct object_policy none = { 0 };
	struct object_policy allow_xdp = { .program_types = { "xdp" }, .nprogram_types = 1 };
	struct object_policy allow_fmod = { .program_types = { "fmod_ret" }, .nprogram_types = 1 };
	struct object_bytes b;
	struct bpf_object *obj;

	obj = open_bytes("observe", &b);
	CHECK(object_policy_check_types(obj, &none, "observe.bpf.o", err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);

	obj = open_bytes("xdp", &b);
	CHECK(object_policy_check_types(obj, &none, "xdp.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "program \"pass_packets\" has type xdp") != NULL);
	CHECK(strstr(err, "AllowProgramType \"xdp\"") != NULL);
	CHECK(object_policy_check_types(obj, &allow_xdp, "xdp.bpf.o", err, sizeof(err)) == 0);
	/* A program left out with Skip is not checked. */
	bpf_program__set_autoload(bpf_object__find_program_by_name(obj, "pass_packets"), false);
	CHECK(object_policy_check_types(obj, &none, "xdp.bpf.o", err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);

	obj = open_bytes("fmod_ret", &b);
	CHECK(object_policy_check_types(obj, &none, "fmod_ret.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "fail_sync\" is fmod_ret") != NULL);
	CHECK(object_policy_check_types(obj, &allow_fmod, "fmod_ret.bpf.o", err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);
}

static void test_calls(void)
{
	struct object_policy none = { 0 };
	struct object_policy allow_write = { .helpers = { "bpf_probe_write_user" }, .nhelpers = 1 };
	struct object_policy allow_rcu = { .helpers = { "bpf_rcu_read_lock", "bpf_rcu_read_unlock" }, .nhelpers = 2 };
	struct object_bytes b;
	struct bpf_object *obj;

	obj = open_bytes("observe", &b);
	CHECK(object_policy_check_calls(b.data, b.len, &none, "observe.bpf.o", err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);

	/* The call is in a subprogram (.text), which libbpf does not list among the programs. */
	obj = open_bytes("write_user", &b);
	CHECK(object_policy_check_calls(b.data, b.len, &none, "write_user.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "section \".text\" calls bpf_probe_write_user") != NULL);
	CHECK(object_policy_check_calls(b.data, b.len, &allow_write, "write_user.bpf.o", err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);

	obj = open_bytes("kfunc", &b);
	CHECK(object_policy_check_calls(b.data, b.len, &none, "kfunc.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "kernel function bpf_rcu_read_lock (a kfunc)") != NULL);
	CHECK(object_policy_check_calls(b.data, b.len, &allow_rcu, "kfunc.bpf.o", err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);

	CHECK(object_policy_check_calls("not an elf file at all", 22, &none, "junk.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "junk.bpf.o is not an ELF file") != NULL);
}

int main(void)
{
	char cmd[96];

	if (geteuid() != 0)
		SKIP("needs root to chown test files");
	snprintf(dir, sizeof(dir), "/tmp/ebpf-loader-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_file_checks();
	test_types();
	test_calls();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return testing_done();
}
