/* Workload for the <Program> tests: waits for a line on stdin, then calls sync() exactly N
 * times and says "done". Started before collectd so that its pid can be the programs'
 * filter_tgid Param. Usage: sync_n N */
#include "tests/support/workload_n.h"

#include <unistd.h>

int main(int argc, char **argv)
{
	int n = workload_n_wait(argc, argv);

	for (int i = 0; i < n; i++)
		sync();
	return workload_n_done();
}
