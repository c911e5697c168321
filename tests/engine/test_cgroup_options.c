/* By "cgroup" and its options (libcore/engine/cgroup_rows.h), and By "command", no root: each option's
 * values and errors (CgroupPrecision's range), the options that need By "cgroup", and which cgroups the globs select
 * with collectd's ignorelist semantics, and the directories they lie below (the filter in
 * the kernel); the tp_btf By "command" key's comm words against the bytes. */
#include "base/options.h"
#include "bpf/include/cgroup_key.h"
#include "libcore/engine/cgroup_rows.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

static int set_str(struct cgroup_options *o, const char *key, const char *v, char *err, size_t len)
{
	struct opt_value val = { .type = OPT_STRING, .string = v };
	struct option opt = { .key = key, .values = &val, .nvalues = 1 };

	return cgroup_options_set(o, &opt, err, len);
}

static int set_num(struct cgroup_options *o, const char *key, double v, char *err, size_t len)
{
	struct opt_value val = { .type = OPT_NUMBER, .number = v };
	struct option opt = { .key = key, .values = &val, .nvalues = 1 };

	return cgroup_options_set(o, &opt, err, len);
}

/* The prefix of glob i of o as a string. */
static const char *prefix_text(const struct cgroup_options *o, const struct cgroup_prefix *p, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)p->len, o->globs[p->glob]);
	return buf;
}

/* The directories the globs lie below, for the filter in the kernel (cgroup_select.h). */
static void test_prefixes(const struct cgroup_options *sel)
{
	struct cgroup_prefix p[CGROUP_SELECT_MAX + 1]; /* + 1: the call that may fill one more */
	struct cgroup_options o;
	const char *why = NULL;
	char err[ERR_MAX], buf[256];

	/* The options above: "/system.slice/ *.service" and "/user.slice/ *". */
	CHECK(cgroup_options_prefixes(sel, p, CGROUP_SELECT_MAX, &why) == 2);
	CHECK(!strcmp(prefix_text(sel, &p[0], buf, sizeof(buf)), "/system.slice") && p[0].level == 1);
	CHECK(!strcmp(prefix_text(sel, &p[1], buf, sizeof(buf)), "/user.slice") && p[1].level == 1);

	cgroup_options_init(&o);
	CHECK(cgroup_options_prefixes(&o, p, CGROUP_SELECT_MAX, &why) == 0 && !strcmp(why, "no Cgroup glob"));
	/* Whole directories up to the first wildcard; a literal glob is its own cgroup; one below
	 * another's directory, or the same, adds none. */
	CHECK(set_str(&o, "Cgroup", "/kubepods.slice/kubepods-burstable.slice/pod?*", err, sizeof(err)) == 1);
	CHECK(set_str(&o, "Cgroup", "/system.slice/ssh.service", err, sizeof(err)) == 1);
	CHECK(set_str(&o, "Cgroup", "/system.slice/cron[.]service/", err, sizeof(err)) == 1);
	CHECK(set_str(&o, "Cgroup", "/system.slice", err, sizeof(err)) == 1);
	CHECK(set_str(&o, "Cgroup", "/kubepods.slice/kubepods-burstable.slice/x\\*", err, sizeof(err)) == 1);
	CHECK(cgroup_options_prefixes(&o, p, CGROUP_SELECT_MAX, &why) == 2);
	CHECK(!strcmp(prefix_text(&o, &p[0], buf, sizeof(buf)), "/kubepods.slice/kubepods-burstable.slice"));
	CHECK(p[0].level == 2);
	CHECK(!strcmp(prefix_text(&o, &p[1], buf, sizeof(buf)), "/system.slice") && p[1].level == 1);
	/* A glob without a directory before its first wildcard: no filter in the kernel. */
	CHECK(set_str(&o, "Cgroup", "/*.slice/x", err, sizeof(err)) == 1);
	CHECK(cgroup_options_prefixes(&o, p, CGROUP_SELECT_MAX, &why) == 0 && strstr(why, "no directory"));
	cgroup_options_free(&o);
	/* More directories than the kernel's filter holds. */
	cgroup_options_init(&o);
	for (int i = 0; i <= CGROUP_SELECT_MAX; i++) {
		snprintf(buf, sizeof(buf), "/slice%d/x*", i);
		CHECK(set_str(&o, "Cgroup", buf, err, sizeof(err)) == 1);
	}
	CHECK(cgroup_options_prefixes(&o, p, CGROUP_SELECT_MAX, &why) == 0 && strstr(why, "more directories"));
	CHECK(cgroup_options_prefixes(&o, p, CGROUP_SELECT_MAX + 1, &why) == CGROUP_SELECT_MAX + 1);
	cgroup_options_free(&o);
}

/* By "command": only where the module knows the acting task; never with By "cgroup"; MaxSeries
 * and CgroupPrecision apply, the cgroup choosers do not. */
static void test_by_command(void)
{
	struct cgroup_options o;
	char err[512];

	cgroup_options_init(&o);
	CHECK(set_str(&o, "By", "command", err, sizeof(err)) == -1); /* command_ok unset: tcp */
	CHECK(strstr(err, "By \"command\": this module's events") && strstr(err, "By \"cgroup\" names the socket's"));
	CHECK(set_str(&o, "By", "pid", err, sizeof(err)) == -1);
	CHECK(!strstr(err, "\"command\"")); /* not offered where it is refused */
	o.command_ok = true;
	CHECK(set_str(&o, "By", "pid", err, sizeof(err)) == -1);
	CHECK(strstr(err, "or \"command\" (per command"));
	CHECK(set_str(&o, "By", "Command", err, sizeof(err)) == 1 && o.on && o.command);
	CHECK(set_str(&o, "By", "cgroup", err, sizeof(err)) == -1);
	CHECK(strstr(err, "By \"cgroup\" and By \"command\" cannot be combined in one module"));
	CHECK(o.command); /* unchanged */
	CHECK(set_num(&o, "MaxSeries", 20, err, sizeof(err)) == 1 && set_num(&o, "CgroupPrecision", 2, err, sizeof(err)) == 1);
	CHECK(cgroup_options_check(&o, err, sizeof(err)) == 0);
	CHECK(set_num(&o, "CgroupDepth", 3, err, sizeof(err)) == 1);
	CHECK(cgroup_options_check(&o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "choose cgroups, and By \"command\" counts per command") && strstr(err, "remove them"));
	cgroup_options_free(&o);
	/* Pressure is a cgroup's PSI: refused beside By "command" too. */
	o = (struct cgroup_options){ .command_ok = true };
	CHECK(set_str(&o, "By", "command", err, sizeof(err)) == 1);
	CHECK(set_str(&o, "Pressure", "true", err, sizeof(err)) == 1);
	CHECK(cgroup_options_check(&o, err, sizeof(err)) == -1 && strstr(err, "Pressure"));
	cgroup_options_free(&o);

	cgroup_options_init(&o); /* the other order */
	o.command_ok = true;
	CHECK(set_str(&o, "By", "cgroup", err, sizeof(err)) == 1);
	CHECK(set_str(&o, "By", "command", err, sizeof(err)) == -1 && strstr(err, "cannot be combined"));
	CHECK(set_str(&o, "By", "cgroup", err, sizeof(err)) == 1 && !o.command); /* the same twice */
	cgroup_options_free(&o);
}

/* The tp_btf key of By "command" (cgroup_key.bpf.h): the comm's two words with their bytes
 * from the first NUL on cleared by comm_word_to_nul, equal to clearing them byte by byte, for
 * names whose bytes after the NUL are an older, longer name's (kernels before 6.12 do not
 * pad a rename), and bytes next to a NUL that its borrow could confuse (0x01, 0x80, 0xff). */
static void test_command_key_words(void)
{
	static const unsigned char tricky[] = { 0, 0x01, 0x80, 0xff, 0x7f, 0x81, 'a' };
	unsigned int seed = 44;
	int bad = 0;

	for (int n = 0; n < 200000; n++) {
		unsigned char b[COMMAND_LEN], want[COMMAND_LEN];
		__u64 src[2], got[2], z;
		bool end = false;

		for (int i = 0; i < COMMAND_LEN; i++)
			b[i] = n < 7 * COMMAND_LEN ? (i == n / 7 ? 0 : tricky[n % 7]) /* each NUL place */
						   : tricky[rand_r(&seed) % sizeof(tricky)];
		for (int i = 0; i < COMMAND_LEN; i++) {
			end = end || !b[i];
			want[i] = end ? 0 : b[i];
		}
		memcpy(src, b, sizeof(src));
		got[0] = comm_word_to_nul(src[0], &z);
		got[1] = z ? 0 : comm_word_to_nul(src[1], &z);
		bad += memcmp(got, want, sizeof(want)) != 0;
	}
	CHECK_EQ_U64(bad, 0);
	{
		/* "ioa" renamed from "command_n" without padding: "ioa\0and_n\0..." is "ioa" */
		char name[COMMAND_LEN] = "command_n", ioa[COMMAND_LEN] = "ioa";
		__u64 src[2], got[2], z;

		memcpy(name, "ioa", 4);
		memcpy(src, name, sizeof(src));
		got[0] = comm_word_to_nul(src[0], &z);
		got[1] = z ? 0 : comm_word_to_nul(src[1], &z);
		CHECK(!memcmp(got, ioa, sizeof(ioa)));
	}
}

int main(void)
{
	struct cgroup_options o;
	char err[ERR_MAX];
	struct opt_value t = { .type = OPT_BOOLEAN, .boolean = true };
	struct option ignore = { .key = "CgroupIgnoreSelected", .values = &t, .nvalues = 1 };

	cgroup_options_init(&o);
	CHECK(!o.on && o.depth == 2 && o.max_series == 100);
	CHECK(cgroup_options_check(&o, err, sizeof(err)) == 0);
	CHECK(set_str(&o, "Latency", "fsync", err, sizeof(err)) == 0); /* not ours */

	CHECK(set_num(&o, "CgroupDepth", 3, err, sizeof(err)) == 1 && o.depth == 3);
	CHECK(cgroup_options_check(&o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "By \"cgroup\"") != NULL);
	CHECK(set_str(&o, "By", "pid", err, sizeof(err)) == -1);
	CHECK(strstr(err, "\"cgroup\"") != NULL);
	CHECK(set_str(&o, "by", "Cgroup", err, sizeof(err)) == 1 && o.on);
	CHECK(cgroup_options_check(&o, err, sizeof(err)) == 0);

	CHECK(set_num(&o, "CgroupDepth", 0, err, sizeof(err)) == -1);
	CHECK(set_num(&o, "CgroupDepth", 17, err, sizeof(err)) == -1);
	CHECK(set_num(&o, "CgroupDepth", 2.5, err, sizeof(err)) == -1);
	CHECK(strstr(err, "CgroupDepth takes one whole number from 1 to 16") != NULL);
	CHECK(set_str(&o, "CgroupDepth", "2", err, sizeof(err)) == -1);
	CHECK(set_num(&o, "MaxSeries", 0, err, sizeof(err)) == -1);
	CHECK(set_num(&o, "MaxSeries", 10001, err, sizeof(err)) == -1);
	CHECK(set_num(&o, "MaxSeries", 20, err, sizeof(err)) == 1 && o.max_series == 20);

	/* CgroupPrecision: the per-cgroup rows' own, unset until given. */
	CHECK(!o.hist.precision_from_user);
	CHECK(set_num(&o, "CgroupPrecision", 6, err, sizeof(err)) == -1);
	CHECK(strstr(err, "CgroupPrecision takes one whole number from 0 to 5") != NULL);
	CHECK(set_num(&o, "CgroupPrecision", -1, err, sizeof(err)) == -1);
	CHECK(set_num(&o, "CgroupPrecision", 2.5, err, sizeof(err)) == -1);
	CHECK(set_str(&o, "CgroupPrecision", "2", err, sizeof(err)) == -1);
	CHECK(!o.hist.precision_from_user);
	CHECK(set_num(&o, "CgroupPrecision", 2, err, sizeof(err)) == 1);
	CHECK(o.hist.precision_from_user && o.hist.precision == 2);
	{
		struct cgroup_options alone;

		cgroup_options_init(&alone);
		CHECK(set_num(&alone, "CgroupPrecision", 2, err, sizeof(err)) == 1);
		CHECK(cgroup_options_check(&alone, err, sizeof(err)) == -1);
		CHECK(strstr(err, "CgroupPrecision") && strstr(err, "add By \"cgroup\""));
		cgroup_options_free(&alone);
	}

	/* No glob: every cgroup. */
	CHECK(cgroup_options_selects(&o, "/system.slice/ssh.service"));
	CHECK(set_str(&o, "Cgroup", "system.slice/*", err, sizeof(err)) == -1);
	CHECK(strstr(err, "start it with '/'") != NULL);
	CHECK(set_str(&o, "Cgroup", "/system.slice/*.service", err, sizeof(err)) == 1);
	CHECK(set_str(&o, "Cgroup", "/user.slice/*", err, sizeof(err)) == 1 && o.nglobs == 2);
	CHECK(cgroup_options_selects(&o, "/system.slice/ssh.service"));
	CHECK(!cgroup_options_selects(&o, "/system.slice/docker-1.scope"));
	CHECK(cgroup_options_selects(&o, "/user.slice/user-1000.slice"));
	CHECK(cgroup_options_selects(&o, "/user.slice/user-1000.slice/session-2.scope")); /* '*' matches '/' */
	CHECK(!cgroup_options_selects(&o, "/"));
	test_prefixes(&o);
	CHECK(cgroup_options_set(&o, &ignore, err, sizeof(err)) == 1 && o.ignore_selected);
	CHECK(!cgroup_options_selects(&o, "/system.slice/ssh.service"));
	CHECK(cgroup_options_selects(&o, "/system.slice/docker-1.scope"));
	CHECK(cgroup_options_selects(&o, "/"));
	{
		struct cgroup_prefix p[CGROUP_SELECT_MAX];
		const char *why = NULL;

		CHECK(cgroup_options_prefixes(&o, p, CGROUP_SELECT_MAX, &why) == 0);
		CHECK(why && strstr(why, "CgroupIgnoreSelected"));
	}
	cgroup_options_free(&o);
	CHECK(o.nglobs == 0);
	test_by_command();
	test_command_key_words();
	return testing_done();
}
