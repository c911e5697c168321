/* The module lifecycle around a module's own hooks (libcore/module.c), with a fake module
 * whose reads fail or succeed on demand: no BPF, no root. */
#include <errno.h>

#include "libcore/module.h"
#include "libcore/snapshot_publish.h"
#include "tests/testing.h"

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
	CHECK_STR(sm.state, "degraded");
	CHECK(strstr(sm.error, "reading the BPF maps failed") != NULL);

	next_read_result = 0;
	CHECK(module_read(m, &sink) == 0);
	snapshot_record_state(&sm, m, false);
	CHECK_STR(sm.state, "running");
	CHECK_STR(sm.error, "");
	CHECK_STR(m->last_error, "");
	module_free(m);
}

int main(void)
{
	test_error_cleared_after_recovery();
	return testing_done();
}
