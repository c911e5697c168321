/* The safe loader's two checks on real files and real BPF objects: object_file (who may have
 * written the file and every directory above it) and object_policy (program types, helper
 * and kfunc calls, subprograms included). Root: it chowns files. Objects are compiled by the
 * build into tests/programs/. */
#include "libcore/programs/object_file.h"
#include "libcore/programs/object_policy.h"
#include "libcore/programs/object_sandbox.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <bpf/libbpf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static char dir[64];
static char err[ERR_MAX];

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
	char path[128], link[128], sub[128], subfile[160], fifo[128], theirs[128];
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

	/* Links in the middle of the path: each directory is checked as it is walked.
	 * Another user's directory holding a link to root's safe one: that user can point the
	 * link anywhere, so root does not go through it. */
	snprintf(theirs, sizeof(theirs), "%s/theirs", dir);
	CHECK(mkdir(theirs, 0755) == 0 && chown(theirs, 65534, 65534) == 0);
	snprintf(link, sizeof(link), "%s/theirs/link", dir);
	CHECK(symlink(sub, link) == 0 && lchown(link, 65534, 65534) == 0);
	snprintf(subfile, sizeof(subfile), "%s/theirs/link/observe.bpf.o", dir);
	CHECK(refused_with(subfile, (uid_t)-1, "/theirs\" is owned by uid 65534, not by root or collectd's user"));
	/* Another user's link in root's directory: refused, naming the link and the fix. */
	snprintf(link, sizeof(link), "%s/their-link", dir);
	CHECK(symlink(sub, link) == 0 && lchown(link, 65534, 65534) == 0);
	snprintf(subfile, sizeof(subfile), "%s/observe.bpf.o", link);
	CHECK(refused_with(subfile, (uid_t)-1, "/their-link\" is a symbolic link owned by uid 65534"));
	CHECK(strstr(err, "/open\" instead") != NULL);
	/* Root's own link there is followed (as /lib -> usr/lib). */
	snprintf(link, sizeof(link), "%s/root-link", dir);
	CHECK(symlink("open", link) == 0);
	snprintf(subfile, sizeof(subfile), "%s/observe.bpf.o", link);
	CHECK(object_file_read(subfile, (uid_t)-1, &b, err, sizeof(err)) == 0);
	object_bytes_free(&b);

	/* A FIFO must not hang the loader; a missing file says so. */
	snprintf(fifo, sizeof(fifo), "%s/fifo.bpf.o", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(refused_with(fifo, (uid_t)-1, "not a regular file"));
	CHECK(refused_with("/nonexistent/x.bpf.o", (uid_t)-1, "No such file"));
	CHECK(strstr(err, "directory \"/nonexistent\" (on the way to \"/nonexistent/x.bpf.o\")") != NULL);
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

static bool skip_named(const char *program, void *ctx)
{
	return !strcmp(program, ctx);
}

/* tests/programs/make_hostile MODE ARG OUT, from the build directory: its exit status (0,
 * 3 for crash-btf where this libbpf survives every byte it tries, 4 for raw-kfunc where the
 * kernel has no bpf_send_signal_task). */
static int make_hostile(const char *mode, const char *arg, const char *out)
{
	char cmd[512];
	int status;

	snprintf(cmd, sizeof(cmd), "tests/programs/make_hostile %s '%s' '%s' >&2", mode, arg, out);
	status = system(cmd);
	if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3 && WEXITSTATUS(status) != 4)) {
		fprintf(stderr, "%s failed\n", cmd);
		exit(1);
	}
	return WEXITSTATUS(status);
}

/* The object `name` opened and refused without AllowProgramType, with a message that has
 * each of parts (NULL-terminated), then accepted with `allow`. The caller closes it. */
static struct bpf_object *refused_then_allowed(const char *name, const struct object_policy *allow,
					       const char *const parts[], struct object_bytes *b)
{
	struct object_policy none = { 0 };
	struct bpf_object *obj = open_bytes(name, b);
	char file[64];

	snprintf(file, sizeof(file), "%s.bpf.o", name);
	CHECK(object_policy_check_types(obj, &none, NULL, NULL, file, err, sizeof(err)) == -1);
	for (int i = 0; parts[i]; i++)
		CHECK(strstr(err, parts[i]) != NULL);
	CHECK(object_policy_check_types(obj, allow, NULL, NULL, file, err, sizeof(err)) == 0);
	return obj;
}

static void test_types(void)
{
	struct object_policy none = { 0 };
	struct object_policy allow_xdp = { .program_types = { "xdp" }, .nprogram_types = 1 };
	struct object_policy allow_fmod = { .program_types = { "fmod_ret" }, .nprogram_types = 1 };
	struct object_policy allow_iter = { .program_types = { "iter" }, .nprogram_types = 1 };
	struct object_bytes b;
	struct bpf_object *obj;

	obj = open_bytes("observe", &b);
	CHECK(object_policy_check_types(obj, &none, NULL, NULL, "observe.bpf.o", err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);

	obj = refused_then_allowed("xdp", &allow_xdp,
				   (const char *const[]){ "program \"pass_packets\" has type xdp", "AllowProgramType \"xdp\"",
							  NULL },
				   &b);
	/* Autoload off is no way around the check (the loader may turn it on again); Skip is. */
	bpf_program__set_autoload(bpf_object__find_program_by_name(obj, "pass_packets"), false);
	CHECK(object_policy_check_types(obj, &none, NULL, NULL, "xdp.bpf.o", err, sizeof(err)) == -1);
	CHECK(object_policy_check_types(obj, &none, skip_named, "pass_packets", "xdp.bpf.o", err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);

	obj = refused_then_allowed("fmod_ret", &allow_fmod, (const char *const[]){ "fail_sync\" is fmod_ret", NULL }, &b);
	bpf_object__close(obj);
	object_bytes_free(&b);

	/* SEC("?fmod_ret/..."): autoload off hides nothing. */
	obj = open_bytes("hidden_fmod_ret", &b);
	CHECK(!bpf_program__autoload(bpf_object__find_program_by_name(obj, "hidden_getsid")));
	CHECK(object_policy_check_types(obj, &none, NULL, NULL, "hidden_fmod_ret.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "program \"hidden_getsid\" is fmod_ret") != NULL);
	/* Skipped, it is not checked; the plain fmod_ret beside it still is. */
	CHECK(object_policy_check_types(obj, &none, skip_named, "hidden_getsid", "hidden_fmod_ret.bpf.o", err,
					sizeof(err)) == -1);
	CHECK(strstr(err, "program \"fail_sync\" is fmod_ret") != NULL);
	bpf_object__close(obj);
	object_bytes_free(&b);

	obj = refused_then_allowed("iter", &allow_iter,
				   (const char *const[]){ "program \"walk_tasks\" is a BPF iterator (SEC \"iter/task\")",
							  "AllowProgramType \"iter\"", NULL },
				   &b);
	bpf_object__close(obj);
	object_bytes_free(&b);
}

/* object_policy_check_calls() on tests/programs' NAME.bpf.o: with no policy, refused with
 * `needle` in the message (NULL: accepted); then accepted under `allow` (NULL: not tried). */
static void check_calls(const char *name, const char *needle, const struct object_policy *allow)
{
	struct object_policy none = { 0 };
	struct object_bytes b;
	struct bpf_object *obj = open_bytes(name, &b);
	char file[64];

	snprintf(file, sizeof(file), "%s.bpf.o", name);
	if (!needle) {
		CHECK(object_policy_check_calls(b.data, b.len, &none, file, err, sizeof(err)) == 0);
	} else {
		CHECK(object_policy_check_calls(b.data, b.len, &none, file, err, sizeof(err)) == -1);
		CHECK(strstr(err, needle) != NULL);
	}
	if (allow)
		CHECK(object_policy_check_calls(b.data, b.len, allow, file, err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);
}

static void test_calls(void)
{
	struct object_policy none = { 0 };
	struct object_policy allow_write = { .helpers = { "bpf_probe_write_user" }, .nhelpers = 1 };
	struct object_policy allow_rcu = { .helpers = { "bpf_rcu_read_lock", "bpf_rcu_read_unlock" }, .nhelpers = 2 };

	check_calls("observe", NULL, NULL);
	/* The call is in a subprogram (.text), which libbpf does not list among the programs. */
	check_calls("write_user", "section \".text\" calls bpf_probe_write_user", &allow_write);
	check_calls("kfunc", "kernel function bpf_rcu_read_lock (a kfunc)", &allow_rcu);

	CHECK(object_policy_check_calls("not an elf file at all", 22, &none, "junk.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "junk.bpf.o is not an ELF file") != NULL);
}

static struct object_bytes read_file(const char *path)
{
	struct object_bytes b;

	if (object_file_read(path, (uid_t)-1, &b, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	return b;
}

/* A kfunc called by its BTF id (src_reg 2), with no relocation naming it: refused in the ELF,
 * and, loaded anyway, in what the kernel got. */
static void test_raw_kfunc(void)
{
	struct object_policy none = { 0 };
	struct object_policy allow_rcu = { .helpers = { "bpf_rcu_read_lock", "bpf_rcu_read_unlock" }, .nhelpers = 2 };
	struct object_policy allow_signal = { .helpers = { "bpf_send_signal_task" }, .nhelpers = 1 };
	char raw[128], plain[128];
	struct object_bytes b;
	struct bpf_object *obj;
	bool loadable;

	snprintf(plain, sizeof(plain), "%s/raw_kfunc_plain.bpf.o", dir);
	snprintf(raw, sizeof(raw), "%s/raw_kfunc.bpf.o", dir);
	copy_object("raw_kfunc", plain, 0644);
	loadable = make_hostile("raw-kfunc", plain, raw) == 0;
	b = read_file(raw);
	CHECK(object_policy_check_calls(b.data, b.len, &none, "raw_kfunc.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "raw_kfunc.bpf.o: instruction ") != NULL);
	CHECK(strstr(err, "is a call instruction collectd cannot check (opcode 0x85, src_reg 2: a kfunc called by its "
			  "BTF id)") != NULL);
	/* No name to allow: AllowHelper cannot let it through either. */
	CHECK(object_policy_check_calls(b.data, b.len, &allow_signal, "raw_kfunc.bpf.o", err, sizeof(err)) == -1);

	/* What the kernel gets, after libbpf's relocations: the raw call is there as it was. */
	if (loadable) {
		obj = bpf_object__open_mem(b.data, b.len, NULL);
		CHECK(obj != NULL);
		CHECK(bpf_object__load(obj) == 0);
		CHECK(object_policy_check_loaded(obj, &none, "raw_kfunc.bpf.o", err, sizeof(err)) == -1);
		CHECK(strstr(err, "program \"on_enter\" as loaded (instruction ") != NULL);
		CHECK(strstr(err, "calls the kernel function bpf_send_signal_task (a kfunc)") != NULL);
		CHECK(object_policy_check_loaded(obj, &allow_signal, "raw_kfunc.bpf.o", err, sizeof(err)) == 0);
		bpf_object__close(obj);
	} else
		fprintf(stderr, "  this kernel has no bpf_send_signal_task (6.13+): the loaded-code check runs on "
				"observe.bpf.o only\n");
	object_bytes_free(&b);

	/* A kfunc called as clang emits it: src_reg 2 only after relocation, named by the kernel's
	 * BTF; the forbidden-helper check holds on the loaded code too. */
	obj = open_bytes("kfunc", &b);
	if (loadable) { /* 6.13+: bpf_rcu_read_lock (6.2+) is there too */
		CHECK(bpf_object__load(obj) == 0);
		CHECK(object_policy_check_loaded(obj, &none, "kfunc.bpf.o", err, sizeof(err)) == -1);
		CHECK(strstr(err, "calls the kernel function bpf_rcu_read_lock (a kfunc)") != NULL);
		CHECK(object_policy_check_loaded(obj, &allow_rcu, "kfunc.bpf.o", err, sizeof(err)) == 0);
	}
	bpf_object__close(obj);
	object_bytes_free(&b);
	obj = open_bytes("observe", &b);
	CHECK(bpf_object__load(obj) == 0);
	CHECK(object_policy_check_loaded(obj, &none, "observe.bpf.o", err, sizeof(err)) == 0);
	bpf_object__close(obj);
	object_bytes_free(&b);
}

/* The check is linear: 500,000 kfunc calls, each with its relocation, are refused (it once
 * rescanned every relocation for every call: hours); allowed, accepted; past the bound on
 * instructions, refused by the bound. */
static void test_big_object(void)
{
	struct object_policy none = { 0 };
	struct object_policy allow_rcu = { .helpers = { "bpf_rcu_read_lock" }, .nhelpers = 1 };
	char path[128];
	struct object_bytes b;

	snprintf(path, sizeof(path), "%s/many_calls.bpf.o", dir);
	make_hostile("many-calls", "500000", path);
	b = read_file(path);
	CHECK(b.len > 12 * 1000 * 1000);
	CHECK(object_policy_check_calls(b.data, b.len, &none, "many_calls.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "many_calls.bpf.o: section \".text\" calls the kernel function bpf_rcu_read_lock") != NULL);
	CHECK(object_policy_check_calls(b.data, b.len, &allow_rcu, "many_calls.bpf.o", err, sizeof(err)) == 0);
	object_bytes_free(&b);

	make_hostile("many-calls", "1000001", path);
	b = read_file(path);
	CHECK(object_policy_check_calls(b.data, b.len, &allow_rcu, "many_calls.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "many_calls.bpf.o has more than 1000000 instructions") != NULL);
	object_bytes_free(&b);
}

static int crash(void *ctx)
{
	(void)ctx;
	raise(SIGSEGV);
	return 0;
}

static int open_with_libbpf(void *ctx)
{
	const struct object_bytes *b = ctx;
	struct bpf_object *obj = bpf_object__open_mem(b->data, b->len, NULL);

	bpf_object__close(obj);
	return obj ? 0 : -1;
}

/* One byte of .BTF that kills libbpf 1.1's open: in the child, so this process lives on and
 * says which object; the good object passes, and what the child's check answered does not
 * matter (the caller runs it again). */
static void test_contained(void)
{
	char plain[128], corrupt[128];
	struct object_bytes b;

	snprintf(plain, sizeof(plain), "%s/crash_plain.bpf.o", dir);
	snprintf(corrupt, sizeof(corrupt), "%s/crash.bpf.o", dir);
	CHECK(object_check_contained(crash, NULL, "any.bpf.o", err, sizeof(err)) == -1);
	CHECK(strstr(err, "any.bpf.o\" is corrupt: libbpf crashed opening it (signal 11, Segmentation fault)") != NULL);
	copy_object("hidden_fmod_ret", plain, 0644);
	if (make_hostile("crash-btf", plain, corrupt) == 0) {
		b = read_file(corrupt);
		CHECK(object_check_contained(open_with_libbpf, &b, corrupt, err, sizeof(err)) == -1);
		CHECK(strstr(err, "crash.bpf.o\" is corrupt: libbpf crashed opening it (signal 11, Segmentation fault)") !=
		      NULL);
		object_bytes_free(&b);
	} else
		fprintf(stderr, "  this libbpf (%s) survives the corrupt .BTF: the real crash is not checked\n",
			libbpf_version_string());

	b = read_file(plain);
	CHECK(object_check_contained(open_with_libbpf, &b, plain, err, sizeof(err)) == 0);
	object_bytes_free(&b);
	b.data = "junk";
	b.len = 4;
	CHECK(object_check_contained(open_with_libbpf, &b, "junk", err, sizeof(err)) == 0);
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
	test_raw_kfunc();
	test_big_object();
	test_contained();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return testing_done();
}
