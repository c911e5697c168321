/* Workload for the uprobe test: waits for a line on stdin, then calls the C library's
 * getaddrinfo() exactly N times for "localhost" (answered from /etc/hosts, no network) and says
 * "done". Started before collectd so that its pid can be the program's filter_tgid Param.
 * Usage: gai_n N */
#include "tests/support/workload_n.h"

#include <netdb.h>
#include <string.h>

/* The service asked for. tests/exporter/exporter_uprobe.bpf.c reads it at getaddrinfo()'s
 * entry from this process's memory, which a BPF program cannot fault in: a page not yet
 * touched reads as nothing (the call then counts under port 0). Touched before the calls. */
static const char service[] = "80";

int main(int argc, char **argv)
{
	struct addrinfo hints, *res;
	int n;

	(void)*(volatile const char *)service;
	n = workload_n_wait(argc, argv);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	for (int i = 0; i < n; i++) {
		int err = getaddrinfo("localhost", service, &hints, &res);

		if (err) {
			fprintf(stderr, "getaddrinfo: %s\n", gai_strerror(err));
			return 1;
		}
		freeaddrinfo(res);
	}
	return workload_n_done();
}
