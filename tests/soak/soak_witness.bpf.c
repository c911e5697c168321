// SPDX-License-Identifier: GPL-2.0
/* The soak's exact witness, loaded as a users' <Program>: fsync() calls, execs and connect()
 * calls of the soak's own cgroup, by command name. The modules count these system-wide, so
 * on a busy machine their totals are only "at least the workload's"; this map's series for
 * (soak cgroup, "fsync_n", fsync), (…, "true", exec) and (…, "bash", connect) are exactly
 * the workload's, read through the same engine (hash walk, cgroup/string/static_map
 * decoders) for the whole soak. Built with collectd-ebpf-cc, as users build theirs. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "counting.bpf.h"
#include "../support/test_maps.bpf.h" /* HASH_MAP, lookup_or_insert */

char LICENSE[] SEC("license") = "GPL";

/* The cgroup2 id (its directory's inode) whose tasks are counted; 0 counts nothing. */
const volatile __u64 soak_cgroup = 0;

enum soak_event { SOAK_FSYNC, SOAK_EXEC, SOAK_CONNECT };

struct soak_key {
	__u64 cgroup;
	char comm[16];
	__u32 event;
	__u32 pad;
};

HASH_MAP(soak_events, struct soak_key, __u64, 1024);

static __always_inline int count_event(enum soak_event event)
{
	static const __u64 zero;
	struct soak_key key = {};
	__u64 *count;

	key.cgroup = bpf_get_current_cgroup_id();
	if (!soak_cgroup || key.cgroup != soak_cgroup)
		return 0;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	key.event = event;
	count = lookup_or_insert(&soak_events, &key, &zero);
	if (count)
		counter_add(count, 1);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_fsync")
int on_fsync(void *ctx)
{
	return count_event(SOAK_FSYNC);
}

/* After the exec: comm is the new program's name. */
SEC("tracepoint/sched/sched_process_exec")
int on_exec(void *ctx)
{
	return count_event(SOAK_EXEC);
}

SEC("tracepoint/syscalls/sys_enter_connect")
int on_connect(void *ctx)
{
	return count_event(SOAK_CONNECT);
}
