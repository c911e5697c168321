/* What a root test needs before it loads BPF programs, else it SKIPs (exit 77) saying
 * which: root (or CAP_BPF + CAP_PERFMON), the kernel's BTF, and tracefs with the events
 * directory of the tracepoints it uses (mounted here when it is not). */
#ifndef EBPF_TESTS_BPF_REQUIREMENTS_H
#define EBPF_TESTS_BPF_REQUIREMENTS_H

#include "libcore/kernel/privileges.h"
#include "tests/support/testing.h"

#include <sys/mount.h>
#include <unistd.h>

/* events: "/sys/kernel/tracing/events" or one of its directories ("/sys/kernel/tracing/events/block"). */
static inline void require_bpf_tracing(const char *events)
{
	if (geteuid() != 0 || !privileges_sufficient())
		SKIP("needs root (or CAP_BPF + CAP_PERFMON) to load BPF programs");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP("kernel has no BTF (/sys/kernel/btf/vmlinux): CO-RE programs cannot load");
	if (access(events, F_OK) && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		SKIP("tracefs is not mounted and cannot be: mount -t tracefs nodev /sys/kernel/tracing");
}

#endif
