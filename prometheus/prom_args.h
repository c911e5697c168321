/* Command line of collectd-ebpf-prometheus. Pure parsing, no HTTP, so it is unit-tested. */
#ifndef EBPF_PROMETHEUS_PROM_ARGS_H
#define EBPF_PROMETHEUS_PROM_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "prometheus/prom_render.h"

/* 9100-9999, Prometheus' range of exporter ports, is allocated to the last port (its
 * wiki, "Default port allocations"; 9435 is ebpf_exporter's): ours is outside it, where no
 * exporter of that list listens. */
#define PROM_DEFAULT_PORT "19435"
#define PROM_DEFAULT_LISTEN "127.0.0.1:" PROM_DEFAULT_PORT

struct prom_args {
	const char *snapshot;  /* the plugin's SnapshotFile */
	char host[256];        /* numeric address or name; [v6] without its brackets */
	char port[8];
	enum prom_buckets buckets;
	bool help, version;
};

/* 0: run (or print help/version if set); -1: err holds "option: what is wrong; the fix". */
int prom_args_parse(int argc, char **argv, struct prom_args *out, char *err, size_t errlen);
/* "ADDRESS:PORT", "[V6]:PORT" into host and port; 0 or -1. */
int prom_parse_listen(const char *s, char *host, size_t hostlen, char *port, size_t portlen);
extern const char prom_usage[];

#endif
