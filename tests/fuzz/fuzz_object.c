/* libFuzzer target for the loader's whole check of a user's BPF object (issue 20), built with
 * ASan and UBSan, seeded with the build's real objects (tests/fuzz/run.sh): the input is the
 * object's bytes, mutated.
 *
 * As program_module.c does: the calls in the ELF (object_policy_check_calls, libelf and our
 * scan, in this process), then libbpf's open in a forked child (object_check_contained: a
 * libbpf 1.1 crash on corrupt BTF is a refusal there), then, if the child lived, the open and
 * the program-type check here. Whatever the bytes: no crash or sanitizer report in this
 * process; a refusal names the object; the call check gives the same answer twice. */
#include "libcore/programs/object_policy.h"
#include "libcore/programs/object_sandbox.h"

#include <bpf/libbpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_NAME "fuzz.bpf.o"

struct input {
	const uint8_t *data;
	size_t size;
};

static const struct object_policy policy = { .helpers = { "bpf_rcu_read_lock", "bpf_rcu_read_unlock" },
					     .nhelpers = 2 };

static bool skip_none(const char *program, void *ctx)
{
	(void)ctx;
	return !strcmp(program, "skipped_by_config");
}

/* libbpf's open and the type check: what runs in the child first, and then here. */
static int open_and_check(void *ctx)
{
	const struct input *in = ctx;
	struct bpf_object *obj = bpf_object__open_mem(in->data, in->size, NULL);
	char err[1024] = "";
	int r;

	if (!obj)
		return -1;
	r = object_policy_check_types(obj, &policy, skip_none, NULL, FILE_NAME, err, sizeof(err));
	if (r && !strstr(err, FILE_NAME))
		abort(); /* a refusal that does not name the object */
	bpf_object__close(obj);
	return r;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	char err[1024] = "", again[1024] = "";
	int r;

	libbpf_set_print(silent);
	r = object_policy_check_calls(data, size, &policy, FILE_NAME, err, sizeof(err));
	if (r != object_policy_check_calls(data, size, &policy, FILE_NAME, again, sizeof(again)) || strcmp(err, again))
		abort(); /* the same bytes, another answer */
	if (r) {
		if (!strstr(err, FILE_NAME))
			abort();
		return 0;
	}
	if (object_check_contained(open_and_check, &in, FILE_NAME, err, sizeof(err))) {
		if (!strstr(err, FILE_NAME))
			abort();
		return 0;
	}
	open_and_check(&in);
	return 0;
}
