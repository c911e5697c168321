/* An ebpf_exporter config printed as its <Program> block (program_block_text.h, what
 * collectd-ebpf-import prints) and that block parsed back (program_config_parse) give the
 * same views, field by field, with decoder chains that decode the same key bytes to the same
 * text: the block loaded in place of ExporterConfig configures the same thing. Configs: every
 * bucket type (fixed's bucket_keys too), Multiplier below 1, static_map with and without allow_unknown, chains of
 * three, a counter without labels, a last label cpu (CPUIndex); and KeyRange's own checks. */
#include "libcore/programs/exporter_config.h"
#include "libcore/programs/program_config.h"
#include "libcore/programs/program_block_text.h"
#include "tests/support/conf_text.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char exp2zero_config[] =
	"metrics:\n"
	"  counters:\n"
	"    - name: syscalls_total\n"
	"      help: calls\n"
	"      labels:\n"
	"        - name: syscall\n"
	"          size: 8\n"
	"          decoders: [{name: uint}, {name: syscall}]\n"
	"    - name: errors_total\n"
	"      help: errors\n"
	"      labels:\n"
	"        - name: err\n"
	"          size: 4\n"
	"          padding: 4\n"
	"          decoders: [{name: uint}, {name: errno}, {name: static_map, static_map: {ENOENT: missing}}]\n"
	"    - name: events_total\n"
	"      help: all events\n"
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
	"          decoders: [{name: uint}, {name: static_map, static_map: {1: read, 2: write}}]\n"
	"        - name: dir\n"
	"          size: 4\n"
	"          decoders: [{name: uint}, {name: static_map, allow_unknown: true, static_map: {0: in}}]\n"
	"        - name: bucket\n"
	"          size: 8\n"
	"          decoders: [{name: uint}]\n";

static const char linear_config[] =
	"metrics:\n"
	"  histograms:\n"
	"    - name: queue_depth\n"
	"      help: depth\n"
	"      bucket_type: linear\n"
	"      bucket_min: 0\n"
	"      bucket_max: 40\n"
	"      labels:\n"
	"        - name: name\n"
	"          size: 16\n"
	"          decoders: [{name: string}]\n"
	"        - name: addr\n"
	"          size: 4\n"
	"          decoders: [{name: inet_ip}]\n"
	"        - name: bucket\n"
	"          size: 4\n"
	"          decoders: [{name: uint}]\n"
	"    - name: sizes_bytes\n"
	"      help: sizes\n"
	"      bucket_type: exp2\n"
	"      bucket_min: 0\n"
	"      bucket_max: 20\n"
	"      labels:\n"
	"        - name: raw\n"
	"          size: 6\n"
	"          padding: 2\n"
	"          decoders: [{name: hex}]\n"
	"        - name: bucket\n"
	"          size: 8\n"
	"          decoders: [{name: uint}]\n";

/* The block c prints, in a malloc'd string. */
static char *block_text(const struct program_config *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK(f && program_block_write(f, c) == 0);
	if (f)
		fclose(f);
	return text;
}

/* Key bytes that exercise every decoder here: numbers with and without names, text. */
static void check_same_decoding(struct program_label *a, struct program_label *b)
{
	static const uint64_t numbers[] = { 0, 1, 2, 3, 13, 59, 5000, 0x0a000001, 0x7f000001, UINT64_MAX };
	unsigned char bytes[DECODE_BYTES_MAX];
	char out_a[DECODE_TEXT_MAX], out_b[DECODE_TEXT_MAX];

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		uint32_t v32 = (uint32_t)numbers[i];

		memset(bytes, 0, sizeof(bytes));
		if (a->size == 4)
			memcpy(bytes, &v32, 4);
		else
			memcpy(bytes, &numbers[i], a->size < 8 ? a->size : 8);
		if (a->size > 8)
			snprintf((char *)bytes, a->size, "task%llu", (unsigned long long)numbers[i]);
		bool kept_a = decoder_chain_decode_kept(&a->decoders, bytes, a->size, out_a, sizeof(out_a));
		bool kept_b = decoder_chain_decode_kept(&b->decoders, bytes, b->size, out_b, sizeof(out_b));

		CHECK(kept_a == kept_b); /* a label set dropped (regexps) by both or by neither */
		if (strcmp(out_a, out_b))
			fprintf(stderr, "label %s, value %llu: \"%s\" from the YAML, \"%s\" from the block\n", a->name,
				(unsigned long long)numbers[i], out_a, out_b);
		CHECK_STR(out_a, out_b);
	}
}

static void check_same_view(struct program_view *a, struct program_view *b)
{
	CHECK(a->kind == b->kind);
	CHECK_STR(a->map, b->map);
	CHECK_STR(a->type, b->type);
	CHECK_STR(a->value_field, b->value_field);
	CHECK_STR(a->type_instance, b->type_instance);
	CHECK(a->max_series == b->max_series);
	CHECK(a->reclaim_after == b->reclaim_after);
	CHECK(a->percpu == b->percpu && a->percpu_given == b->percpu_given);
	CHECK(a->layout == b->layout);
	CHECK_STR(a->slots_field, b->slots_field);
	CHECK_STR(a->sum_field, b->sum_field);
	CHECK(a->buckets == b->buckets);
	CHECK(a->multiplier == b->multiplier); /* exactly: the number is printed to read back */
	CHECK(a->linear_min == b->linear_min && a->linear_width == b->linear_width &&
	      a->linear_count == b->linear_count);
	CHECK(a->nfixed_bounds == b->nfixed_bounds);
	for (int k = 0; k < a->nfixed_bounds && k < b->nfixed_bounds; k++)
		CHECK(a->fixed_bounds[k] == b->fixed_bounds[k]);
	CHECK(a->hist.precision == b->hist.precision && a->hist.precision_from_user == b->hist.precision_from_user);
	CHECK(a->key_range == b->key_range && a->key_min == b->key_min && a->key_max == b->key_max);
	CHECK(a->key_listed_only == b->key_listed_only);
	CHECK(a->nlabels == b->nlabels);
	for (int l = 0; l < a->nlabels && l < b->nlabels; l++) {
		struct program_label *la = &a->labels[l], *lb = &b->labels[l];

		CHECK_STR(la->name, lb->name);
		CHECK_STR(la->field, lb->field);
		CHECK(la->size == lb->size && la->padding == lb->padding && la->cpu_index == lb->cpu_index);
		CHECK(la->decoders.n == lb->decoders.n);
		for (int d = 0; d < la->decoders.n && d < lb->decoders.n; d++)
			CHECK_STR(decoder_chain_line(&la->decoders, d), decoder_chain_line(&lb->decoders, d));
		if (la->decoders.n == lb->decoders.n)
			check_same_decoding(la, lb);
	}
}

/* yaml read as ExporterConfig reads it, printed, parsed back: the same views. Returns the
 * printed block (malloc'd) for the caller's own checks. */
static char *round_trip(const char *yaml)
{
	struct program_config *from_yaml = calloc(1, sizeof(*from_yaml)), *from_block = calloc(1, sizeof(*from_block));
	char err[ERR_MAX], *text;
	struct conf_node *root;

	snprintf(from_yaml->name, sizeof(from_yaml->name), "imported");
	snprintf(from_yaml->object, sizeof(from_yaml->object), "/etc/collectd/ebpf.d/imported.bpf.o");
	CHECK(exporter_config_parse("t.yaml", (const unsigned char *)yaml, strlen(yaml), from_yaml, err, sizeof(err)) == 0);
	text = block_text(from_yaml);
	root = conf_text(text);
	if (program_config_parse(root, from_block, err, sizeof(err))) {
		fprintf(stderr, "the printed block is refused: %s\n%s", err, text);
		CHECK(!"the printed block parses");
	} else {
		CHECK_STR(from_block->name, "imported");
		CHECK_STR(from_block->object, from_yaml->object);
		CHECK(from_block->nviews == from_yaml->nviews);
		CHECK(from_block->nkaddrs == from_yaml->nkaddrs);
		for (int k = 0; k < from_yaml->nkaddrs && k < from_block->nkaddrs; k++)
			CHECK_STR(from_block->kaddrs[k], from_yaml->kaddrs[k]);
		for (int v = 0; v < from_yaml->nviews && v < from_block->nviews; v++)
			check_same_view(&from_yaml->views[v], &from_block->views[v]);
	}
	conf_text_free(root);
	program_config_free(from_yaml);
	program_config_free(from_block);
	free(from_yaml);
	free(from_block);
	return text;
}

/* round_trip(yaml), whose printed block holds `want`. */
static void round_trip_has(const char *yaml, const char *want)
{
	char *text = round_trip(yaml);

	CHECK(strstr(text, want) != NULL);
	if (!strstr(text, want))
		fprintf(stderr, "not in the printed block: %s\n%s", want, text);
	free(text);
}

static void test_exp2zero_and_counters(void)
{
	char *text = round_trip(exp2zero_config);

	/* what the user reads: ebpf_exporter's spellings as decoder arguments */
	CHECK(strstr(text, "      Decode \"syscall\" \"ebpf_exporter\"\n") != NULL);
	CHECK(strstr(text, "      Decode \"static_map\" \"1=read\" \"2=write\" \"*=unknown:\"\n") != NULL);
	CHECK(strstr(text, "      Decode \"static_map\" \"0=in\"\n") != NULL); /* allow_unknown */
	CHECK(strstr(text, "    Buckets \"exp2zero\"\n    KeyRange 1 26\n    Multiplier 0.000001\n") != NULL);
	CHECK(strstr(text, "      Size 4\n      Padding 4\n") != NULL);
	free(text);
}

static void test_linear_and_bytes(void)
{
	round_trip_has(linear_config, "    Buckets \"linear\" 1 1 40\n    KeyRange 0 40\n");
}

/* ebpf_exporter's fixed buckets: the keys as the bounds, their first and last as KeyRange
 * (one key: a range of one), and only those keys events (ListedKeysOnly). */
static void test_fixed(void)
{
	static const char config[] = "metrics:\n  histograms:\n    - name: wait_seconds\n      help: x\n"
				     "      bucket_type: fixed\n      bucket_multiplier: 0.001\n"
				     "      bucket_keys: [%s]\n      labels:\n"
				     "        - name: bucket\n          size: 8\n          decoders: [{name: uint}]\n";
	char yaml[512];

	snprintf(yaml, sizeof(yaml), config, "1, 10, 250");
	round_trip_has(yaml, "    Buckets \"fixed\" 1 10 250\n    KeyRange 1 250\n    ListedKeysOnly true\n"
			     "    Multiplier 0.001\n");
	snprintf(yaml, sizeof(yaml), config, "7");
	round_trip_has(yaml, "    Buckets \"fixed\" 7\n    KeyRange 7 7\n    ListedKeysOnly true\n");
}

/* ebpf_exporter's regexp: its patterns as one regexps line, which drops the same keys. */
static void test_regexp(void)
{
	static const char config[] = "metrics:\n  counters:\n    - name: tasks_total\n      help: x\n      labels:\n"
				     "        - name: comm\n          size: 16\n          decoders:\n"
				     "            - name: string\n            - name: regexp\n"
				     "              regexps: [\"^(task)1\", \"^task5.*$\"]\n";
	round_trip_has(config, "      Decode \"string\"\n      Decode \"regexps\" \"^(task)1\" \"^task5.*$\"\n");
}

/* kaddrs: a KernelAddress line each, after Object. */
static void test_kaddrs(void)
{
	round_trip_has("kaddrs: [bpf_jit_current, vfs_read]\nmetrics:\n  counters: [{name: a_total, help: x}]\n",
		       ".bpf.o\"\n  KernelAddress \"bpf_jit_current\"\n  KernelAddress \"vfs_read\"\n  <Counter");
}

/* A counter's last label named cpu: on a per-CPU map each CPU's copy (CPUIndex true), as in
 * ebpf_exporter's percpu-softirq; a label of another name, or cpu elsewhere, reads the key. */
static void test_cpu_label(void)
{
	static const char config[] =
		"metrics:\n  counters:\n    - name: softirqs_total\n      help: x\n      labels:\n"
		"        - name: vec\n          size: 4\n          decoders: [{name: uint}]\n"
		"        - name: cpu\n          size: 2\n          decoders: [{name: uint}]\n"
		"    - name: cpus_total\n      help: x\n      labels:\n"
		"        - name: cpu\n          size: 4\n          decoders: [{name: uint}]\n"
		"        - name: vec\n          size: 4\n          decoders: [{name: uint}]\n";
	char *text = round_trip(config);

	CHECK(text && strstr(text, "    <Label \"cpu\">\n      Size 2\n      CPUIndex true\n      Decode \"uint\"\n"));
	CHECK(text && strstr(text, "    <Label \"cpu\">\n      Size 4\n      Decode \"uint\"\n"));
	free(text);
}

static void test_number_text(void)
{
	char out[64];

	CHECK_STR(program_number_text(0.000001, out, sizeof(out)), "0.000001");
	CHECK_STR(program_number_text(1e12, out, sizeof(out)), "1000000000000");
	CHECK_STR(program_number_text(2.5, out, sizeof(out)), "2.5");
	CHECK(strtod(program_number_text(1.0 / 3, out, sizeof(out)), NULL) == 1.0 / 3 && !strchr(out, 'e'));
}

/* KeyRange: whole indexes, the last not below the first (one index is a range: a fixed
 * histogram of one bucket key), with Layout "key" only; ListedKeysOnly with fixed bounds in
 * the key only. */
static void test_key_range_checks(void)
{
	static const char *const refused[][2] = {
		{ "Layout \"key\"\n Buckets \"exp2\"\n KeyRange 5 4\n", "KeyRange takes" },
		{ "Layout \"key\"\n Buckets \"exp2\"\n ListedKeysOnly true\n", "goes with Layout \"key\" and Buckets \"fixed\"" },
		{ "SlotsField \"slots\"\n Buckets \"fixed\" 1 2\n ListedKeysOnly true\n", "goes with Layout \"key\" and Buckets \"fixed\"" },
		{ "Layout \"key\"\n Buckets \"fixed\" 1 2\n ListedKeysOnly 1\n", "ListedKeysOnly takes true or false" },
		{ "Layout \"key\"\n Buckets \"exp2\"\n KeyRange 0.5 4\n", "KeyRange takes" },
		{ "Layout \"key\"\n Buckets \"exp2\"\n KeyRange 4\n", "KeyRange takes" },
		{ "SlotsField \"slots\"\n KeyRange 0 4\n", "goes with Layout \"key\"" },
	};
	char text[512], err[ERR_MAX];

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct program_config *c = calloc(1, sizeof(*c));
		struct conf_node *root;

		snprintf(text, sizeof(text), "<Program \"p\">\n Object \"/x.bpf.o\"\n <Histogram \"h\">\n %s </Histogram>\n"
					     "</Program>\n", refused[i][0]);
		root = conf_text(text);
		CHECK(program_config_parse(root, c, err, sizeof(err)) == -1);
		if (!strstr(err, refused[i][1]))
			fprintf(stderr, "for %s: %s\n", refused[i][0], err);
		CHECK(strstr(err, refused[i][1]) != NULL);
		conf_text_free(root);
		program_config_free(c);
		free(c);
	}
}

int main(void)
{
	test_exp2zero_and_counters();
	test_linear_and_bytes();
	test_regexp();
	test_fixed();
	test_kaddrs();
	test_cpu_label();
	test_number_text();
	test_key_range_checks();
	return testing_done();
}
