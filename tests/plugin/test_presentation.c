/* The collectd plugin's presentation keys (plugin/presentation.c): Percentile, Bucket and
 * BucketType in a <Module>, and in a <Program>'s <Histogram> blocks, taken out before the
 * core sees the block. The checks on values moved here from test_options.c with the
 * parser, unchanged in meaning. */
#include "libcore/engine/module.h"
#include "libcore/programs/program_config.h"
#include "plugin/presentation.h"
#include "tests/support/conf_text.h"
#include "tests/support/testing.h"
#include "tests/support/option_values.h"
#include "base/err_max.h"

#include <strings.h>

static int set(struct presentation *p, const char *key, const struct opt_value *v, int n, char *err, size_t len)
{
	struct option o = { .key = key, .values = v, .nvalues = n };

	err[0] = '\0';
	return presentation_option(p, &o, err, len);
}

static void test_options(void)
{
	struct presentation p;
	char err[ERR_MAX];

	presentation_init(&p);
	CHECK(p.npercentiles == 3 && p.percentiles[0] == 50 && p.percentiles[1] == 95 && p.percentiles[2] == 99);
	CHECK(p.nbuckets == 0);
	CHECK_STR(p.bucket_type, "bucket");
	CHECK(presentation_check(&p, err, sizeof(err)) == 0);

	/* good input */
	struct opt_value pv[] = { num(99.9) };
	CHECK(set(&p, "Percentile", pv, 1, err, sizeof(err)) == 1);
	CHECK(p.npercentiles == 1); /* the user's first Percentile replaces the defaults */
	CHECK_NEAR(p.percentiles[0], 99.9, 0);
	struct opt_value b[] = { num(0), num(0.001) };
	CHECK(set(&p, "Bucket", b, 2, err, sizeof(err)) == 1);
	CHECK(p.nbuckets == 1);
	CHECK(p.buckets[0].lower == 0 && p.buckets[0].upper == 0.001);
	struct opt_value lat[] = { str("fsync") };
	CHECK(set(&p, "Latency", lat, 1, err, sizeof(err)) == 0); /* not ours: the core's */
	CHECK(set(&p, "Precision", pv, 1, err, sizeof(err)) == 0);  /* the core's too */

	/* bad input: each error names the problem and the fix */
	struct opt_value p99[] = { str("99") };
	CHECK(set(&p, "Percentile", p99, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "option \"Percentile\": argument 1 (\"99\") is a string, expected a number (remove the quotes)") != NULL);
	struct opt_value bq[] = { num(0), str("0.001") };
	CHECK(set(&p, "Bucket", bq, 2, err, sizeof(err)) == -1);
	CHECK(strstr(err, "argument 2 (\"0.001\") is a string") != NULL);
	struct opt_value p0[] = { num(100) };
	CHECK(set(&p, "Percentile", p0, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "out of range") != NULL);
	struct opt_value bb[] = { num(0.01), num(0.001) };
	CHECK(set(&p, "Bucket", bb, 2, err, sizeof(err)) == -1);
	CHECK(strstr(err, "lower < upper") != NULL);
	CHECK(set(&p, "Bucket", bb, 1, err, sizeof(err)) == -1);
	/* Two equal values would give two series of one name, which collectd refuses every
	 * interval: refused here, naming the key and the value. */
	struct opt_value pdup[] = { num(99.99991), num(99.99991) };
	CHECK(set(&p, "Percentile", pdup, 2, err, sizeof(err)) == -1);
	CHECK(strstr(err, "Percentile 99.99991 is given twice") != NULL);
	struct opt_value pnear[] = { num(99.99992) };
	CHECK(set(&p, "Percentile", pnear, 1, err, sizeof(err)) == 1);
	struct opt_value bdup[] = { num(0), num(0.001) };
	CHECK(set(&p, "Bucket", bdup, 2, err, sizeof(err)) == -1);
	CHECK(strstr(err, "Bucket 0 0.001 is given twice") != NULL);

	/* limits: at most PRESENTATION_MAX_PERCENTILES values */
	presentation_init(&p);
	for (int i = 1; i <= PRESENTATION_MAX_PERCENTILES; i++) {
		struct opt_value one[] = { num(i) };

		CHECK(set(&p, "Percentile", one, 1, err, sizeof(err)) == 1);
	}
	struct opt_value more[] = { num(50.5) };
	CHECK(set(&p, "Percentile", more, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "too many Percentile values: at most 16") != NULL);

	/* BucketType: a name, and of no use without a Bucket */
	presentation_init(&p);
	struct opt_value bt[] = { str("latency") };
	CHECK(set(&p, "BucketType", bt, 1, err, sizeof(err)) == 1);
	CHECK_STR(p.bucket_type, "latency");
	CHECK(presentation_check(&p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "BucketType \"latency\" without any Bucket has no effect") != NULL);
	CHECK(set(&p, "Bucket", b, 2, err, sizeof(err)) == 1);
	CHECK(presentation_check(&p, err, sizeof(err)) == 0);
	struct opt_value btn[] = { num(5) };
	CHECK(set(&p, "BucketType", btn, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "BucketType takes one non-empty type name") != NULL);
	struct opt_value bte[] = { str("") };
	CHECK(set(&p, "BucketType", bte, 1, err, sizeof(err)) == -1);
	CHECK_STR(p.bucket_type, "latency"); /* a refused value leaves the last good one */
}

/* What the plugin tells a user of an unknown key in <Module>: every key of the block,
 * the core's and the plugin's, in one list: the core refuses the key with its own, the
 * plugin adds its own among the histogram keys. */
static void test_module_keys(void)
{
	struct module *m = module_new(module_find("syscalls"), NULL);
	struct opt_value v[] = { num(1) };
	struct option typo = { .key = "Latencyy", .values = v, .nvalues = 1 };
	struct presentation p;
	char err[ERR_MAX];

	CHECK(m != NULL);
	presentation_init(&p);
	CHECK(presentation_module_option(&p, m, &typo, err, sizeof(err)) == -1);
	CHECK_STR(err, "unknown option \"Latencyy\"; valid options: Latency, By, CgroupDepth, Cgroup, CgroupIgnoreSelected, MaxSeries, CgroupPrecision, CgroupCalls, AttachOrder, "
		  "Percentile, Bucket, BucketType, "
		  "Precision, Witness, CpuBudget");
	for (int i = 0; presentation_keys[i]; i++) { /* the core leaves them to the plugin */
		struct option o = { .key = presentation_keys[i], .values = v, .nvalues = 1 };

		CHECK(module_set_option(m, &o, err, sizeof(err)) == -1);
		CHECK(strstr(err, "unknown option \"") && strstr(err, "valid options: Latency, By, CgroupDepth, Cgroup, CgroupIgnoreSelected, MaxSeries, CgroupPrecision, CgroupCalls, AttachOrder, Precision"));
	}
	/* another refusal of the core is passed on as it is */
	snprintf(err, sizeof(err), "Latency: \"fsyncc\" is not a system call; valid: Precision");
	presentation_add_keys(err, sizeof(err));
	CHECK_STR(err, "Latency: \"fsyncc\" is not a system call; valid: Precision");
	module_free(m);
}

/* presentation_take_program on text; returns what it returned, the core's block in *out. */
static int take(const char *text, struct conf_node **tree, struct conf_node *out, struct presentation_set *p, char *err,
		size_t len)
{
	*tree = conf_text(text);
	err[0] = '\0';
	return presentation_take_program(*tree, out, p, err, len);
}

/* Frees what a take() that returned 0 made. */
static void take_free(struct conf_node *tree, struct conf_node *out, struct presentation_set *p)
{
	presentation_set_free(p);
	presentation_program_free(out);
	conf_text_free(tree);
}

static bool has_line(const struct conf_node *block, const char *key)
{
	for (int i = 0; i < block->nchildren; i++)
		if (!strcasecmp(block->children[i].opt.key, key))
			return true;
	return false;
}

#define HIST(name, lines) "  <Histogram \"" name "\">\n    Layout \"value\"\n    SlotsField \"slots\"\n" lines "  </Histogram>\n"

static void test_program(void)
{
	struct conf_node *tree, out;
	struct program_config c;
	struct presentation_set p;
	char err[ERR_MAX];

	/* The keys leave the histograms; the core parses what is left. */
	CHECK(take("<Program \"lat\">\n  Object \"/x.o\"\n" HIST("a", "    Percentile 90 99.9\n    Bucket 0 0.001\n"
			"    BucketType \"latency\"\n    Precision 3\n") "  <Counter \"c\">\n  </Counter>\n"
		   HIST("b", "") "</Program>", &tree, &out, &p, err, sizeof(err)) == 0);
	/* b gives none: the first histogram's apply to it */
	CHECK(p.nmaps == 0 && presentation_for(&p, "b") == &p.all && presentation_for(&p, "a") == &p.all);
	CHECK(p.all.npercentiles == 2 && p.all.percentiles[0] == 90 && p.all.percentiles[1] == 99.9);
	CHECK(p.all.nbuckets == 1 && p.all.buckets[0].upper == 0.001);
	CHECK_STR(p.all.bucket_type, "latency");
	CHECK(out.nchildren == 4);
	CHECK(out.children[1].nchildren == 3); /* Layout, SlotsField, Precision */
	CHECK(!has_line(&out.children[1], "Percentile") && !has_line(&out.children[1], "Bucket") &&
	      !has_line(&out.children[1], "BucketType") && has_line(&out.children[1], "Precision"));
	CHECK(tree->children[1].nchildren == 6); /* the block itself is left whole */
	CHECK(program_config_parse(&out, &c, err, sizeof(err)) == 0);
	CHECK(c.nviews == 3 && c.views[0].hist.precision == 3);
	program_config_free(&c);
	presentation_program_free(&out);
	conf_text_free(tree);

	/* Without the keys: the defaults. */
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n" HIST("h", "") "</Program>", &tree, &out, &p, err,
		   sizeof(err)) == 0);
	CHECK(p.all.npercentiles == 3 && p.all.nbuckets == 0);
	presentation_program_free(&out);
	conf_text_free(tree);

	/* A bad value names the program and the histogram (moved from test_program_config). */
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n" HIST("h", "    Percentile 101\n") "</Program>", &tree, &out,
		   &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "<Program \"p\">: <Histogram \"h\">: Percentile 101 is out of range") != NULL);
	CHECK(out.nchildren == 0 && out.children == NULL);
	conf_text_free(tree);
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n" HIST("h", "    BucketType \"latency\"\n") "</Program>", &tree,
		   &out, &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "<Program \"p\">: <Histogram \"h\">: BucketType \"latency\" without any Bucket") != NULL);
	conf_text_free(tree);

	/* An unknown key lists every key of a <Histogram>, the plugin's among them: the core
	 * refuses it, the plugin adds its keys to the core's message. */
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n" HIST("h", "    Percentil 99\n") "</Program>", &tree, &out,
		   &p, err, sizeof(err)) == 0);
	CHECK(has_line(&out.children[1], "Percentil"));
	CHECK(program_config_parse(&out, &c, err, sizeof(err)) == -1);
	presentation_add_keys(err, sizeof(err));
	CHECK(strstr(err, "<Program \"p\">: <Histogram \"h\">: unknown option \"Percentil\"; valid: Layout, SlotsField, "
			  "SumField, Buckets, KeyRange, ListedKeysOnly, Multiplier, Type, Percentile, Bucket, BucketType, Precision, <Label>, "
			  "TypeInstance, MaxSeries, ReclaimAfter, PerCPU") != NULL);
	program_config_free(&c);
	presentation_program_free(&out);
	conf_text_free(tree);
	/* In a <Counter> they are no keys at all: left for the core, which refuses them. */
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n  <Counter \"c\">\n    Percentile 99\n  </Counter>\n</Program>",
		   &tree, &out, &p, err, sizeof(err)) == 0);
	CHECK(program_config_parse(&out, &c, err, sizeof(err)) == -1);
	presentation_add_keys(err, sizeof(err)); /* a block without histograms takes none of them */
	CHECK(strstr(err, "unknown option \"Percentile\"; valid: Type, ValueField") != NULL);
	CHECK(!strstr(err, "Bucket"));
	program_config_free(&c);
	presentation_program_free(&out);
	conf_text_free(tree);

	/* Each histogram its own set, named by its map (a read's histograms say their map:
	 * module.h's struct metric_id); until that was so, a later histogram asking for another
	 * set than the first's was refused. */
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n" HIST("a", "    Percentile 99\n") HIST("b", "    Percentile 99\n")
		   "</Program>", &tree, &out, &p, err, sizeof(err)) == 0);
	CHECK(presentation_for(&p, "b")->npercentiles == 1 && presentation_for(&p, "b")->percentiles[0] == 99);
	take_free(tree, &out, &p);
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n" HIST("a", "    Percentile 99\n") HIST("b", "    Percentile 90\n")
		   "</Program>", &tree, &out, &p, err, sizeof(err)) == 0);
	CHECK(presentation_for(&p, "a")->npercentiles == 1 && presentation_for(&p, "a")->percentiles[0] == 99);
	CHECK(presentation_for(&p, "b")->npercentiles == 1 && presentation_for(&p, "b")->percentiles[0] == 90);
	CHECK(presentation_for(&p, "c") == &p.all && presentation_for(&p, NULL) == &p.all);
	take_free(tree, &out, &p);
	/* The first gives none (the defaults), b its buckets. */
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n" HIST("a", "") HIST("b", "    Bucket 0 0.001\n")
		   "</Program>", &tree, &out, &p, err, sizeof(err)) == 0);
	CHECK(presentation_for(&p, "a")->npercentiles == 3 && presentation_for(&p, "a")->nbuckets == 0);
	CHECK(presentation_for(&p, "b")->nbuckets == 1 && presentation_for(&p, "b")->buckets[0].upper == 0.001);
	CHECK(presentation_for(&p, "b")->npercentiles == 3); /* b's own set: its Percentile not given, the defaults */
	take_free(tree, &out, &p);
	/* A histogram that gives part of a set has its own, not the first's rest: Bucket 0 0.001
	 * does not apply to b unasked. */
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n" HIST("a", "    Percentile 99\n    Bucket 0 0.001\n")
		   HIST("b", "    Percentile 99\n") "</Program>", &tree, &out, &p, err, sizeof(err)) == 0);
	CHECK(presentation_for(&p, "a")->nbuckets == 1 && presentation_for(&p, "b")->nbuckets == 0);
	take_free(tree, &out, &p);
	/* A bad value in a later histogram names that one. */
	CHECK(take("<Program \"p\">\n  Object \"/x.o\"\n" HIST("a", "") HIST("b", "    Percentile 0\n")
		   "</Program>", &tree, &out, &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "<Program \"p\">: <Histogram \"b\">: Percentile 0") != NULL);
	conf_text_free(tree);
}

int main(void)
{
	test_options();
	test_module_keys();
	test_program();
	return testing_done();
}
