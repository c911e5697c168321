/* libFuzzer target for the loader's whole check of a user's BPF object, built with
 * ASan and UBSan, seeded with the build's real objects (tests/fuzz/run.sh): the input is the
 * object's bytes, mutated.
 *
 * Everything program_module_new() runs on an object once it is read, through
 * program_module_check_bytes() with one fixed <Program> block (read_latency's, from
 * contrib/programs: probes with alternatives and a histogram whose key and value layout
 * program_resolve reads from the object's BTF): the calls in the ELF (libelf and our scan),
 * libbpf's open and the whole check in a forked child (a libbpf 1.1 crash on corrupt BTF is
 * a refusal there), then in this process the open, the program types, program_resolve and
 * the probe points. Whatever the bytes: no crash or sanitizer report in this process; a
 * refusal names the object; the call check gives the same answer twice. */
#include "libcore/programs/object_policy.h"
#include "libcore/programs/program_module.h"
#include "tests/support/conf_text.h"
#include "base/err_max.h"

#include <bpf/libbpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_NAME "/fuzz/read_latency.bpf.o"

/* Never read as a file: the input is the object's bytes. AllowHelper: the kfunc objects of
 * the seeds get past the call check, to the rest of it. */
static const char block_text[] =
	"<Program \"fuzzed\">\n"
	"  Object \"" FILE_NAME "\"\n"
	"  AllowHelper \"bpf_rcu_read_lock\" \"bpf_rcu_read_unlock\"\n"
	"  <Probe \"read_enter\">\n"
	"    Program \"read_fentry\" \"read_kprobe\"\n"
	"  </Probe>\n"
	"  <Probe \"read_exit\">\n"
	"    Program \"read_fexit\" \"read_kretprobe\"\n"
	"  </Probe>\n"
	"  <Histogram \"dist\">\n"
	"    Layout \"key\"\n"
	"    Buckets \"bcc_log2\"\n"
	"    Multiplier 0.000000001\n"
	"    Type \"latency\"\n"
	"    TypeInstance \"generic_file_read_iter\"\n"
	"  </Histogram>\n"
	"</Program>\n";

static const struct object_policy policy = { .helpers = { "bpf_rcu_read_lock", "bpf_rcu_read_unlock" },
					     .nhelpers = 2 };

/* Every input forks a checker, and fork's cost is copying the page tables of what this
 * process has touched: ASan's default 256 MiB quarantine of freed memory tripled it (308
 * against 75 MiB) and cut the inputs a second from 233 to 198, under the 1000 in 5 s every
 * fuzzer must run on a slower machine. 16 MiB still holds the blocks freed by the last
 * inputs, where a use after free in the check would be. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=16";
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct conf_node *block;
	char err[ERR_MAX] = "", again[1024] = "";
	bool refused;
	int r;

	libbpf_set_print(silent);
	if (!block)
		block = conf_text(block_text); /* kept for the whole run */
	r = object_policy_check_calls(data, size, &policy, FILE_NAME, err, sizeof(err));
	if (r != object_policy_check_calls(data, size, &policy, FILE_NAME, again, sizeof(again)) || strcmp(err, again))
		abort(); /* the same bytes, another answer */
	if (r && !strstr(err, FILE_NAME))
		abort();
	if (program_module_check_bytes(block, data, size, &refused, err, sizeof(err)) && refused &&
	    !strstr(err, FILE_NAME))
		abort(); /* a refusal that does not name the object */
	return 0;
}
