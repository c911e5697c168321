/* The module lifecycle around a module's own hooks (libcore/engine/module.c), with a fake module
 * whose reads fail or succeed on demand: no BPF, no root. */
#include <errno.h>

#include "libcore/engine/module.h"
#include "plugin/snapshot_record.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

static int next_read_result;

static void fake_create(struct module *m) {}
static int fake_set_option(struct module *m, const struct option *o, char *err, size_t errlen) { return 0; }
static int fake_start(struct module *m, char *err, size_t errlen) { return 0; }
static int fake_read(struct module *m, char *err, size_t errlen)
{
	return next_read_result ? module_hook_fail(err, errlen, "map x: %s", strerror(-next_read_result)) : 0;
}
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
	CHECK(module_read(m, &sink) == -1);
	snapshot_record_state(&sm, m, true);
	CHECK_STR(snapshot_state_name(sm.state), "degraded");
	CHECK_STR(sm.error, "reading the BPF maps failed: map x: Input/output error"); /* the hook's message */

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

/* The hooks' one rule, 0 or -1 with the message: set_option is called only for the
 * module's own keys (here option_names'), and 0 is "taken"; the engine refuses the others. */
static int colour_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	if (o->nvalues == 1 && o->values[0].type == OPT_STRING && !strcmp(o->values[0].string, "red"))
		return 0;
	return module_hook_fail(err, errlen, "Colour takes \"red\"");
}

static void test_set_option_rule(void)
{
	static const char *const colour_names[] = { "Colour", NULL };
	struct module_ops colour_ops = fake_ops;
	struct opt_value red = { .type = OPT_STRING, .string = "red" }, blue = { .type = OPT_STRING, .string = "blue" };
	struct option o = { .key = "Colour", .values = &red, .nvalues = 1 };
	struct module *m;
	char err[512] = "";

	colour_ops.option_names = colour_names;
	colour_ops.set_option = colour_option;
	m = module_new(&colour_ops, NULL);
	CHECK(module_set_option(m, &o, err, sizeof(err)) == 0 || (fprintf(stderr, "  %s\n", err), 0));
	o.values = &blue;
	CHECK(module_set_option(m, &o, err, sizeof(err)) == -1);
	CHECK_STR(err, "Colour takes \"red\"");
	o.key = "Color";
	CHECK(module_set_option(m, &o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown option \"Color\"; valid options: Colour") != NULL);
	module_free(m);
}

/* A configure hook's message is the module's error (it was an errno, "cannot open the BPF
 * object: Invalid argument"): vfs's object opened and sized as at start, never loaded. */
static int refusing_configure(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	return module_hook_fail(err, errlen, "configure refuses this object");
}

static void test_configure_message(void)
{
	struct module_ops refusing = *module_find("vfs");
	struct module_memory plan;
	struct module *m;
	char err[512] = "";

	refusing.configure = refusing_configure;
	m = module_new(&refusing, NULL);
	CHECK(m && module_plan_memory(m, 2, &plan, err, sizeof(err)) == -1);
	CHECK(strstr(err, "configure refuses this object") != NULL || (fprintf(stderr, "  %s\n", err), 0));
	module_free(m);
}

int main(void)
{
	test_error_cleared_after_recovery();
	test_long_option_list_is_cut();
	test_set_option_rule();
	test_configure_message();
	return testing_done();
}
