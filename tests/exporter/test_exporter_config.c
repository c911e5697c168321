/* ebpf_exporter's YAML read into <Program> views (libcore/programs/exporter_config.h): the
 * test config of tests/exporter/exporter_syscalls.yaml gives a derive counter and a key-layout
 * exp2 histogram with the sum key past bucket_max; the label chains decode as ebpf_exporter's
 * do (`uint` then `syscall`; static_map's unknown values as "unknown:N" unless allow_unknown). */
#include "libcore/programs/exporter_config.h"
#include "libcore/programs/exporter_le.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <net/if.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char good[] = "metrics:\n"
			   "  counters:\n"
			   "    - name: syscalls_total\n"
			   "      help: calls\n"
			   "      labels:\n"
			   "        - name: syscall\n"
			   "          size: 8\n"
			   "          decoders:\n"
			   "            - name: uint\n"
			   "            - name: syscall\n"
			   "  histograms:\n"
			   "    - name: io_latency_seconds\n"
			   "      help: latency\n"
			   "      bucket_type: exp2zero\n"
			   "      bucket_min: 1\n"
			   "      bucket_max: 26\n"
			   "      bucket_multiplier: 0.000001\n"
			   "      labels:\n"
			   "        - name: op\n"
			   "          size: 4\n"
			   "          decoders:\n"
			   "            - name: uint\n"
			   "            - name: static_map\n"
			   "              static_map:\n"
			   "                1: read\n"
			   "                2: write\n"
			   "        - name: dir\n"
			   "          size: 4\n"
			   "          decoders:\n"
			   "            - name: uint\n"
			   "            - name: static_map\n"
			   "              allow_unknown: true\n"
			   "              static_map: {0: in}\n"
			   "        - name: bucket\n"
			   "          size: 8\n"
			   "          decoders:\n"
			   "            - name: uint\n";

static const char *decode_u64(struct decoder_chain *c, uint64_t v, size_t size, char *out)
{
	uint32_t v32 = (uint32_t)v;

	return decoder_chain_decode(c, size == 8 ? (const void *)&v : (const void *)&v32, size, out, DECODE_TEXT_MAX);
}

/* yaml as the file "t.yaml", parsed into c (zeroed first, so that it can always be freed). */
static int parse_yaml(const char *yaml, struct program_config *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	return exporter_config_parse("t.yaml", (const unsigned char *)yaml, strlen(yaml), c, err, errlen);
}

static void test_good(void)
{
	struct program_config c;
	char err[ERR_MAX], out[DECODE_TEXT_MAX];
	const struct program_view *counter, *hist;

	CHECK(parse_yaml(good, &c, err, sizeof(err)) == 0);
	if (c.nviews != 2) {
		fprintf(stderr, "%s\n", err);
		CHECK(c.nviews == 2);
		return;
	}
	counter = &c.views[0];
	hist = &c.views[1];
	CHECK(counter->kind == VIEW_KIND_COUNTER);
	CHECK_STR(counter->map, "syscalls_total");
	CHECK_STR(counter->type, "derive");
	CHECK_STR(counter->type_instance, "syscalls-%{syscall}");
	CHECK(counter->nlabels == 1 && counter->labels[0].size == 8);
	/* a <Program>'s defaults: the YAML has no MaxSeries or ReclaimAfter */
	CHECK(counter->max_series == PROGRAM_DEFAULT_MAX_SERIES && hist->max_series == PROGRAM_DEFAULT_MAX_SERIES);
	CHECK(counter->reclaim_after == PROGRAM_DEFAULT_RECLAIM_AFTER && counter->reclaim_after == 60);
	CHECK(hist->reclaim_after == PROGRAM_DEFAULT_RECLAIM_AFTER);
	/* uint then syscall: the number's name, as ebpf_exporter's chain gives it */
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, SYS_write, 8, out), "write");
	CHECK(decoder_chain_check(&counter->labels[0].decoders, 8, err, sizeof(err)) == 0);

	CHECK(hist->kind == VIEW_KIND_HISTOGRAM && hist->layout == HIST_LAYOUT_KEY);
	CHECK(hist->buckets == SLOTS_EXP2ZERO);
	CHECK_STR(hist->type, "latency");
	CHECK_STR(hist->type_instance, "io_latency-%{op}-%{dir}");
	CHECK(hist->key_range && hist->key_min == 1 && hist->key_max == 26);
	CHECK_NEAR(hist->multiplier, 0.000001, 1e-12);
	CHECK(hist->nlabels == 2); /* the bucket label is the key's last part, not a label */
	CHECK_STR(decode_u64(&c.views[1].labels[0].decoders, 2, 4, out), "write");
	CHECK_STR(decode_u64(&c.views[1].labels[0].decoders, 7, 4, out), "unknown:7");
	CHECK_STR(decode_u64(&c.views[1].labels[1].decoders, 0, 4, out), "in");
	CHECK_STR(decode_u64(&c.views[1].labels[1].decoders, 5, 4, out), "5"); /* allow_unknown */
	/* ebpf_exporter's names for the endpoint: its namespace, the YAML's name and help */
	CHECK_STR(counter->family, "ebpf_exporter_syscalls_total");
	CHECK_STR(counter->help, "calls");
	CHECK_STR(hist->family, "ebpf_exporter_io_latency_seconds");
	CHECK_STR(hist->help, "latency");
	{
		/* exp2zero 1 .. 26 times 1e-6: bucket b up to 2^(b-1) us, as its keyer makes them */
		struct exporter_bucket b[EXPORTER_MAX_BUCKETS];
		char le[32];

		CHECK(exporter_buckets(hist, b, EXPORTER_MAX_BUCKETS) == 26);
		CHECK(b[0].key == 1 && b[0].le == 1e-6 && b[25].key == 26 && b[25].le == 33554432 * 1e-6);
		exporter_float_text(b[0].le, le, sizeof(le));
		CHECK_STR(le, "1e-06");
		exporter_float_text(b[11].le, le, sizeof(le));
		CHECK_STR(le, "0.002048");
		exporter_float_text(b[25].le, le, sizeof(le));
		CHECK_STR(le, "33.554432");
		CHECK(exporter_buckets(hist, b, 25) == -1);
	}
	program_config_free(&c);
}

/* A bucket's `le` as ebpf_exporter's Go client writes it: strconv.FormatFloat(x, 'g', -1,
 * 64), the shortest digits that read back, %e form below 1e-4 and from 1e6 on. */
static void test_le_text(void)
{
	static const struct {
		double x;
		const char *text;
	} cases[] = {
		{ 0, "0" },	     { 1, "1" },	       { 0.5, "0.5" },
		{ 1e-4, "0.0001" },  { 1e-5, "1e-05" },       { 8e-6, "8e-06" },
		{ 999999, "999999" }, { 1e6, "1e+06" },	       { 1048576, "1.048576e+06" },
		{ 0.1 + 0.2, "0.30000000000000004" },  { 123456789, "1.23456789e+08" },
		{ 134.217728, "134.217728" },	     { 4096 * 50.0, "204800" },
		{ 1e21, "1e+21" },   { -2.5e-7, "-2.5e-07" },
	};
	char out[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		exporter_float_text(cases[i].x, out, sizeof(out));
		CHECK_STR(out, cases[i].text);
	}
}

/* A static_map of n entries "i: vi" (keys 0..n-1), then `extra` entries as YAML lines. */
static char *many_entries(int n, const char *extra)
{
	size_t room = (size_t)n * 40 + 1024, used;
	char *yaml = malloc(room);

	if (!yaml)
		return NULL;
	used = (size_t)snprintf(yaml, room,
				"metrics:\n  counters:\n    - name: a_total\n      help: x\n      labels:\n"
				"        - name: l\n          size: 4\n          decoders:\n            - name: uint\n"
				"            - name: static_map\n              static_map:\n");
	for (int i = 0; i < n; i++)
		used += (size_t)snprintf(yaml + used, room - used, "                %d: v%d\n", i, i);
	snprintf(yaml + used, room - used, "%s", extra);
	return yaml;
}

/* static_map's duplicate check over many entries (it compared every pair: 80,000 entries
 * took 12 s; sorted, a fraction of a second): every entry decodes, and a duplicate, by its
 * text or by its number ("0x10" after "16"), is found whichever entries it pairs, named by
 * the first pair a check against the entries before each would find. */
static void test_static_map_many(void)
{
	enum { N = 80000 };
	struct program_config c;
	char err[ERR_MAX], out[DECODE_TEXT_MAX];
	char *yaml = many_entries(N, "");

	CHECK(yaml && parse_yaml(yaml, &c, err, sizeof(err)) == 0);
	if (c.nviews == 1) {
		CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 0, 4, out), "v0");
		CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, N - 1, 4, out), "v79999");
		CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, N, 4, out), "unknown:80000");
	}
	program_config_free(&c);
	free(yaml);
	/* a number's other spelling, last: entries 17 ("16") and N + 1 */
	yaml = many_entries(N, "                0x10: dup\n");
	CHECK(yaml && parse_yaml(yaml, &c, err, sizeof(err)) == -1);
	CHECK_STR(err, "ExporterConfig \"t.yaml\" line 10 column 15: this label: decoder static_map: entries 17 and "
		       "80001 map the same value: keep one");
	program_config_free(&c);
	free(yaml);
	/* two pairs: the one whose later entry comes first is named (entries 80001 and 80003
	 * are "a" twice; 80002 repeats 79999, entry 80000) */
	yaml = many_entries(N, "                a: x\n                79999: y\n                a: z\n");
	CHECK(yaml && parse_yaml(yaml, &c, err, sizeof(err)) == -1);
	CHECK(strstr(err, "entries 80000 and 80002 map the same value") != NULL);
	program_config_free(&c);
	free(yaml);
	/* text keys only, the pair far apart */
	yaml = many_entries(N, "                b: x\n                c: y\n                b: z\n");
	CHECK(yaml && parse_yaml(yaml, &c, err, sizeof(err)) == -1);
	CHECK(strstr(err, "entries 80001 and 80003 map the same value") != NULL);
	program_config_free(&c);
	free(yaml);
	/* the collectd configuration's Decode "static_map" names the values (its own file) */
	{
		struct decoder_chain chain;
		const char *args[] = { "1=read", "2=write", "0x2=again" };

		decoder_chain_init(&chain, "op");
		CHECK(decoder_chain_add(&chain, "static_map", args, 3, err, sizeof(err)) == -1);
		CHECK_STR(err, "label \"op\": decoder static_map: value \"0x2\" is mapped twice (\"2=write\" and "
			       "\"0x2=again\")");
		decoder_chain_free(&chain);
	}
}

/* A counter of one label with these decoders (YAML flow list), parsed into c. */
static int parse_label(const char *decoders, int size, struct program_config *c, char *err, size_t errlen)
{
	char yaml[1024];

	snprintf(yaml, sizeof(yaml),
		 "metrics:\n  counters:\n    - name: a_total\n      help: x\n      labels:\n        - name: l\n"
		 "          size: %d\n          decoders: %s\n", size, decoders);
	return parse_yaml(yaml, c, err, errlen);
}

/* A label the config refuses with exactly the message want. */
static void label_refused(const char *decoders, int size, const char *want)
{
	struct program_config c;
	char err[ERR_MAX];

	CHECK(parse_label(decoders, size, &c, err, sizeof(err)) == -1);
	CHECK_STR(err, want);
	program_config_free(&c);
}

/* A label the config refuses with a message that has part in it. */
static void label_refused_with(const char *decoders, int size, const char *part)
{
	struct program_config c;
	char err[ERR_MAX];

	CHECK(parse_label(decoders, size, &c, err, sizeof(err)) == -1);
	CHECK(strstr(err, part) != NULL);
	program_config_free(&c);
}

/* ebpf_exporter's chains: each decoder reads the one before's output, unnamed values as it
 * prints them; majorminor (biolatency) reads user space's dev_t encoding. */
static void test_chains(void)
{
	struct program_config c;
	char err[ERR_MAX], out[DECODE_TEXT_MAX];

	/* cfs-throttling's key: a 4-byte cgroup id, `uint` then `cgroup` */
	CHECK(parse_label("[{name: uint}, {name: cgroup}]", 4, &c, err, sizeof(err)) == 0);
	CHECK(decoder_chain_check(&c.views[0].labels[0].decoders, 4, err, sizeof(err)) == 0);
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 4000000000u, 4, out), "unknown_cgroup_id:4000000000");
	program_config_free(&c);
	CHECK(parse_label("[{name: uint}, {name: syscall}]", 8, &c, err, sizeof(err)) == 0);
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 100000, 8, out), "unknown_syscall:100000");
	program_config_free(&c);
	CHECK(parse_label("[{name: uint}, {name: errno}]", 8, &c, err, sizeof(err)) == 0);
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 2, 8, out), "ENOENT");
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 5000, 8, out), "unknown:5000");
	program_config_free(&c);
	/* errno's name, then a static_map of the names: three in a chain */
	CHECK(parse_label("[{name: uint}, {name: errno}, {name: static_map, static_map: {ENOENT: missing}}]", 8, &c,
			  err, sizeof(err)) == 0);
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 2, 8, out), "missing");
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 13, 8, out), "unknown:EACCES");
	program_config_free(&c);
	CHECK(parse_label("[{name: majorminor}]", 4, &c, err, sizeof(err)) == 0);
	CHECK(decoder_chain_check(&c.views[0].labels[0].decoders, 4, err, sizeof(err)) == 0);
	/* user space's encoding of 4000:70000, a disk no machine has */
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, (70000u & 0xff) | (4000u << 8) | ((70000u & ~0xffu) << 12),
			     4, out), "unknown:4000:70000");
	program_config_free(&c);
	/* inet-frags' interface: an index, unknown:N without an interface */
	CHECK(parse_label("[{name: ifname}]", 4, &c, err, sizeof(err)) == 0);
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, if_nametoindex("lo"), 4, out), "lo");
	CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 0, 4, out), "unknown:0");
	program_config_free(&c);
	/* dname reads the whole key part: each 0 byte after the name one more '.' */
	CHECK(parse_label("[{name: dname}]", 8, &c, err, sizeof(err)) == 0);
	CHECK_STR(decoder_chain_decode(&c.views[0].labels[0].decoders, "\x01" "a\x02" "bc\0\0", 8, out, sizeof(out)),
		  "a.bc..."); /* the name, then three 0 bytes */
	program_config_free(&c);
	/* pci's labels: uint then a pci_* decoder, from the system's pci.ids */
	if (!access("/usr/share/misc/pci.ids", R_OK)) {
		CHECK(parse_label("[{name: uint}, {name: pci_vendor}]", 4, &c, err, sizeof(err)) == 0);
		CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 0x8086, 4, out), "Intel Corporation");
		CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 0x0e11, 4, out), "unknown pci vendor: 0xe11");
		program_config_free(&c);
		CHECK(parse_label("[{name: uint}, {name: pci_subclass}]", 4, &c, err, sizeof(err)) == 0);
		CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 0x010b, 4, out),
			  "unknown pci subclass: 0x0b (class 0x01)");
		program_config_free(&c);
	} else {
		label_refused_with("[{name: uint}, {name: pci_vendor}]", 4, "`apt-get install pci.ids`");
	}
	label_refused("[{name: pci_class}]", 2,
		      "ExporterConfig \"t.yaml\" line 8 column 22: this label: decoder pci_class reads a number's text: put "
		      "`- name: uint` before it");
	if (geteuid() == 0) { /* ksym reads /proc/kallsyms at config time, with addresses for root only */
		CHECK(parse_label("[{name: ksym}]", 8, &c, err, sizeof(err)) == 0);
		CHECK_STR(decode_u64(&c.views[0].labels[0].decoders, 1, 8, out), "unknown_addr:0x1");
		program_config_free(&c);
		/* kstack: ebpf_exporter's text (frames by newline, "??" below every symbol) */
		CHECK(parse_label("[{name: kstack}]", 16, &c, err, sizeof(err)) == 0);
		CHECK_STR(decoder_chain_decode(&c.views[0].labels[0].decoders, (uint64_t[]){ 1, 2 }, 16, out,
					       DECODE_TEXT_MAX), "??\n??");
		program_config_free(&c);
		/* a size kstack cannot read: refused at the label's size line, before any object */
		label_refused("[{name: kstack}]", 12,
			      "ExporterConfig \"t.yaml\" line 7 column 17: decoder kstack needs a multiple of 8 bytes (one u64 "
			      "address a frame), at most 256 (32 frames), this label has 12: change its size");
	} else {
		printf("not root: ksym's and kstack's configs are not tried\n");
	}
	label_refused("[{name: uint}, {name: kstack}]", 8,
		      "ExporterConfig \"t.yaml\" line 8 column 36: this label: decoder kstack reads the key's bytes, so it must "
		      "be the label's first decoder");
	label_refused("[{name: majorminor}]", 2,
		      "ExporterConfig \"t.yaml\" line 7 column 17: decoder majorminor needs 4 or 8 bytes, this label has 2: "
		      "change its size");

	/* The order ebpf_exporter would not make a label of, each named. */
	label_refused("[{name: syscall}]", 8,
		      "ExporterConfig \"t.yaml\" line 8 column 22: this label: decoder syscall reads a number's text: put "
		      "`- name: uint` before it");
	label_refused("[{name: uint}, {name: majorminor}]", 4,
		      "ExporterConfig \"t.yaml\" line 8 column 36: this label: decoder majorminor reads the key's bytes, so it "
		      "must be the label's first decoder");
	/* regexp: the first pattern that matches, its group 1 or the match; none drops the label
	 * set (what the reader does with that: test_decoder_regexps, collectd_exporter_regexp.sh) */
	CHECK(parse_label("[{name: string}, {name: regexp, regexps: [\"^(kswapd).*$\", \"^(systemd.*)$\"]}]", 16, &c,
			  err, sizeof(err)) == 0);
	{
		char comm[16] = "kswapd0", out2[DECODE_TEXT_MAX];

		CHECK(decoder_chain_may_drop(&c.views[0].labels[0].decoders));
		CHECK(decoder_chain_decode_kept(&c.views[0].labels[0].decoders, comm, 16, out2, sizeof(out2)));
		CHECK_STR(out2, "kswapd");
		snprintf(comm, sizeof(comm), "systemd-udevd");
		CHECK(decoder_chain_decode_kept(&c.views[0].labels[0].decoders, comm, 16, out2, sizeof(out2)));
		CHECK_STR(out2, "systemd-udevd");
		snprintf(comm, sizeof(comm), "bash");
		CHECK(!decoder_chain_decode_kept(&c.views[0].labels[0].decoders, comm, 16, out2, sizeof(out2)));
		CHECK_STR(decoder_chain_line(&c.views[0].labels[0].decoders, 1),
			  "\"regexps\" \"^(kswapd).*$\" \"^(systemd.*)$\"");
	}
	program_config_free(&c);
	label_refused("[{name: string}, {name: regexp}]", 16,
		      "ExporterConfig \"t.yaml\" line 8 column 38: this label: decoder regexp needs its regexps: a list of "
		      "patterns (`regexps: [\"^(kswapd).*$\"]`)");
	label_refused("[{name: string}, {name: regexp, regexps: [\"^cpu\\\\d$\"]}]", 16,
		      "ExporterConfig \"t.yaml\" line 8 column 38: this label: decoder regexps: entry 1 is Go's syntax "
		      "(ebpf_exporter's), not POSIX extended: use [0-9] for \\d");
	label_refused_with("[{name: string}, {name: regexp, regexps: \"^a\"}]", 16, "line 8 column 62: regexps must be a list");
	label_refused_with("[{name: regexp, regexps: [\"^a\"]}]", 16, "decoder regexp reads text: put a decoder that makes it");
	label_refused_with("[{name: rot13}]", 4, "line 8 column 22: this label: unknown decoder name; the decoders here: uint,");
}

/* Each refusal names the line and the field. */
static void test_refused(const char *yaml, const char *expected)
{
	struct program_config c;
	char err[ERR_MAX];

	CHECK(parse_yaml(yaml, &c, err, sizeof(err)) == -1);
	if (!strstr(err, expected)) {
		fprintf(stderr, "expected \"%s\" in \"%s\"\n", expected, err);
		CHECK(!"message");
	}
	program_config_free(&c);
}

int main(void)
{
	char path[64];

	test_good();
	test_le_text();
	test_chains();
	test_static_map_many();
	test_refused("", "the file is empty");
	{
		/* nesting: 64 lists inside one another pass the check (the config is then refused
		 * for what it is), 65 are refused where the 65th opens, before libyaml loads them */
		char yaml[512];

		snprintf(yaml, sizeof(yaml), "metrics: %.63s%.63s\n", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
			 "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
		test_refused(yaml, "line 1 column 10: metrics must be a mapping");
		snprintf(yaml, sizeof(yaml), "metrics: %.64s%.64s\n", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
			 "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
		test_refused(yaml, "line 1 column 73: lists and mappings nested more than 64 deep");
	}
	test_refused("- a\n", "the config must be a mapping");
	test_refused("metrics:\n  gauges: []\n", "line 2 column 3: unknown field in metrics; ebpf_exporter's fields there: counters, histograms");
	test_refused("cgroup_id_map:\n  name: x\n  type: lru\n",
		     "line 2 column 3: cgroup_id_map: cgroup id map type unknown: it is \"hash\" (u64 cgroup id -> u64) or "
		     "\"cgrp_storage\" (BPF_MAP_TYPE_CGRP_STORAGE)");
	test_refused("cgroup_id_map:\n  type: hash\n", "line 2 column 3: cgroup_id_map needs the name of the program's map");
	test_refused("cgroup_id_map:\n  name: x\n  regexps: ['^\\d']\n", "is Go's syntax (ebpf_exporter's)");
	test_refused("cgroup_id_map:\n  name: x\n  flags: 1\n", "line 3 column 3: unknown field in cgroup_id_map");
	{
		static const char yaml[] = "cgroup_id_map:\n  name: ids\n  regexps:\n    - ^.*(system.slice/.*)$\n"
					   "metrics:\n  counters: [{name: a_total, help: x}]\n";
		struct program_config c;
		char err[ERR_MAX];

		CHECK(parse_yaml(yaml, &c, err, sizeof(err)) == 0);
		CHECK_STR(c.cgroup_ids.map, "ids");
		CHECK(!c.cgroup_ids.cgrp_storage); /* ebpf_exporter's default type: hash */
		CHECK(c.cgroup_ids.npatterns == 1);
		CHECK_STR(c.cgroup_ids.patterns[0], "^.*(system.slice/.*)$");
		program_config_free(&c);
	}
	test_refused("kaddrs: [a, a]\nmetrics:\n  counters: [{name: a_total, help: x}]\n",
		     "line 1 column 13: kaddrs: this entry's kernel symbol is given twice");
	test_refused("kaddrs: {a: b}\n", "line 1 column 9: kaddrs must be a list");
	{
		static const char yaml[] = "kaddrs:\n  - bpf_jit_current\n  - vfs_read\n"
					   "metrics:\n  counters: [{name: a_total, help: x}]\n";
		struct program_config c;
		char err[ERR_MAX];

		CHECK(parse_yaml(yaml, &c, err, sizeof(err)) == 0);
		CHECK(c.nkaddrs == 2);
		CHECK_STR(c.kaddrs[0], "bpf_jit_current");
		CHECK_STR(c.kaddrs[1], "vfs_read");
		program_config_free(&c);
	}
	test_refused("metrics:\n  counters:\n    - name: a_total\n      help: x\n      perf_event_array: true\n",
		     "line 5 column 7: field \"perf_event_array\" is not supported yet");
	test_refused("metrics:\n  histograms:\n    - name: a\n      help: x\n      bucket_type: exp2\n"
		     "      bucket_max: 3\n      labels:\n        - name: bucket\n          size: 3\n"
		     "          decoders: [{name: uint}]\n",
		     "line 8 column 11: the bucket label has size 3");
	test_refused("metrics:\n  counters:\n    - name: a_total\n      help: x\n      labels:\n        - name: l\n"
		     "          size: 4\n          decoders: [{name: uint}, {name: static_map, static_map: {1: a}, "
		     "regexps: [x]}]\n",
		     "line 8 column 36: this label: regexps go with decoder regexp, not static_map");
	CHECK(exporter_object_path("/etc/x/biolatency.yaml", path, sizeof(path)) == 0);
	CHECK_STR(path, "/etc/x/biolatency.bpf.o");
	CHECK(exporter_object_path("/etc/x/biolatency.yml", path, sizeof(path)) == -1);
	return testing_done();
}
