/* `<Program>` configuration: parsing (program_config) and the checks against the object's BTF
 * (program_resolve), on the real objects of contrib/programs and of the two foreign styles in
 * tests/programs, compiled by the build with collectd-ebpf-cc. No root: nothing is loaded. */
#include "bpf/include/hist_slot.h"
#include "libcore/programs/perf_event_attach.h"
#include "libcore/programs/program_config.h"
#include "libcore/programs/program_module.h"
#include "libcore/programs/program_resolve.h"
#include "tests/support/conf_text.h"
#include "tests/support/testing.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdbool.h>

static char err[2048];

/* Parses text as a <Program> block is read (the block, its ExporterConfig, the checks of
 * the whole); true when it fails with `needle` in the message. */
static bool parse_fails(const char *text, const char *needle)
{
	struct program_config c;
	struct conf_node *tree = conf_text(text);
	int r = program_module_config(tree, &c, err, sizeof(err));

	program_config_free(&c);
	conf_text_free(tree);
	if (r == 0) {
		fprintf(stderr, "  accepted, expected \"%s\":\n%s\n", needle, text);
		return false;
	}
	if (!strstr(err, needle)) {
		fprintf(stderr, "  got \"%s\", expected \"%s\"\n", err, needle);
		return false;
	}
	return true;
}

static void test_parse_errors(void)
{
	CHECK(parse_fails("<Program \"a/b\">\n</Program>", "no '/'"));
	CHECK(parse_fails("<Program \"p\">\n  <Counter \"m\">\n  </Counter>\n</Program>", "has no Object"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"rel.o\"\n</Program>", "absolute path"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n</Program>", "reads no map"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  Colour \"red\"\n</Program>",
			  "unknown option \"Colour\"; valid: Object, Param"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"h\">\n    Buckets \"log3\"\n  </Histogram>\n</Program>",
			  "<Program \"p\">: <Histogram \"h\">: Buckets \"log3\" is not a slot convention"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"h\">\n    Buckets \"linear\" 0 0\n  </Histogram>\n</Program>",
			  "a WIDTH above 0 and a COUNT"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"h\">\n    Buckets \"fixed\" 10 5\n  </Histogram>\n</Program>",
			  "bounds must increase (5 after 10)"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"h\">\n    Buckets \"log2\"\n  </Histogram>\n</Program>",
			  "Layout \"value\" needs SlotsField"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"h\">\n    Layout \"key\"\n  </Histogram>\n</Program>",
			  "name the convention"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Counter \"c\">\n    <Label \"d\">\n    </Label>\n  </Counter>\n</Program>",
			  "needs either Field \"member\""));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Counter \"c\">\n    <Label \"d\">\n      Size 4\n      Decode \"rot13\"\n    </Label>\n  </Counter>\n</Program>",
			  "rot13"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Counter \"c\">\n    MaxSeries 0\n  </Counter>\n</Program>",
			  "MaxSeries\" takes a whole number from 1"));
	/* Bounded by memory: a million histogram series would be 17 GB. */
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"h\">\n    SlotsField \"slots\"\n"
			  "    MaxSeries 1000000\n  </Histogram>\n</Program>",
			  "<Program \"p\">: <Histogram \"h\">: MaxSeries 1000000 would keep up to 17"));
	CHECK(strstr(err, "more than the 256 MiB collectd keeps for one map: MaxSeries ") != NULL);
	CHECK(strstr(err, " at most") != NULL);
	fprintf(stderr, "  %s\n", err);
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Counter \"c\">\n    SlotsField \"s\"\n  </Counter>\n</Program>",
			  "valid: Type, ValueField"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Probe \"sync\">\n  </Probe>\n  <Counter \"c\">\n  </Counter>\n</Program>",
			  "lists no programs"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  Param \"x\"\n</Program>", "Param takes"));
	/* Percentile is the collectd plugin's: it takes it out of <Histogram> before the core
	 * parses the block (a bad value there: tests/plugin/test_presentation.c). The core refuses
	 * it as none of its keys, and lists its own, Precision among them. */
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"h\">\n    Layout \"value\"\n    SlotsField \"slots\"\n    Percentile 101\n  </Histogram>\n</Program>",
			  "<Histogram \"h\">: unknown option \"Percentile\"; valid: Layout, SlotsField, SumField, Buckets, KeyRange, "
			  "ListedKeysOnly, Multiplier, Type, Precision, <Label>, TypeInstance, MaxSeries, ReclaimAfter, PerCPU"));
	CHECK(parse_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"a\">\n    Layout \"value\"\n    SlotsField \"slots\"\n  </Histogram>\n"
			  "  <Histogram \"b\">\n    Layout \"value\"\n    SlotsField \"slots\"\n    Precision 3\n  </Histogram>\n</Program>",
			  "<Histogram \"b\">: Precision 3, but the program's first <Histogram \"a\"> has 5"));
}

static struct bpf_object *open_object(const char *path)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);

	if (!obj) {
		fprintf(stderr, "cannot open %s (built by make)\n", path);
		exit(1);
	}
	return obj;
}

/* Parses text, opens obj, resolves; returns 0 or -1 with err; layout in *l. */
static int resolve(const char *text, const char *object, struct program_layout *l)
{
	struct program_config c;
	struct conf_node *tree = conf_text(text);
	struct bpf_object *obj;
	int r;

	r = program_module_config(tree, &c, err, sizeof(err));
	conf_text_free(tree);
	if (r) {
		fprintf(stderr, "  parse failed: %s\n", err);
		program_config_free(&c);
		return -2;
	}
	obj = open_object(object);
	r = program_resolve(&c, obj, l, err, sizeof(err));
	bpf_object__close(obj);
	program_config_free(&c);
	return r;
}

static bool resolve_fails(const char *text, const char *object, const char *needle)
{
	struct program_layout l;

	if (resolve(text, object, &l) != -1) {
		fprintf(stderr, "  accepted, expected \"%s\"\n", needle);
		return false;
	}
	if (!strstr(err, needle)) {
		fprintf(stderr, "  got \"%s\", expected \"%s\"\n", err, needle);
		return false;
	}
	return true;
}

#define SYNC_COUNT "contrib/programs/sync_count.bpf.o"
#define SYNC_LATENCY "contrib/programs/sync_latency.bpf.o"
#define EXPORTER "tests/programs/style_exporter.bpf.o"
#define LIBBPF_TOOLS "tests/programs/style_libbpf_tools.bpf.o"
/* EXPORTER's io_latency histogram by key, with op_padding (a config line, or "") in its op
 * label: the same block with and without Padding, to show that Padding alone puts the bucket
 * index where the key has it. */
#define IO_LATENCY_BLOCK(op_padding)                                                                            \
	"<Program \"io\">\n  Object \"/x.o\"\n  <Histogram \"io_latency\">\n    Layout \"key\"\n"               \
	"    Buckets \"exp2\"\n    Multiplier 0.000001\n"                                                       \
	"    <Label \"device\">\n      Size 4\n      Decode \"majorminor\"\n    </Label>\n"                     \
	"    <Label \"op\">\n      Size 1\n" op_padding "      Decode \"static_map\" \"0=read\" \"1=write\"\n"  \
	"    </Label>\n  </Histogram>\n</Program>"

static void test_resolve(void)
{
	struct program_layout l;

	CHECK(resolve("<Program \"sync_count\">\n  Object \"/x.o\"\n  Param \"filter_tgid\" 42\n"
		      "  <Probe \"sync\">\n    Program \"sync_kprobe\" \"sync_tp\"\n  </Probe>\n"
		      "  <Counter \"sync_calls\">\n    PerCPU \"sum\"\n  </Counter>\n</Program>",
		      SYNC_COUNT, &l) == 0);
	CHECK(l.views[0].percpu && !l.views[0].hash && l.views[0].value_width == 8);

	CHECK(resolve("<Program \"sync_latency\">\n  Object \"/x.o\"\n  <Histogram \"sync_latency\">\n"
		      "    Layout \"value\"\n    SlotsField \"slots\"\n    SumField \"sum\"\n    Buckets \"native\"\n"
		      "    Multiplier 0.000000001\n  </Histogram>\n</Program>",
		      SYNC_LATENCY, &l) == 0);
	CHECK_EQ_U64(l.views[0].nslots, HIST_SLOTS);
	CHECK(l.views[0].has_sum && l.views[0].slot_width == 8);

	/* ebpf_exporter's style: labels by size and padding, the bucket index last in the key. */
	CHECK(resolve(IO_LATENCY_BLOCK(""), EXPORTER, &l) == -1);
	CHECK(strstr(err, "the key's last 11 bytes should be the bucket index") != NULL);
	CHECK(resolve(IO_LATENCY_BLOCK("      Padding 3\n"), EXPORTER, &l) == 0);
	CHECK_EQ_U64(l.views[0].bucket_offset, 8);
	CHECK_EQ_U64(l.views[0].bucket_width, 8);
	CHECK(l.views[0].hash && l.views[0].value_width == 8);

	/* Padding is the bytes after a label, as ebpf_exporter's: here past the key's end. */
	CHECK(resolve_fails("<Program \"io\">\n  Object \"/x.o\"\n  <Histogram \"io_latency\">\n    Layout \"key\"\n"
			    "    Buckets \"exp2\"\n    <Label \"device\">\n      Size 4\n      Padding 16\n    </Label>\n"
			    "  </Histogram>\n</Program>",
			    EXPORTER, "<Label \"device\"> covers bytes 0..19 with its Padding, but the key has 16 bytes"));

	/* libbpf-tools' style: struct hist { __u32 slots[40]; } in the value, a struct key. */
	CHECK(resolve("<Program \"lat\">\n  Object \"/x.o\"\n  Param \"filter_dev\" 1\n  Param \"targ_dev\" 7340032\n"
		      "  <Probe \"issue\">\n    Program \"issue_btf\" \"issue_raw\"\n  </Probe>\n"
		      "  <Histogram \"hists\">\n    Layout \"value\"\n    SlotsField \"slots\"\n    Buckets \"log2\"\n"
		      "    <Label \"device\">\n      Field \"dev\"\n      Decode \"majorminor\"\n    </Label>\n"
		      "  </Histogram>\n</Program>",
		      LIBBPF_TOOLS, &l) == 0);
	CHECK_EQ_U64(l.views[0].nslots, 40);
	CHECK_EQ_U64(l.views[0].slot_width, 4);
	CHECK(!l.views[0].has_sum);

	/* What users get wrong, each named. */
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Counter \"nope\">\n  </Counter>\n</Program>", SYNC_COUNT,
			    "<Counter \"nope\">: the object has no map \"nope\""));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Probe \"s\">\n    Program \"sync_fentry\"\n  </Probe>\n"
			    "  <Counter \"sync_calls\">\n  </Counter>\n</Program>", SYNC_COUNT,
			    "<Probe \"s\">: the object has no program \"sync_fentry\""));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  Skip \"debug\"\n  <Counter \"sync_calls\">\n  </Counter>\n</Program>",
			    SYNC_COUNT, "Skip \"debug\": the object has no such program"));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  Param \"min_us\" 10\n  <Counter \"sync_calls\">\n  </Counter>\n</Program>",
			    SYNC_COUNT, "Param \"min_us\": the object has no global variable"));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  Param \"filter_tgid\" -1\n  <Counter \"sync_calls\">\n  </Counter>\n</Program>",
			    SYNC_COUNT, "does not fit the global's unsigned 32-bit integer"));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  Param \"filter_tgid\" \"me\"\n  <Counter \"sync_calls\">\n  </Counter>\n</Program>",
			    SYNC_COUNT, "is a string, but the global is a 4-byte integer, not a char array"));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"sync_latency\">\n    SlotsField \"buckets\"\n  </Histogram>\n</Program>",
			    SYNC_LATENCY, "SlotsField: the value hist_row has no member \"buckets\""));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"hists\">\n    SlotsField \"slots\"\n"
			    "    <Label \"device\">\n      Size 2\n      Decode \"majorminor\"\n    </Label>\n  </Histogram>\n</Program>",
			    LIBBPF_TOOLS, "majorminor needs 4 or 8 bytes"));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"hists\">\n    SlotsField \"slots\"\n  </Histogram>\n</Program>",
			    LIBBPF_TOOLS, "the labels cover 0 of the key's 4 bytes"));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Histogram \"hists\">\n    SlotsField \"slots\"\n"
			    "    <Label \"device\">\n      Field \"dev\"\n    </Label>\n  </Histogram>\n</Program>",
			    LIBBPF_TOOLS, "Buckets \"native\" is the plugin's struct hist_row"));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Counter \"sync_latency\">\n  </Counter>\n</Program>",
			    SYNC_LATENCY, "not a 4- or 8-byte integer"));
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  <Counter \"start_at\">\n    PerCPU \"label\"\n"
			    "    <Label \"tid\">\n      Size 4\n    </Label>\n  </Counter>\n</Program>",
			    SYNC_LATENCY, "PerCPU: map \"start_at\" is not a per-CPU map"));
}

/* The bytes Param wrote into global `name` of obj (its .rodata's initial value). */
static int global_bytes(struct bpf_object *obj, const char *name, uint8_t *out, size_t len)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;
	int id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	const struct btf_type *sec = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_var_secinfo *v = sec ? btf_var_secinfos(sec) : NULL;
	const char *data;
	size_t size;

	bpf_object__for_each_map(map, obj) {
		const char *m = bpf_map__name(map);

		if (strlen(m) < 7 || strcmp(m + strlen(m) - 7, ".rodata"))
			continue;
		data = bpf_map__initial_value(map, &size);
		for (int i = 0; v && data && i < btf_vlen(sec); i++)
			if (!strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, v[i].type)->name_off), name) &&
			    v[i].offset + len <= size) {
				memcpy(out, data + v[i].offset, len);
				return 0;
			}
	}
	return -1;
}

/* libbpf-tools' `const volatile bool filter_dev`: `Param "filter_dev" true` writes 1 into it,
 * false 0; a bool into a u32 global (targ_dev) is the number too. */
static void test_param_boolean(void)
{
	struct conf_node *tree = conf_text("<Program \"lat\">\n  Object \"/x.o\"\n  Param \"filter_dev\" true\n"
					   "  Param \"targ_dev\" true\n  <Histogram \"hists\">\n    Layout \"value\"\n"
					   "    SlotsField \"slots\"\n    Buckets \"log2\"\n    <Label \"device\">\n      Field \"dev\"\n    </Label>\n"
					   "  </Histogram>\n</Program>");
	struct bpf_object *obj = open_object(LIBBPF_TOOLS);
	struct program_config c;
	struct program_layout l;
	uint8_t flag = 7;
	uint32_t dev = 7;

	CHECK(program_config_parse(tree, &c, err, sizeof(err)) == 0);
	CHECK(c.nparams == 2 && c.params[0].is_number && c.params[0].number == 1);
	CHECK(program_resolve(&c, obj, &l, err, sizeof(err)) == 0 || (fprintf(stderr, "  %s\n", err), 0));
	CHECK(global_bytes(obj, "filter_dev", &flag, 1) == 0 && flag == 1);
	CHECK(global_bytes(obj, "targ_dev", (uint8_t *)&dev, 4) == 0 && dev == 1);
	bpf_object__close(obj);
	program_config_free(&c);
	conf_text_free(tree);

	tree = conf_text("<Program \"lat\">\n  Object \"/x.o\"\n  Param \"filter_dev\" false\n"
			 "  <Histogram \"hists\">\n    Layout \"value\"\n    SlotsField \"slots\"\n"
			 "    Buckets \"log2\"\n    <Label \"device\">\n      Field \"dev\"\n    </Label>\n  </Histogram>\n</Program>");
	obj = open_object(LIBBPF_TOOLS);
	flag = 7;
	CHECK(program_config_parse(tree, &c, err, sizeof(err)) == 0);
	CHECK(program_resolve(&c, obj, &l, err, sizeof(err)) == 0 || (fprintf(stderr, "  %s\n", err), 0));
	CHECK(global_bytes(obj, "filter_dev", &flag, 1) == 0 && flag == 0);
	bpf_object__close(obj);
	program_config_free(&c);
	conf_text_free(tree);
	/* a boolean is a number: not for a char array */
	CHECK(resolve_fails("<Program \"p\">\n  Object \"/x.o\"\n  Param \"comm\" true\n  <Counter \"writes\">\n"
			    "  </Counter>\n</Program>", "tests/programs/write_sizes.bpf.o",
			    "Param \"comm\" is a number, but the global is"));
}

/* <PerfEvent>: names and numbers become perf_event_attr's type and config (perf's own
 * numbering: hw_cache is cache | operation << 8 | result << 16). */
static void test_perf_events(void)
{
	struct program_config c;
	struct conf_node *tree = conf_text("<Program \"p\">\n  Object \"/x.o\"\n"
					   "  <PerfEvent \"a\">\n    Type \"software\"\n    Config \"cpu-clock\"\n"
					   "    SampleFrequency 99\n  </PerfEvent>\n"
					   "  <PerfEvent \"b\">\n    Type \"hw_cache\"\n    Config \"LLC-load-misses\"\n"
					   "    SamplePeriod 10000\n  </PerfEvent>\n"
					   "  <PerfEvent \"c\">\n    Type 8\n    Config 4660\n    SamplePeriod 7\n  </PerfEvent>\n"
					   "  <Counter \"m\">\n  </Counter>\n</Program>");
	int cpus[8];

	CHECK(program_config_parse(tree, &c, err, sizeof(err)) == 0);
	CHECK(c.nperf_events == 3);
	CHECK(!strcmp(c.perf_events[0].program, "a") && c.perf_events[0].type == 1 && c.perf_events[0].config == 0 &&
	      c.perf_events[0].frequency && c.perf_events[0].sample == 99);
	CHECK(!strcmp(c.perf_events[0].description, "software event cpu-clock"));
	CHECK(c.perf_events[1].type == 3 && c.perf_events[1].config == 0x10002 && !c.perf_events[1].frequency &&
	      c.perf_events[1].sample == 10000);
	CHECK(!strcmp(c.perf_events[1].description, "hw_cache event LLC-load-misses"));
	CHECK(c.perf_events[2].type == 8 && c.perf_events[2].config == 4660 && c.perf_events[2].sample == 7);
	CHECK(!strcmp(c.perf_events[2].description, "event type 8 config 0x1234"));
	program_config_free(&c);
	conf_text_free(tree);

	CHECK(perf_event_parse_cpu_list("0-3,5\n", cpus, 8) == 5 && cpus[3] == 3 && cpus[4] == 5);
	CHECK(perf_event_parse_cpu_list("0\n", cpus, 8) == 1 && cpus[0] == 0);
	CHECK(perf_event_parse_cpu_list("0-8\n", cpus, 8) == -1); /* more than out holds */
	CHECK(perf_event_parse_cpu_list("3-1\n", cpus, 8) == -1);
	CHECK(perf_event_parse_cpu_list("x\n", cpus, 8) == -1);
}

/* ebpf_exporter's sections that name their event: SEC("perf_event/type=1,config=0,
 * frequency=99"); the refusals name the section and the items it takes. */
static void test_perf_event_sections(void)
{
	static const char *const refused[][2] = {
		{ "perf_event/type=1,config=0", "neither a sample period" },
		{ "perf_event/type=1,config=0,frequency=9,period=2", "both given" },
		{ "perf_event/type=1,frequency=99", "names no config" },
		{ "perf_event/config=0,frequency=99", "names no type" },
		{ "perf_event/type=1,config=0,freq=99", "unknown item \"freq=99\"" },
		{ "perf_event/type=-1,config=0,frequency=99", "\"type=-1\" is not key=number" },
		{ "perf_event/type=1,config=x,frequency=99", "\"config=x\" is not key=number" },
		{ "perf_event/type=1,,config=0,frequency=99", "\"\" is not key=number" },
		{ "perf_event/type=4294967296,config=0,frequency=99", "type 4294967296 is not a perf event type" },
		{ "perf_event", "is not perf_event/ with its event" },
	};
	struct program_perf_event e;

	memset(&e, 0, sizeof(e));
	CHECK(perf_event_from_section(&e, "on_sample", "perf_event/type=1,config=0,frequency=99", err, sizeof(err)) == 0);
	CHECK(e.type == 1 && e.config == 0 && e.frequency && e.sample == 99);
	CHECK(!strcmp(e.program, "on_sample") && !strcmp(e.section, "perf_event/type=1,config=0,frequency=99"));
	CHECK(!strcmp(e.description, "software event cpu-clock"));
	memset(&e, 0, sizeof(e));
	CHECK(perf_event_from_section(&e, "p", "perf_event/config=0x3,type=0x0,period=100000", err, sizeof(err)) == 0);
	CHECK(e.type == 0 && e.config == 3 && !e.frequency && e.sample == 100000);
	CHECK(!strcmp(e.description, "hardware event cache-misses"));
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		memset(&e, 0, sizeof(e));
		CHECK(perf_event_from_section(&e, "p", refused[i][0], err, sizeof(err)) == -1);
		if (!strstr(err, refused[i][1]))
			fprintf(stderr, "for %s: %s\n", refused[i][0], err);
		CHECK(strstr(err, refused[i][1]) != NULL);
	}
}

/* The block's parser fills the model from the block alone: it notes ExporterConfig's path
 * and reads no YAML (neither parser calls the other); program_module_config() reads the
 * YAML into the same model after it, then checks the whole. */
static void test_parsers_apart(void)
{
	static const char path[] = "/nonexistent/collectd-ebpf-test/x.yaml";
	struct conf_node *tree = conf_text("<Program \"p\">\n  ExporterConfig \"/nonexistent/collectd-ebpf-test/x.yaml\"\n"
					   "</Program>");
	struct program_config c;

	CHECK(program_config_parse(tree, &c, err, sizeof(err)) == 0 || (fprintf(stderr, "  %s\n", err), 0));
	CHECK_STR(c.exporter_config, path);
	CHECK(c.nviews == 0 && !c.object[0]);
	program_config_free(&c);
	CHECK(program_module_config(tree, &c, err, sizeof(err)) == -1);
	CHECK(strstr(err, "<Program \"p\">: ") == err && strstr(err, path) != NULL);
	fprintf(stderr, "  %s\n", err);
	program_config_free(&c);
	conf_text_free(tree);
}

int main(void)
{
	libbpf_set_print(NULL);
	test_parse_errors();
	test_parsers_apart();
	test_perf_events();
	test_perf_event_sections();
	test_resolve();
	test_param_boolean();
	return testing_done();
}
