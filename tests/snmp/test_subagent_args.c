/* ebpf-subagent's command line: defaults, every option, and a clear error for each mistake. */
#include "snmp/subagent_args.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <stdarg.h>

static int parse(struct subagent_args *a, char *err, size_t len, ...)
{
	char *argv[16] = { "ebpf-subagent" };
	int argc = 1;
	va_list ap;
	char *s;

	va_start(ap, len);
	while ((s = va_arg(ap, char *)) && argc < 15)
		argv[argc++] = s;
	va_end(ap);
	err[0] = '\0';
	return subagent_args_parse(argc, argv, a, err, len);
}

static void expect_error(const char *arg1, const char *arg2, const char *expected)
{
	struct subagent_args a;
	char err[ERR_MAX];

	CHECK(parse(&a, err, sizeof(err), arg1, arg2, NULL) == -1);
	if (!strstr(err, expected))
		fprintf(stderr, "error \"%s\" lacks \"%s\"\n", err, expected);
	CHECK(strstr(err, expected) != NULL);
}

int main(void)
{
	struct subagent_args a;
	char err[ERR_MAX];
	uint32_t ids[8];
	size_t n;

	CHECK(parse(&a, err, sizeof(err), NULL) == 0);
	CHECK_STR(a.snapshot, "/run/collectd-ebpf/snapshot");
	/* Where Debian's snmpd.service (RuntimeDirectory=agentx) and the shipped snippet put it. */
	CHECK_STR(a.agentx_socket, "/run/agentx/master");
	CHECK(a.ping_interval == 5 && !a.help);
	CHECK(a.stale_after == 60);
	CHECK(a.base_len == 6 && a.base[0] == 1 && a.base[4] == 3 && a.base[5] == 3273);

	CHECK(parse(&a, err, sizeof(err), "--snapshot=/tmp/s", "-x", "/tmp/agentx", "--base-oid", ".1.3.6.1.4.1.99999.7",
		    "-p", "2", "--syslog", "--stale-after=3", NULL) == 0);
	CHECK_STR(a.snapshot, "/tmp/s");
	CHECK_STR(a.agentx_socket, "/tmp/agentx");
	CHECK(a.base_len == 8 && a.base[6] == 99999 && a.base[7] == 7);
	CHECK(a.ping_interval == 2 && a.syslog && a.stale_after == 3);
	CHECK(parse(&a, err, sizeof(err), "-a", "0", NULL) == 0 && a.stale_after == 0);
	CHECK(parse(&a, err, sizeof(err), "--help", NULL) == 0 && a.help);
	CHECK(parse(&a, err, sizeof(err), "-V", NULL) == 0 && a.version);

	expect_error("--frobnicate", NULL, "unknown option --frobnicate; see ebpf-subagent --help");
	expect_error("-z", NULL, "unknown option -z");
	expect_error("--snapshot", NULL, "--snapshot needs a value");
	expect_error("--snapshot", "relative/path", "--snapshot \"relative/path\": give the absolute path");
	expect_error("--base-oid", "1.3.6.x", "--base-oid \"1.3.6.x\" is not a numeric OID");
	expect_error("--base-oid", "1", "is not a numeric OID");
	expect_error("--base-oid", "1.3.6.1.4.1.4294967296", "is not a numeric OID");
	expect_error("--ping-interval", "0", "--ping-interval \"0\": expected whole seconds from 1 to 3600");
	expect_error("-p", "5s", "expected whole seconds");
	expect_error("--stale-after", "-1", "--stale-after \"-1\": expected whole seconds from 0 (never stale) to 86400");
	expect_error("--stale-after", "1m", "at least 3 x collectd's Interval");
	expect_error("--agentx-socket=", NULL, "--agentx-socket is empty");
	expect_error("stray", NULL, "unexpected argument \"stray\"");

	CHECK(subagent_parse_oid("1.3.6.1.3.3273", ids, 8, &n) == 0 && n == 6);
	CHECK(subagent_parse_oid("1.3..6", ids, 8, &n) == -1);
	CHECK(subagent_parse_oid("1.3.6.", ids, 8, &n) == -1);
	CHECK(subagent_parse_oid("3.1", ids, 8, &n) == -1);
	CHECK(subagent_parse_oid("1.2.3.4.5.6.7.8.9", ids, 8, &n) == -1);
	return testing_done();
}
