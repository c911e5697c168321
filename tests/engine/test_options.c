/* Config parsing through the module table, as the plugin does it, without collectd. */
#include <math.h>
#include <sys/syscall.h>

#include "libcore/engine/module.h"
#include "tests/support/option_values.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

/* Whether the list "(a, b and c have them)" in text names `name`. */
static bool names(const char *text, const char *name)
{
	static const char *const before[] = { "(", ", ", " and " }, *const after[] = { ", ", " and ", " have them)" };
	char word[128];

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			snprintf(word, sizeof(word), "%s%s%s", before[i], name, after[j]);
			if (strstr(text, word))
				return true;
		}
	return false;
}

int main(void)
{
	char err[ERR_MAX];
	struct module *m;

	CHECK(module_find("syscalls") != NULL);
	CHECK(module_find("SysCalls") != NULL); /* collectd keys are case-insensitive */
	CHECK(module_find("syscall") == NULL);
	module_names(err, sizeof(err));
	CHECK(strstr(err, "syscalls") != NULL);

	m = module_new(module_find("syscalls"), NULL);
	CHECK(m != NULL);

	/* good input */
	struct opt_value lat[] = { str("fsync"), str("read") };
	CHECK(set_option(m, "Latency", lat, 2, err, sizeof(err)) == 0);
	struct opt_value all[] = { str("all") };
	CHECK(set_option(m, "latency", all, 1, err, sizeof(err)) == 0);
	/* Percentile, Bucket and BucketType are the collectd plugin's (tests/plugin/test_presentation.c):
	 * the core refuses them as keys of neither, and says which keys it takes. */
	struct opt_value p[] = { num(99.9) };
	CHECK(set_option(m, "Percentile", p, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown option \"Percentile\"; valid options: Latency, By, CgroupDepth, Cgroup, CgroupIgnoreSelected, MaxSeries, CgroupPrecision, CgroupCalls, AttachOrder, Precision") != NULL);
	CHECK(set_option(m, "Bucket", p, 1, err, sizeof(err)) == -1 && strstr(err, "unknown option \"Bucket\""));
	CHECK(set_option(m, "BucketType", lat, 1, err, sizeof(err)) == -1 && strstr(err, "unknown option \"BucketType\""));
	CHECK(set_option(m, "Latencyy", lat, 1, err, sizeof(err)) == -1 && strstr(err, "unknown option \"Latencyy\""));
	struct opt_value prec[] = { num(3) };
	CHECK(set_option(m, "PRECISION", prec, 1, err, sizeof(err)) == 0); /* any case */
	CHECK(set_option(m, "Precision", prec, 1, err, sizeof(err)) == 0);
	CHECK(m->hist.precision == 3 && m->hist.precision_from_user);
	struct opt_value order[] = { str("raw_tp"), str("tracepoint") };
	CHECK(set_option(m, "AttachOrder", order, 2, err, sizeof(err)) == 0);
	CHECK(m->probes.norder == 2 && m->probes.order[0] == ATTACH_RAW_TP);

	/* fs: Filesystem takes known names, at most FS_SLOTS (4) of them */
	struct module *fsm = module_new(module_find("fs"), NULL);
	struct opt_value fss[] = { str("ext4"), str("XFS"), str("ext4") };
	CHECK(set_option(fsm, "Filesystem", fss, 3, err, sizeof(err)) == 0);
	struct opt_value fsbad[] = { str("ext5") };
	CHECK(set_option(fsm, "Filesystem", fsbad, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "Filesystem: \"ext5\" is not a filesystem") && strstr(err, "known: ext4, xfs"));
	struct opt_value fsmany[] = { str("btrfs"), str("nfs"), str("f2fs") };
	CHECK(set_option(fsm, "Filesystem", fsmany, 3, err, sizeof(err)) == -1);
	CHECK(strstr(err, "at most 4 filesystems") != NULL);
	CHECK(set_option(fsm, "Latency", fss, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "valid options: Filesystem, By, CgroupDepth, Cgroup, CgroupIgnoreSelected, MaxSeries, CgroupPrecision, AttachOrder") != NULL);
	module_free(fsm);

	/* bad input: each error names the problem and the fix */
	struct opt_value typo[] = { str("fsyncc") };
	CHECK(set_option(m, "Latency", typo, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "\"fsyncc\" is not a syscall") != NULL);
	struct opt_value ex[] = { str("exit_group") };
	CHECK(set_option(m, "Latency", ex, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "never returns") != NULL);
	/* The same syscalls by number ("sys_60", "sys_231" on x86_64) are refused just the same:
	 * their latency start entries would never be deleted. */
	const long never[] = { SYS_exit, SYS_exit_group };
	for (int i = 0; i < 2; i++) {
		char byno[32];
		struct opt_value nr[] = { str(byno) };

		snprintf(byno, sizeof(byno), "sys_%ld", never[i]);
		CHECK(set_option(m, "Latency", nr, 1, err, sizeof(err)) == -1);
		CHECK(strstr(err, "never returns") != NULL);
	}
	struct opt_value n1[] = { num(1) };
	CHECK(set_option(m, "Latency", n1, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "double quotes") != NULL);
	CHECK(set_option(m, "Latencyy", lat, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown option \"Latencyy\"") != NULL);
	CHECK(strstr(err, "valid options: Latency, By, CgroupDepth, Cgroup, CgroupIgnoreSelected, MaxSeries, CgroupPrecision, CgroupCalls, AttachOrder") != NULL);
	/* A quoted number is a string to collectd: the error names the argument and its text
	 * (Percentile's and Bucket's cases are in test_presentation.c, with their parser). */
	CHECK(set_option(m, "Latency", n1, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "argument 1 (1) is a number, expected a string (put it in double quotes)") != NULL);
	struct opt_value pbad[] = { num(2.5) };
	CHECK(set_option(m, "Precision", pbad, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "Precision takes one whole number from 0 to") != NULL);
	struct opt_value pnan[] = { num(NAN) };
	CHECK(set_option(m, "Precision", pnan, 1, err, sizeof(err)) == -1); /* fuzz_config's finding */
	CHECK(strstr(err, "Precision takes one whole number from 0 to") != NULL);
	CHECK(m->hist.precision == 3); /* the last good value stays */
	struct opt_value badm[] = { str("kprobes") };
	CHECK(set_option(m, "AttachOrder", badm, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown method \"kprobes\"") != NULL);
	CHECK(set_option(m, "AttachOrder", badm, 0, err, sizeof(err)) == -1);
	/* Witness: syscalls has witnesses, off by default; a boolean turns them on */
	CHECK(m->probes.witness_off);
	struct opt_value yes[] = { { .type = OPT_BOOLEAN, .boolean = true } };
	CHECK(set_option(m, "Witness", yes, 1, err, sizeof(err)) == 0 && !m->probes.witness_off);
	CHECK(set_option(m, "Witness", prec, 1, err, sizeof(err)) == -1);
	module_free(m);

	/* a module without witnesses refuses the key by name and does not offer it */
	m = module_new(module_find("dcache"), NULL);
	CHECK(m != NULL);
	CHECK(set_option(m, "Witness", yes, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "the dcache module has no witness programs") != NULL);
	/* the modules it names are the ones that take the key, every one of them */
	for (int i = 0; module_table[i]; i++) {
		struct module *w = module_new(module_table[i], NULL);
		char werr[512];

		CHECK(w != NULL);
		CHECK((set_option(w, "Witness", yes, 1, werr, sizeof(werr)) == 0) == names(err, module_table[i]->name));
		module_free(w);
	}
	CHECK(set_option(m, "Latencyy", lat, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "valid options:") != NULL && strstr(err, "Witness") == NULL);
	module_free(m);
	/* vfs has them (its syscall fallback's), off by default; tcp has them on by default */
	m = module_new(module_find("vfs"), NULL);
	CHECK(m != NULL && m->probes.witness_off);
	CHECK(set_option(m, "Witness", yes, 1, err, sizeof(err)) == 0 && !m->probes.witness_off);
	CHECK(set_option(m, "Latencyy", lat, 1, err, sizeof(err)) == -1);
	CHECK(strstr(err, "valid options: By, CgroupDepth, Cgroup, CgroupIgnoreSelected, MaxSeries, CgroupPrecision, AttachOrder") != NULL);
	/* By "cgroup" leaves vfs's host-wide rows at the default precision; its per-cgroup rows
	 * (latency of 4 operations and bytes of 2 for 2 x MaxSeries 100 cgroups: 1,200) get the
	 * highest whose rows fit the 1 MiB budget on their own, 1 (640 bytes a row; 1,232 at 2),
	 * or the user's (the object opened and sized at 2 possible CPUs, never loaded). */
	struct opt_value cgroup[] = { str("cgroup") };
	struct module_memory plan;
	CHECK(set_option(m, "By", cgroup, 1, err, sizeof(err)) == 0);
	CHECK(module_plan_memory(m, 2, &plan, err, sizeof(err)) == 0);
	CHECK(plan.precision == HIST_PRECISION_DEFAULT && plan.cgroup_hist_rows == 1200 && plan.cgroup_precision == 1);
	CHECK(set_option(m, "CgroupPrecision", prec, 1, err, sizeof(err)) == 0);
	CHECK(module_plan_memory(m, 2, &plan, err, sizeof(err)) == 0);
	CHECK(plan.precision == HIST_PRECISION_DEFAULT && plan.cgroup_precision == 3);
	module_free(m);
	m = module_new(module_find("tcp"), NULL);
	CHECK(m != NULL && !m->probes.witness_off);
	module_free(m);
	return testing_done();
}
