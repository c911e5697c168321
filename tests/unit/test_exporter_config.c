/* ebpf_exporter's YAML read into <Program> views (libcore/programs/exporter_config.h): the
 * test config of tests/programs/exporter_syscalls.yaml gives a derive counter and a key-layout
 * exp2 histogram with the sum key past bucket_max; the label chains decode as ebpf_exporter's
 * do (`uint` then `syscall`; static_map's unknown values as "unknown:N" unless allow_unknown). */
#include "libcore/programs/exporter_config.h"
#include "tests/testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

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

static void test_good(void)
{
	struct program_config c;
	char err[1024], out[DECODE_TEXT_MAX];
	const struct program_view *counter, *hist;

	memset(&c, 0, sizeof(c));
	CHECK(exporter_config_parse("t.yaml", (const unsigned char *)good, strlen(good), &c, err, sizeof(err)) == 0);
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
	program_config_free(&c);
}

/* Each refusal names the line and the field. */
static void test_refused(const char *yaml, const char *expected)
{
	struct program_config c;
	char err[1024];

	memset(&c, 0, sizeof(c));
	CHECK(exporter_config_parse("t.yaml", (const unsigned char *)yaml, strlen(yaml), &c, err, sizeof(err)) == -1);
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
	test_refused("", "the file is empty");
	test_refused("- a\n", "the config must be a mapping");
	test_refused("metrics:\n  gauges: []\n", "line 2: unknown field \"gauges\" in metrics");
	test_refused("cgroup_id_map:\n  name: x\n", "line 1: field \"cgroup_id_map\" is not supported yet");
	test_refused("metrics:\n  counters:\n    - name: a_total\n      help: x\n      perf_event_array: true\n",
		     "line 5: field \"perf_event_array\" is not supported yet");
	test_refused("metrics:\n  histograms:\n    - name: a\n      help: x\n      bucket_type: exp2\n"
		     "      bucket_max: 3\n      labels:\n        - name: bucket\n          size: 3\n"
		     "          decoders: [{name: uint}]\n",
		     "line 8: the bucket label \"bucket\" has size 3");
	test_refused("metrics:\n  counters:\n    - name: a_total\n      help: x\n      labels:\n        - name: l\n"
		     "          size: 4\n          decoders: [{name: uint}, {name: static_map, static_map: {1: a}, "
		     "regexps: [x]}]\n",
		     "field \"regexps\" is not supported yet");
	CHECK(exporter_object_path("/etc/x/biolatency.yaml", path, sizeof(path)) == 0);
	CHECK_STR(path, "/etc/x/biolatency.bpf.o");
	CHECK(exporter_object_path("/etc/x/biolatency.yml", path, sizeof(path)) == -1);
	return testing_done();
}
