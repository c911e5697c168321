/* collectd-ebpf-prometheus: the ebpf plugin's snapshot file as a Prometheus /metrics
 * endpoint (prom_render.h: the names; prom_serve.h: the HTTP side; prom_args.h: the
 * command line). No root, no BPF: it reads the file the plugin writes. */
#include "base/log.h"
#include "prometheus/prom_args.h"
#include "prometheus/prom_serve.h"
#include "base/err_max.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define PROG "collectd-ebpf-prometheus"

#ifndef EBPF_VERSION
#define EBPF_VERSION "unknown"
#endif

static void log_stderr(enum ebpf_log_level level, const char *msg)
{
	(void)level;
	fprintf(stderr, PROG ": %s\n", msg);
}

int main(int argc, char **argv)
{
	struct prom_args args;
	struct prom_server *server;
	char err[ERR_MAX];
	sigset_t stop;
	int sig;

	if (prom_args_parse(argc, argv, &args, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	if (args.help) {
		fputs(prom_usage, stdout);
		return 0;
	}
	if (args.version) {
		printf(PROG " " EBPF_VERSION " (snapshot format %d)\n", SNAPSHOT_FORMAT_VERSION);
		return 0;
	}
	ebpf_log_set_handler(log_stderr);
	/* The signals that stop it, waited for below: blocked before libmicrohttpd's thread starts,
	 * which inherits the mask. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	server = prom_serve_start(&args, err, sizeof(err));
	if (!server) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	ebpf_log(EBPF_LOG_INFO, "serving %s on http://%s%s%s:%s/metrics", args.snapshot, strchr(args.host, ':') ? "[" : "",
		 args.host, strchr(args.host, ':') ? "]" : "", args.port);
	fflush(stderr);
	sigwait(&stop, &sig);
	ebpf_log(EBPF_LOG_INFO, "stopped by signal %d", sig);
	prom_serve_stop(server);
	return 0;
}
