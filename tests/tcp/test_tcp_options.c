/* The tcp module's own options, parsed as the plugin does it, without collectd or root:
 * PortBreakdown and Ports, their limits, By "cgroup" beside them, and the errors that name
 * the fix. */
#include "libcore/engine/module.h"
#include "tests/support/option_values.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

int main(void)
{
	char err[ERR_MAX];
	struct module *m = module_new(module_find("tcp"), NULL);
	struct opt_value many[40];

	CHECK(m != NULL);
	CHECK(module_find("TCP") != NULL);
	module_names(err, sizeof(err));
	CHECK(strstr(err, "tcp") != NULL && strstr(err, "process") != NULL);

	/* good input */
	struct opt_value remote[] = { str("remote") };
	CHECK(set_option(m, "PortBreakdown", remote, 1, err, sizeof(err)) == 0);
	struct opt_value local[] = { str("Local") };
	CHECK(set_option(m, "portbreakdown", local, 1, err, sizeof(err)) == 0);
	struct opt_value web[] = { num(80), num(443) };
	CHECK(set_option(m, "Ports", web, 2, err, sizeof(err)) == 0);
	struct opt_value more[] = { num(22) };
	CHECK(set_option(m, "Ports", more, 1, err, sizeof(err)) == 0); /* Ports adds up across lines */

	/* bad input: each error names the option and what to do */
	struct opt_value both[] = { str("both") };
	CHECK(set_option(m, "PortBreakdown", both, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "PortBreakdown takes one value, \"local\" or \"remote\"") != NULL);
	struct opt_value two[] = { str("local"), str("remote") };
	CHECK(set_option(m, "PortBreakdown", two, 2, err, sizeof(err)) == -1);
	struct opt_value quoted[] = { str("443") };
	CHECK(set_option(m, "Ports", quoted, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "Ports") != NULL && strstr(err, "expected a number") != NULL);
	struct opt_value zero[] = { num(0) };
	CHECK(set_option(m, "Ports", zero, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "0 is not a TCP port") != NULL);
	struct opt_value big[] = { num(65536) };
	CHECK(set_option(m, "Ports", big, 1, err, sizeof(err)) == -1);
	struct opt_value frac[] = { num(80.5) };
	CHECK(set_option(m, "Ports", frac, 1, err, sizeof(err)) == -1);
	struct opt_value dup[] = { num(443) };
	CHECK(set_option(m, "Ports", dup, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "443 is listed twice") != NULL);
	CHECK(set_option(m, "Portz", dup, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "valid options: PortBreakdown, Ports, By, CgroupDepth, Cgroup, CgroupIgnoreSelected, "
			  "MaxSeries, CgroupPrecision, AttachOrder") != NULL);
	module_free(m);

	/* The cap: 32 ports get rows of their own, the 33rd is refused with the reason. */
	m = module_new(module_find("tcp"), NULL);
	for (int i = 0; i < 40; i++)
		many[i] = num(1000 + i);
	CHECK(set_option(m, "Ports", many, 32, err, sizeof(err)) == 0);
	CHECK(set_option(m, "Ports", many + 32, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "at most 32 ports") != NULL && strstr(err, "\"other\"") != NULL);
	module_free(m);

	/* Options valid one by one but not together: a configuration error, found when the
	 * block has been read (before anything is loaded), naming both options. */
	m = module_new(module_find("tcp"), NULL);
	CHECK(set_option(m, "Ports", web, 2, err, sizeof(err)) == 0);
	CHECK(module_check_config(m, err, sizeof(err)) == -1);
	CHECK(strstr(err, "Ports needs PortBreakdown") != NULL);
	CHECK(set_option(m, "PortBreakdown", remote, 1, err, sizeof(err)) == 0);
	CHECK(module_check_config(m, err, sizeof(err)) == 0);
	module_free(m);
	m = module_new(module_find("tcp"), NULL);
	CHECK(set_option(m, "PortBreakdown", remote, 1, err, sizeof(err)) == 0);
	CHECK(module_check_config(m, err, sizeof(err)) == -1);
	CHECK(strstr(err, "PortBreakdown needs the ports") != NULL);
	module_free(m);

	/* By "cgroup" goes with a port breakdown (the port rows within each cgroup); its
	 * tuning without it is refused, naming what to add. */
	m = module_new(module_find("tcp"), NULL);
	struct opt_value depth[] = { num(3) };
	CHECK(set_option(m, "CgroupDepth", depth, 1, err, sizeof(err)) == 0);
	CHECK(module_check_config(m, err, sizeof(err)) == -1);
	CHECK(strstr(err, "add By \"cgroup\"") != NULL);
	struct opt_value by[] = { str("cgroup") };
	CHECK(set_option(m, "By", by, 1, err, sizeof(err)) == 0);
	CHECK(set_option(m, "PortBreakdown", remote, 1, err, sizeof(err)) == 0);
	CHECK(set_option(m, "Ports", web, 2, err, sizeof(err)) == 0);
	CHECK(module_check_config(m, err, sizeof(err)) == 0);
	struct opt_value pid[] = { str("pid") };
	CHECK(set_option(m, "By", pid, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "By takes one value, \"cgroup\"") != NULL);
	module_free(m);

	/* process has only the per-cgroup options of its own: the error lists them, then the
	 * common ones. */
	m = module_new(module_find("process"), NULL);
	CHECK(set_option(m, "Ports", more, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown option \"Ports\"; valid options: By, CgroupDepth, Cgroup, CgroupIgnoreSelected, "
			  "MaxSeries, AttachOrder") != NULL);
	/* process counts, it keeps no histograms: no precision of its per-cgroup rows to set. */
	struct opt_value prec[] = { num(2) };
	CHECK(set_option(m, "By", by, 1, err, sizeof(err)) == 0);
	CHECK(set_option(m, "CgroupPrecision", prec, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown option \"CgroupPrecision\"") != NULL);
	module_free(m);
	return testing_done();
}
