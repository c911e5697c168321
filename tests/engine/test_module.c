/* The module lifecycle around a module's own hooks (libcore/engine/module.c), with a fake module
 * whose reads fail or succeed on demand: no BPF, no root. */
#include <errno.h>

#include "libcore/engine/module.h"
#include "plugin/snapshot_record.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

static int next_read_result;

static int fake_create(struct module *m) { return 0; }
static int fake_set_option(struct module *m, const struct option *o, char *err, size_t errlen) { return 0; }
static int fake_start(struct module *m, char *err, size_t errlen) { return 0; }
static int fake_read(struct module *m, const struct metric_sink *sink) { return next_read_result; }
static void fake_destroy(struct module *m) {}

static const struct module_ops fake_ops = {
	.name = "fake",
	.create = fake_create,
	.set_option = fake_set_option,
	.start = fake_start,
	.read = fake_read,
	.destroy = fake_destroy,
};

/* What SNMP shows (ebpfModuleState, ebpfModuleLastError) after each read. */
static void test_error_cleared_after_recovery(void)
{
	struct module *m = module_new(&fake_ops, NULL);
	struct snapshot_module sm = { 0 };
	struct metric_sink sink = { 0 };

	CHECK(m != NULL);
	CHECK(module_start(m) == 0);
	CHECK(m->state == MODULE_RUNNING);

	next_read_result = -EIO;
	CHECK(module_read(m, &sink) == -EIO);
	snapshot_record_state(&sm, m, true);
	CHECK_STR(snapshot_state_name(sm.state), "degraded");
	CHECK(strstr(sm.error, "reading the BPF maps failed") != NULL);

	next_read_result = 0;
	CHECK(module_read(m, &sink) == 0);
	snapshot_record_state(&sm, m, false);
	CHECK_STR(snapshot_state_name(sm.state), "running");
	CHECK_STR(sm.error, "");
	CHECK_STR(m->last_error, "");
	module_free(m);
}

/* Far more option names than the "valid options: ..." list has room for: the list is cut,
 * nothing is written past its buffer (a used += snprintf() without used < len would). */
#define MANY_OPTIONS 64
static const char *many_options[MANY_OPTIONS + 1];

static void test_long_option_list_is_cut(void)
{
	struct module_ops many_ops = fake_ops;
	static char names[MANY_OPTIONS][40];
	struct module *m;
	struct option o = { .key = "Nonsense" };
	char err[ERR_MAX];

	for (int i = 0; i < MANY_OPTIONS; i++) {
		snprintf(names[i], sizeof(names[i]), "AnOptionWithAVeryLongName%02d", i);
		many_options[i] = names[i];
	}
	many_ops.option_names = many_options;
	m = module_new(&many_ops, NULL);
	CHECK(module_set_option(m, &o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown option \"Nonsense\"; valid options: AnOptionWithAVeryLongName00, ") != NULL);
	CHECK(strlen(err) < 400);
	module_free(m);
}

int main(void)
{
	test_error_cleared_after_recovery();
	test_long_option_list_is_cut();
	return testing_done();
}
