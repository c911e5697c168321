/* The HTTP side of collectd-ebpf-prometheus (libmicrohttpd): a listening socket of our own
 * (so that "port in use" is a clear error, not MHD's NULL), GET /metrics answered from the
 * snapshot file read at that scrape. */
#ifndef EBPF_PROMETHEUS_PROM_SERVE_H
#define EBPF_PROMETHEUS_PROM_SERVE_H

#include <stddef.h>

#include "prometheus/prom_args.h"

struct prom_server;

/* Listens on args' address and starts serving (a thread of libmicrohttpd's). NULL with
 * "what is wrong; the fix" in err. */
struct prom_server *prom_serve_start(const struct prom_args *args, char *err, size_t errlen);
void prom_serve_stop(struct prom_server *s);

#endif
