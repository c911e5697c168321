#include "prometheus/prom_args.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/snapshot_file.h"

const char prom_usage[] =
	"Usage: collectd-ebpf-prometheus [OPTION]...\n"
	"Serves the collectd ebpf plugin's snapshot (counters, histograms, module states, events)\n"
	"as Prometheus metrics on http://ADDRESS:PORT/metrics: text format 0.0.4, or OpenMetrics\n"
	"1.0.0 when the scraper asks for it. Reads the snapshot at every scrape; needs no root and\n"
	"no BPF, only the snapshot file's group. Runs in the foreground, logs to stderr.\n"
	"\n"
	"  -s, --snapshot=PATH      the plugin's SnapshotFile (default " SNAPSHOT_DEFAULT_PATH ")\n"
	"  -l, --listen=ADDR:PORT   where to listen (default " PROM_DEFAULT_LISTEN "; [::1]:PORT for IPv6,\n"
	"                           0.0.0.0:PORT for every interface)\n"
	"  -b, --buckets=SET        histogram buckets, each a kernel slot's upper bound: pow4 (every\n"
	"                           power of 4, 20 buckets: the default), pow2 (39), all (every slot\n"
	"                           of the histogram's precision: quantiles as exact as the plugin's)\n"
	"  -h, --help               this text\n"
	"  -V, --version            the version\n";

int prom_parse_listen(const char *s, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *colon, *h = s;
	size_t n;
	char *end;
	long p;

	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return -1;
		h = s + 1;
		n = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || strchr(s, ':') != colon)
			return -1; /* an IPv6 address needs its brackets */
		n = (size_t)(colon - s);
	}
	if (n == 0 || n >= hostlen)
		return -1;
	p = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || p < 1 || p > 65535 || strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, portlen, "%ld", p);
	return 0;
}

int prom_args_parse(int argc, char **argv, struct prom_args *out, char *err, size_t errlen)
{
	static const struct option options[] = {
		{ "snapshot", required_argument, NULL, 's' }, { "listen", required_argument, NULL, 'l' },
		{ "buckets", required_argument, NULL, 'b' },  { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },        { NULL, 0, NULL, 0 },
	};
	int c;

	memset(out, 0, sizeof(*out));
	out->snapshot = SNAPSHOT_DEFAULT_PATH;
	out->buckets = PROM_BUCKETS_POW4;
	prom_parse_listen(PROM_DEFAULT_LISTEN, out->host, sizeof(out->host), out->port, sizeof(out->port));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:l:b:hV", options, NULL)) != -1) {
		switch (c) {
		case 's':
			if (optarg[0] != '/') {
				snprintf(err, errlen, "--snapshot \"%s\": give the absolute path of the plugin's "
					 "SnapshotFile, e.g. --snapshot=%s", optarg, SNAPSHOT_DEFAULT_PATH);
				return -1;
			}
			out->snapshot = optarg;
			break;
		case 'l':
			if (prom_parse_listen(optarg, out->host, sizeof(out->host), out->port, sizeof(out->port))) {
				snprintf(err, errlen, "--listen \"%s\": expected ADDRESS:PORT with a port from 1 to "
					 "65535, e.g. --listen=" PROM_DEFAULT_LISTEN " or --listen=[::1]:" PROM_DEFAULT_PORT,
					 optarg);
				return -1;
			}
			break;
		case 'b':
			if (prom_buckets_parse(optarg, &out->buckets)) {
				snprintf(err, errlen, "--buckets \"%s\": expected pow4 (the default), pow2 or all", optarg);
				return -1;
			}
			break;
		case 'h':
			out->help = true;
			break;
		case 'V':
			out->version = true;
			break;
		case ':':
			snprintf(err, errlen, "%s needs a value; see --help", argv[optind - 1]);
			return -1;
		default:
			snprintf(err, errlen, "unknown option %s; see --help", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument \"%s\": options only; see --help", argv[optind]);
		return -1;
	}
	return 0;
}
