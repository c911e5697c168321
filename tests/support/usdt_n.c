/* Workload for the USDT test: waits for a line on stdin, then fires its USDT probe
 * collectd_ebpf_test:tick exactly N times, with the argument 1 on odd passes and 2 on even ones
 * (N=101: 51 ones, 50 twos), and says "done". Started before collectd so that its pid can be the
 * program's filter_tgid Param. The probe is a nop in the code and a note in .note.stapsdt that
 * libbpf reads to attach. Usage: usdt_n N */
#include "tests/support/workload_n.h"

#include <sys/sdt.h>

int main(int argc, char **argv)
{
	int n = workload_n_wait(argc, argv);

	for (int i = 1; i <= n; i++) {
		long arg = i % 2 ? 1 : 2;

		STAP_PROBE1(collectd_ebpf_test, tick, arg);
	}
	return workload_n_done();
}
