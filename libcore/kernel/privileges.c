#include "libcore/kernel/privileges.h"

#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static uint64_t effective_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return (uint64_t)data[0].effective | ((uint64_t)data[1].effective << 32);
}

static bool has(uint64_t caps, int cap)
{
	return caps & (1ULL << cap);
}

bool privileges_sufficient(void)
{
	uint64_t caps = effective_caps();

	return has(caps, CAP_SYS_ADMIN) || (has(caps, CAP_BPF) && has(caps, CAP_PERFMON));
}

void privileges_explain(char *err, size_t errlen)
{
	uint64_t caps = effective_caps();

	snprintf(err, errlen,
		 "not permitted to load BPF programs: running as uid %u without %s%s%s. Run collectd as root, "
		 "or grant CAP_BPF and CAP_PERFMON (systemd: AmbientCapabilities=CAP_BPF CAP_PERFMON, see "
		 "contrib/collectd-ebpf.service.d.conf); also check kernel.unprivileged_bpf_disabled and lockdown",
		 (unsigned)geteuid(), has(caps, CAP_BPF) ? "" : "CAP_BPF",
		 !has(caps, CAP_BPF) && !has(caps, CAP_PERFMON) ? " and " : "",
		 has(caps, CAP_PERFMON) ? "" : "CAP_PERFMON");
}
