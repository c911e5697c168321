/* What the N-times workloads share: they are started before collectd so that their pid can
 * be a program's filter_tgid Param, and do their N calls once the script says go. */
#ifndef EBPF_TESTS_WORKLOAD_N_H
#define EBPF_TESTS_WORKLOAD_N_H

#include <stdio.h>
#include <stdlib.h>

/* N, their one argument, once a line came on stdin (the go). Exits 2 with the usage
 * without a positive N, 1 when stdin ends first. */
static inline int workload_n_wait(int argc, char **argv)
{
	char line[16];
	int n;

	if (argc != 2 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s N\n", argv[0]);
		exit(2);
	}
	if (!fgets(line, sizeof(line), stdin))
		exit(1);
	return n;
}

/* "done", flushed: the script waits for it. Returns main's 0. */
static inline int workload_n_done(void)
{
	printf("done\n");
	fflush(stdout);
	return 0;
}

#endif
