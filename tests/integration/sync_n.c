/* Workload for the <Program> tests: waits for a line on stdin, then calls sync() exactly N
 * times and says "done". Started before collectd so that its pid can be the programs'
 * filter_tgid Param. Usage: sync_n N */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char line[16];
	int n;

	if (argc != 2 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s N\n", argv[0]);
		return 2;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = 0; i < n; i++)
		sync();
	printf("done\n");
	fflush(stdout);
	return 0;
}
