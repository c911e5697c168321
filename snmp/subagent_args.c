#include "subagent_args.h"

#include "agentx_probe.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/snapshot_file.h"

const char subagent_usage[] =
	"Usage: ebpf-subagent [OPTION]...\n"
	"Serves the collectd ebpf plugin's snapshot (counters, histograms, module states) over\n"
	"SNMP as an AgentX subagent of snmpd (COLLECTD-EBPF-MIB). Runs in the foreground, as an\n"
	"unprivileged user in the snapshot file's group.\n"
	"\n"
	"  -s, --snapshot=PATH       the plugin's SnapshotFile (default " SNAPSHOT_DEFAULT_PATH ")\n"
	"  -x, --agentx-socket=ADDR  snmpd's AgentX socket, as in its agentXSocket\n"
	"                            (default " AGENTX_DEFAULT_SOCKET ", as Debian's snmpd.service\n"
	"                            and contrib/snmpd.conf.snippet; e.g. tcp:localhost:705)\n"
	"  -b, --base-oid=OID        where COLLECTD-EBPF-MIB is served (default " SUBAGENT_DEFAULT_BASE_OID ",\n"
	"                            net-snmp's experimental arc; use 1.3.6.1.4.1.<your PEN>.<n>)\n"
	"  -p, --ping-interval=SEC   AgentX ping, and reconnect delay after snmpd restarts (default 5)\n"
	"  -a, --stale-after=SEC     a snapshot not rewritten for SEC seconds is stale(5): collectd\n"
	"                            stopped publishing; its values are no longer served (default 60;\n"
	"                            give at least 3 x collectd's Interval; 0: never stale)\n"
	"  -l, --syslog              log to syslog (daemon facility) instead of stderr\n"
	"  -d, --debug               print AgentX protocol debugging\n"
	"  -h, --help                this text\n"
	"  -V, --version             the version\n";

int subagent_parse_oid(const char *s, uint32_t *ids, size_t max, size_t *len)
{
	const char *p = s;

	*len = 0;
	if (*p == '.')
		p++;
	while (*p) {
		char *end;
		unsigned long long v;

		if (*p < '0' || *p > '9' || *len == max)
			return -1;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || v > UINT32_MAX)
			return -1;
		ids[(*len)++] = (uint32_t)v;
		p = end;
		if (*p == '.' && p[1])
			p++;
		else if (*p)
			return -1;
	}
	/* The first arc is 0, 1 or 2 (ITU-T X.660); a single arc is no subtree anyone owns. */
	return *len >= 2 && ids[0] <= 2 ? 0 : -1;
}

/* Whole seconds from min to max; 0, or -1. */
static int parse_seconds(const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || !s[0] || *end || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

static void set_defaults(struct subagent_args *out)
{
	memset(out, 0, sizeof(*out));
	out->snapshot = SNAPSHOT_DEFAULT_PATH;
	out->agentx_socket = AGENTX_DEFAULT_SOCKET;
	out->ping_interval = SUBAGENT_DEFAULT_PING;
	out->stale_after = SUBAGENT_DEFAULT_STALE_AFTER;
	subagent_parse_oid(SUBAGENT_DEFAULT_BASE_OID, out->base, SUBAGENT_MAX_BASE_OID, &out->base_len);
}

/* The options that take a value (getopt's letter c, its value arg). */
static int set_value_option(int c, char *arg, struct subagent_args *out, char *err, size_t errlen)
{
	switch (c) {
	case 's':
		if (!arg[0] || arg[0] != '/') {
			snprintf(err, errlen, "--snapshot \"%s\": give the absolute path of the plugin's "
				 "SnapshotFile, e.g. --snapshot=%s", arg, SNAPSHOT_DEFAULT_PATH);
			return -1;
		}
		out->snapshot = arg;
		return 0;
	case 'x':
		if (!arg[0]) {
			snprintf(err, errlen, "--agentx-socket is empty; give snmpd's agentXSocket, "
				 "e.g. --agentx-socket=" AGENTX_DEFAULT_SOCKET);
			return -1;
		}
		out->agentx_socket = arg;
		return 0;
	case 'b':
		if (subagent_parse_oid(arg, out->base, SUBAGENT_MAX_BASE_OID, &out->base_len)) {
			snprintf(err, errlen, "--base-oid \"%s\" is not a numeric OID of 2 to %d arcs; use e.g. "
				 "--base-oid=1.3.6.1.4.1.<your enterprise number>.1", arg, SUBAGENT_MAX_BASE_OID);
			return -1;
		}
		return 0;
	case 'p':
		if (parse_seconds(arg, 1, 3600, &out->ping_interval)) {
			snprintf(err, errlen, "--ping-interval \"%s\": expected whole seconds from 1 to 3600 "
				 "(default %d)", arg, SUBAGENT_DEFAULT_PING);
			return -1;
		}
		return 0;
	default: /* 'a' */
		if (parse_seconds(arg, 0, 86400, &out->stale_after)) {
			snprintf(err, errlen, "--stale-after \"%s\": expected whole seconds from 0 (never stale) "
				 "to 86400, at least 3 x collectd's Interval (default %d)", arg,
				 SUBAGENT_DEFAULT_STALE_AFTER);
			return -1;
		}
		return 0;
	}
}

/* One option getopt_long returned as c: a value option, a flag, or an error naming it. */
static int set_option(int c, char **argv, struct subagent_args *out, char *err, size_t errlen)
{
	switch (c) {
	case 's':
	case 'x':
	case 'b':
	case 'p':
	case 'a':
		return set_value_option(c, optarg, out, err, errlen);
	case 'l':
		out->syslog = true;
		return 0;
	case 'd':
		out->debug = true;
		return 0;
	case 'h':
		out->help = true;
		return 0;
	case 'V':
		out->version = true;
		return 0;
	case ':':
		snprintf(err, errlen, "%s needs a value; see ebpf-subagent --help", argv[optind - 1]);
		return -1;
	default:
		snprintf(err, errlen, "unknown option %s; see ebpf-subagent --help", argv[optind - 1]);
		return -1;
	}
}

int subagent_args_parse(int argc, char **argv, struct subagent_args *out, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "snapshot", required_argument, NULL, 's' },
		{ "agentx-socket", required_argument, NULL, 'x' },
		{ "base-oid", required_argument, NULL, 'b' },
		{ "ping-interval", required_argument, NULL, 'p' },
		{ "stale-after", required_argument, NULL, 'a' },
		{ "syslog", no_argument, NULL, 'l' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	set_defaults(out);
	optind = 0; /* reset getopt, so that tests can parse more than once */
	opterr = 0; /* our own messages */
	while ((c = getopt_long(argc, argv, ":s:x:b:p:a:ldhV", longopts, NULL)) != -1)
		if (set_option(c, argv, out, err, errlen))
			return -1;
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument \"%s\" (ebpf-subagent takes options only); "
			 "see ebpf-subagent --help", argv[optind]);
		return -1;
	}
	return 0;
}
