/* Label decoders without the system's state: every decoder on known bytes, chains, every
 * config-time error message, the safe label value, the kallsyms table on a fixed text.
 * (Real disks, cgroups and kernel symbols: tests/programs/test_decoders_system.) */
#include "libcore/decode/label_decoder.h"
#include "base/label_value.h"
#include "libcore/decode/ksym_table.h"
#include "libcore/decode/syscall_names.h"
#include "tests/support/testing.h"
#include "tests/programs/decode_spec.h"
#include "base/err_max.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

/* The error of adding decoder name(args) to a chain that already holds `before` (NULL: none),
 * then of checking size (0: no check). */
static const char *config_error(const char *before, const char *name, const char *const *args, int nargs,
				size_t size)
{
	static char err[ERR_MAX];
	struct decoder_chain c;

	err[0] = '\0';
	decoder_chain_init(&c, "device");
	if (before && decoder_chain_add(&c, before, NULL, 0, err, sizeof(err)))
		goto out;
	if (decoder_chain_add(&c, name, args, nargs, err, sizeof(err)))
		goto out;
	if (size && decoder_chain_check(&c, size, err, sizeof(err)))
		goto out;
	snprintf(err, sizeof(err), "<accepted>");
out:
	decoder_chain_free(&c);
	return err;
}

static void test_numbers(void)
{
	uint8_t u8 = 200;
	uint16_t u16 = 65535;
	uint32_t u32 = 4000000000u;
	uint64_t u64 = 18446744073709551615ull;
	int32_t minus2 = -2;
	int8_t minus2_8 = -2;
	int64_t minus2_64 = -2, big = 5000, minus4095 = -4095, zero = 0, minus1 = -1;
	int openat = syscall_number("openat");
	uint32_t nr = (uint32_t)openat;
	unsigned char bytes[] = { 0x0a, 0x1b, 0xff, 0x00 };
	unsigned char ip4[4] = { 10, 0, 0, 1 }, ip6[16];

	CHECK_STR(decode("uint", &u8, 1), "200");
	CHECK_STR(decode("uint", &u16, 2), "65535");
	CHECK_STR(decode("uint", &u32, 4), "4000000000");
	CHECK_STR(decode("uint", &u64, 8), "18446744073709551615");
	CHECK_STR(decode("hex", bytes, 4), "0a1bff00");

	CHECK(openat > 0);
	CHECK_STR(decode("syscall", &nr, 4), "openat");
	CHECK_STR(decode("syscall", &minus1, 8), "sys_-1");
	nr = 100000;
	CHECK_STR(decode("syscall", &nr, 4), "sys_100000");

	CHECK_STR(decode("errno", &minus2, 4), "ENOENT");
	CHECK_STR(decode("errno", &minus2_8, 1), "ENOENT");
	CHECK_STR(decode("errno", &minus2_64, 8), "ENOENT");
	u32 = 2;
	CHECK_STR(decode("errno", &u32, 4), "ENOENT");
	u32 = 13;
	CHECK_STR(decode("errno", &u32, 4), "EACCES");
	CHECK_STR(decode("errno", &zero, 8), "0");
	CHECK_STR(decode("errno", &big, 8), "5000");
	CHECK_STR(decode("errno", &minus4095, 8), "-4095");
	CHECK_STR(decode("errno", &(int64_t){ INT64_MIN }, 8), "-9223372036854775808");

	CHECK_STR(decode("inet_ip", ip4, 4), "10.0.0.1");
	CHECK(inet_pton(AF_INET6, "2001:db8::1", ip6) == 1);
	CHECK_STR(decode("inet_ip", ip6, 16), "2001:db8::1");

	/* No Decode line: the number, or the bytes in hex. */
	CHECK_STR(decode("", &u16, 2), "65535");
	CHECK_STR(decode("", bytes, 3), "0a1bff");
}

static void test_text(void)
{
	char comm[16] = "bash\0garbage";
	unsigned char odd[] = { 'a', '/', 'b', '\\', 0x01, 0xe9, 'c' };
	uint32_t zero = 0, one = 1, two = 2, sixteen = 16;
	int32_t minus1 = -1;
	char path[] = "/system.slice/ssh.service";

	CHECK_STR(decode("string", comm, sizeof(comm)), "bash");
	CHECK_STR(decode("string", odd, sizeof(odd)), "a/b\\\\\\x01\\xe9c");
	CHECK_STR(decode("string", "", 1), "");

	CHECK_STR(decode("static_map 0=read 1=write", &zero, 4), "read");
	CHECK_STR(decode("static_map 0=read 1=write", &one, 4), "write");
	CHECK_STR(decode("static_map 0=read 1=write", &two, 4), "2");
	CHECK_STR(decode("static_map 0x10=sixteen", &sixteen, 4), "sixteen");
	CHECK_STR(decode("static_map -1=none", &minus1, 4), "none");
	/* After a decoder: the text, or its number. */
	CHECK_STR(decode("uint|static_map 0=read 1=write", &one, 4), "write");
	CHECK_STR(decode("uint|static_map 0x10=sixteen", &sixteen, 4), "sixteen");
	CHECK_STR(decode("string|static_map bash=shell", comm, sizeof(comm)), "shell");
	CHECK_STR(decode("string|static_map zsh=shell", comm, sizeof(comm)), "bash");

	CHECK_STR(decode("string|regexp ^/([^/]+)", path, sizeof(path)), "system.slice");
	CHECK_STR(decode("string|regexp \\.service$", path, sizeof(path)), ".service");
	CHECK_STR(decode("string|regexp ^/system.slice/(.*)\\.service$ unit:\\1", path, sizeof(path)), "unit:ssh");
	CHECK_STR(decode("string|regexp slice svc\\\\\\0", path, sizeof(path)), "/system.svc\\slice/ssh.service");
	CHECK_STR(decode("string|regexp ^/user", path, sizeof(path)), path);
	CHECK_STR(decode("string|regexp (x)?ssh", path, sizeof(path)), "");
	/* Regexp after regexp, then static_map: a chain of three. */
	CHECK_STR(decode("string|regexp ([a-z]+)\\.service$|regexp ^(s)|static_map s=starts-with-s", path, sizeof(path)),
		  "starts-with-s");
}

static void test_majorminor_encodings(void)
{
	/* Devices that do not exist, so the name is the number and says which encoding was read. */
	uint32_t kernel = 4000u << 20 | 300000u;
	uint64_t stat64 = makedev(4000, 300000);
	uint32_t stat32 = (uint32_t)makedev(200, 70000);
	uint64_t not_dev = 1ull << 40;

	CHECK_STR(decode("majorminor", &kernel, 4), "4000_300000");
	CHECK_STR(decode("majorminor kernel", &(uint64_t){ kernel }, 8), "4000_300000");
	CHECK_STR(decode("majorminor stat", &stat64, 8), "4000_300000");
	CHECK_STR(decode("majorminor stat", &stat32, 4), "200_70000");
	CHECK_STR(decode("majorminor", &not_dev, 8), "0x10000000000");
	CHECK_STR(decode("majorminor stat", &(uint64_t){ makedev(5000, 1) }, 8), "0x100000038801");
}

/* ebpf_exporter's chains: each decoder takes the one before's output, so syscall, errno and
 * cgroup read the decimal text `uint` makes (of any size: cfs-throttling's cgroup id is 4
 * bytes); argument "ebpf_exporter" prints what has no name as ebpf_exporter does. */
static void test_exporter_chains(void)
{
	uint64_t write_nr = SYS_write, big = 100000, enoent = 2, eunknown = 5000;
	uint32_t write32 = SYS_write;
	uint32_t nodisk = (uint32_t)makedev(4000, 70000);

	CHECK_STR(decode("uint|syscall", &write_nr, 8), "write");
	CHECK_STR(decode("uint|syscall", &write32, 4), "write");
	CHECK_STR(decode("uint|syscall", &big, 8), "sys_100000");
	CHECK_STR(decode("uint|syscall ebpf_exporter", &big, 8), "unknown_syscall:100000");
	CHECK_STR(decode("syscall ebpf_exporter", &write_nr, 8), "write");
	CHECK_STR(decode("uint|errno", &enoent, 8), "ENOENT");
	CHECK_STR(decode("uint|errno", &eunknown, 8), "5000");
	CHECK_STR(decode("uint|errno ebpf_exporter", &eunknown, 8), "unknown:5000");
	/* text that is not a number passes unchanged */
	CHECK_STR(decode("string|syscall", "abc", 4), "abc");
	CHECK_STR(decode("string|errno", "12x", 4), "12x");
	CHECK_STR(decode("string|syscall", "", 4), "");
	/* uint's text of a u64 above INT64_MAX: the same bits as the raw bytes (-1, EPERM) */
	CHECK_STR(decode("uint|errno", &(uint64_t){ UINT64_MAX }, 8), "EPERM");
	CHECK_STR(decode("errno", &(uint64_t){ UINT64_MAX }, 8), "EPERM");
	CHECK_STR(decode("majorminor ebpf_exporter", &nodisk, 4), "unknown:4000:70000");
	CHECK_STR(decode("majorminor ebpf_exporter", &(uint64_t){ nodisk | 0xabcd00000000ull }, 8),
		  "unknown:4000:70000"); /* the first 4 bytes only, as ebpf_exporter reads them */
}

static void test_config_errors(void)
{
	const char *one_arg[] = { "x" }, *bad_entry[] = { "0read" }, *empty_text[] = { "0=" },
		   *dup[] = { "0=read", "0x0=zero" }, *bad_re[] = { "(" }, *groups[] = { "(a)(b)" },
		   *high_ref[] = { "(a)", "\\2" }, *bad_backslash[] = { "a", "x\\y" },
		   *three[] = { "a", "b", "c" }, *enc[] = { "little" }, *stacked[] = { "a++" },
		   *huge[] = { "((a{100}){100})x" }, *fine[] = { "^[]a[:alpha:]]{2,8}(x|y+)*[^]]\\.a{99}$" },
		   *backref[] = { "^(.*)(.*)(.*)(.*)\\1\\2\\3\\4c$" }, *bracket_digit[] = { "^[\\1]x$" };
	const struct {
		const char *before, *name;
		const char *const *args;
		int nargs;
		size_t size;
		const char *want;
	} cases[] = {
		{ NULL, "nope", NULL, 0, 0,
		  "label \"device\": unknown decoder \"nope\"; the decoders are uint, hex, string, syscall, errno, "
		  "majorminor, ksym, static_map, regexp, cgroup, inet_ip, regexps, ifname, dname, pci_vendor, "
		  "pci_device, pci_class, pci_subclass, kstack" },
		{ NULL, "uint", one_arg, 1, 0, "label \"device\": decoder uint takes no arguments, it was given 1" },
		{ NULL, "majorminor", enc, 1, 0,
		  "label \"device\": decoder majorminor: unknown dev_t encoding \"little\": \"kernel\" (major << 20 "
		  "| minor, as block tracepoints and s_dev hold it; the default), \"stat\" (as stat()'s st_dev) or "
		  "\"ebpf_exporter\" (stat's in the first 4 bytes, an unknown disk as \"unknown:MAJOR:MINOR\")" },
		{ NULL, "syscall", enc, 1, 0,
		  "label \"device\": decoder syscall: unknown argument \"little\": the only one is \"ebpf_exporter\" (a "
		  "value without a name prints as ebpf_exporter prints it)" },
		{ NULL, "errno", three, 3, 0,
		  "label \"device\": decoder errno takes 0 to 1 arguments, it was given 3" },
		{ NULL, "majorminor", three, 3, 0,
		  "label \"device\": decoder majorminor takes 0 to 1 arguments, it was given 3" },
		{ NULL, "static_map", NULL, 0, 0, "label \"device\": decoder static_map needs at least 1 argument" },
		{ NULL, "static_map", bad_entry, 1, 0,
		  "label \"device\": decoder static_map: \"0read\" is not value=text: write each entry as \"0=read\"" },
		{ NULL, "static_map", empty_text, 1, 0,
		  "label \"device\": decoder static_map: \"0=\" is not value=text: write each entry as \"0=read\"" },
		{ NULL, "static_map", dup, 2, 0,
		  "label \"device\": decoder static_map: value \"0x0\" is mapped twice (\"0=read\" and \"0x0=zero\")" },
		{ NULL, "regexp", NULL, 0, 0,
		  "label \"device\": decoder regexp takes 1 to 2 arguments, it was given 0" },
		{ "string", "regexp", three, 3, 0,
		  "label \"device\": decoder regexp takes 1 to 2 arguments, it was given 3" },
		{ "string", "regexp", bad_re, 1, 0,
		  "label \"device\": decoder regexp: \"(\" is not a POSIX extended regular expression: Unmatched ( "
		  "or \\(" },
		{ "string", "regexp", groups, 1, 0,
		  "label \"device\": decoder regexp: \"(a)(b)\" has 2 groups; without a replacement the label is group "
		  "1: keep one group, or add a replacement such as \"\\1-\\2\"" },
		{ "string", "regexp", high_ref, 2, 0,
		  "label \"device\": decoder regexp: replacement \"\\2\" uses \\2 but \"(a)\" has 1 group" },
		{ "string", "regexp", bad_backslash, 2, 0,
		  "label \"device\": decoder regexp: replacement \"x\\y\": a backslash comes before a digit (\\1) or "
		  "another backslash (\\\\)" },
		{ "string", "regexp", stacked, 1, 0,
		  "label \"device\": decoder regexp: \"a++\" has two repetition operators in a row (as \"a+*\"), which "
		  "POSIX leaves undefined: keep one, or group the part (\"(a+)*\")" },
		{ "string", "regexp", huge, 1, 0,
		  "label \"device\": decoder regexp: \"((a{100}){100})x\" repeats too much (10202 parts once "
		  "repetitions are unrolled, at most 2000): use smaller counts in {m,n}, or fewer nested repetitions" },
		{ "string", "regexp", fine, 1, 0, "<accepted>" },
		/* The pattern that took 13 s on 101 characters of a process's comm. */
		{ "string", "regexp", backref, 1, 0,
		  "label \"device\": decoder regexp: \"^(.*)(.*)(.*)(.*)\\1\\2\\3\\4c$\" has a backreference (\\1 .. \\9), "
		  "which POSIX extended expressions do not have and which can take glibc seconds on a short text a "
		  "process controls (its comm): match the part again instead, or use the groups in the replacement "
		  "(\"\\1\")" },
		{ "string", "regexp", bracket_digit, 1, 0, "<accepted>" }, /* in brackets: literal */
		{ "uint", "majorminor", NULL, 0, 0,
		  "label \"device\": decoder majorminor reads the key's bytes, so it must be the first Decode of the "
		  "label (here it follows uint, which makes text)" },

		/* Sizes, at decoder_chain_check(). */
		{ NULL, "majorminor", NULL, 0, 2, "decoder majorminor needs 4 or 8 bytes, label \"device\" has 2" },
		{ NULL, "uint", NULL, 0, 3, "decoder uint needs 1, 2, 4 or 8 bytes, label \"device\" has 3" },
		{ NULL, "syscall", NULL, 0, 16, "decoder syscall needs 1, 2, 4 or 8 bytes, label \"device\" has 16" },
		{ NULL, "errno", NULL, 0, 5, "decoder errno needs 1, 2, 4 or 8 bytes, label \"device\" has 5" },
		{ NULL, "inet_ip", NULL, 0, 8,
		  "decoder inet_ip needs 4 (IPv4) or 16 (IPv6) bytes, label \"device\" has 8" },
		{ NULL, "hex", NULL, 0, 300, "decoder hex needs 1 to 256 bytes, label \"device\" has 300" },
		{ NULL, "string", NULL, 0, 257, "decoder string needs 1 to 256 bytes, label \"device\" has 257" },
		{ NULL, "static_map", one_arg + 0, 0, 0,
		  "label \"device\": decoder static_map needs at least 1 argument" },
		{ NULL, "regexp", bad_entry, 1, 4,
		  "decoder regexp works on text, label \"device\" has raw bytes: put a decoder that makes text "
		  "(uint, string, hex, ...) before it" },
		{ NULL, "uint", NULL, 0, 4, "<accepted>" },
		{ NULL, "string", NULL, 0, 256, "<accepted>" },
	};
	struct decoder_chain c;
	char err[ERR_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(config_error(cases[i].before, cases[i].name, cases[i].args, cases[i].nargs, cases[i].size),
			  cases[i].want);

	decoder_chain_init(&c, "device");
	CHECK(decoder_chain_check(&c, 0, err, sizeof(err)) == -1);
	CHECK_STR(err, "label \"device\" has 0 bytes: give it a Field or a Size");
	CHECK(decoder_chain_check(&c, 257, err, sizeof(err)) == -1);
	CHECK_STR(err, "label \"device\" has 257 bytes, more than the 256 a label can show");
	for (int i = 0; i < DECODER_CHAIN_MAX; i++)
		CHECK(decoder_chain_add(&c, i ? "regexp" : "string", one_arg, i ? 1 : 0, err, sizeof(err)) == 0);
	CHECK(decoder_chain_add(&c, "regexp", one_arg, 1, err, sizeof(err)) == -1);
	CHECK_STR(err, "label \"device\": more than 8 Decode lines");
	decoder_chain_free(&c);

	CHECK_STR(label_decoder_sizes("majorminor"), "4 or 8 bytes");
	CHECK(label_decoder_sizes("regexp") == NULL);
	CHECK(label_decoder_sizes("nope") == NULL);
}

static void test_label_value_safe(void)
{
	char out[LABEL_VALUE_MAX], in[400], again[LABEL_VALUE_MAX];

	CHECK_STR(label_value_safe("sda", out), "sda");
	CHECK_STR(label_value_safe("/", out), "root");
	CHECK_STR(label_value_safe("/system.slice/ssh.service", out), "system.slice_ssh.service");
	CHECK_STR(label_value_safe("a/b//c", out), "a_b__c");
	CHECK_STR(label_value_safe("", out), "empty");
	CHECK_STR(label_value_safe("tab\there\x7f", out), "tab_here_");
	CHECK_STR(label_value_safe("read-write 2", out), "read-write 2");

	memset(in, 'x', 127);
	in[127] = '\0';
	CHECK_STR(label_value_safe(in, out), in); /* 127 characters fit */
	in[127] = 'y';
	in[128] = '\0';
	label_value_safe(in, out);
	CHECK_EQ_U64(strlen(out), 127);
	CHECK(!strncmp(out, in, 118) && out[118] == '~');
	in[128 - 1] = 'z'; /* the same beginning, another end: another label */
	label_value_safe(in, again);
	CHECK(strcmp(out, again) != 0);
	CHECK(!strncmp(out, again, 119));
	memset(in, '/', 399);
	in[399] = '\0';
	label_value_safe(in, out);
	CHECK_EQ_U64(strlen(out), 127);
	CHECK(strchr(out, '/') == NULL);
}

static void test_ksym_table(void)
{
	const char *text = "0000000000000000 A fixed_percpu_data\n"
			   "ffffffff81000000 T _stext\n"
			   "ffffffff81002000 t second_func\n"
			   "ffffffff81001000 T first_func\n"
			   "ffffffff81003000 A absolute_sym\n"
			   "garbage line\n"
			   "ffffffffc0a01000 t ext4_thing\t[ext4]\n"
			   "ffffffffc0a02000 t last";
	struct ksym_table t;

	CHECK(ksym_table_parse(&t, text, strlen(text)) == 0);
	CHECK_EQ_U64(t.n, 5);
	CHECK_STR(ksym_table_find(&t, 0xffffffff81001000ull), "first_func");
	CHECK_STR(ksym_table_find(&t, 0xffffffff81001fffull), "first_func");
	CHECK_STR(ksym_table_find(&t, 0xffffffff81003001ull), "second_func"); /* the absolute one is left out */
	CHECK_STR(ksym_table_find(&t, 0xffffffffc0a01010ull), "ext4_thing");
	/* its module as kallsyms lists it, for ebpf_exporter's "ext4_thing\t[ext4]" */
	CHECK_STR(ksym_name_module(ksym_table_find(&t, 0xffffffffc0a01010ull)), "\t[ext4]");
	CHECK_STR(ksym_name_module(ksym_table_find(&t, 0xffffffff81001000ull)), "");
	CHECK_STR(ksym_name_module(ksym_table_find(&t, 0xffffffffc0a02000ull)), "");
	CHECK_STR(ksym_table_find(&t, 0xffffffffc0a02000ull), "last");
	/* ebpf_exporter's ksym: a symbol's own address only */
	CHECK_STR(ksym_table_exact(&t, 0xffffffff81001000ull), "first_func");
	CHECK(ksym_table_exact(&t, 0xffffffff81001001ull) == NULL);
	CHECK(ksym_table_exact(&t, 0xffffffff81002fffull) == NULL);
	CHECK_STR(ksym_table_exact(&t, 0xffffffffc0a02000ull), "last");
	CHECK(ksym_table_exact(&t, 0xffffffff80ffffffull) == NULL);
	CHECK(ksym_table_find(&t, 0xffffffff80ffffffull) == NULL);
	CHECK(ksym_table_find(&t, 0xffffffffc0a02001ull) == NULL);
	/* ebpf_exporter's kstack: the nearest symbol below, however far, past the last one too */
	CHECK_STR(ksym_table_at_or_below(&t, 0xffffffffc0a02001ull), "last");
	CHECK_STR(ksym_table_at_or_below(&t, UINT64_MAX), "last");
	CHECK_STR(ksym_table_at_or_below(&t, 0xffffffff81001fffull), "first_func");
	CHECK_STR(ksym_table_at_or_below(&t, 0xffffffff81000000ull), "_stext");
	CHECK(ksym_table_at_or_below(&t, 0xffffffff80ffffffull) == NULL);
	ksym_table_free(&t);
	CHECK(ksym_table_parse(&t, "", 0) == 0 && t.n == 0 && ksym_table_find(&t, 1) == NULL);
	CHECK(ksym_table_at_or_below(&t, 1) == NULL);
	ksym_table_free(&t);
}

int main(void)
{
	test_numbers();
	test_text();
	test_majorminor_encodings();
	test_exporter_chains();
	test_config_errors();
	test_label_value_safe();
	test_ksym_table();
	return testing_done();
}
