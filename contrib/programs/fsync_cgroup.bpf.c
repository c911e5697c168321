// SPDX-License-Identifier: GPL-2.0
/* Who waits on the disk: fsync() and fdatasync() latency per cgroup, a histogram keyed by
 * cgroup and call in a hash (the biosnoop question, "who", as a metric).
 *
 * A hash row is inserted before it is recorded into, and the plugin's histogram row
 * (struct hist_row: 1089 slots and a sum, 8,720 bytes) does not fit on the BPF stack (512
 * bytes): a new key is inserted from a zeroed global row (`empty_row`, in .bss, never written),
 * then looked up and recorded into in place. The start time of each call waits per thread in
 * a second hash. `comm` (a string Param, "" for every command) limits it to one command name.
 *
 * Its key is what users choose: any user who may make cgroups (systemd delegates a subtree to
 * every user with a session) makes as many keys as cgroups. So the rows are an LRU hash: a
 * full map makes room for a new cgroup by evicting a row used long ago, where a plain hash
 * would refuse every later cgroup, for good (its rows outlive their cgroups). An evicted
 * row's counts are gone from the map: its series stops until its cgroup calls again, then
 * goes on from what it had (the plugin adds what each row counted since the last read), less
 * the calls recorded after the read before the eviction. A call that still finds no row (or
 * no room for its start) is counted in `missed`, never lost without a trace.
 * Compile: collectd-ebpf-cc fsync_cgroup.bpf.c; fsync_cgroup.conf names the labels. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "counting.bpf.h"
#include "hist_row.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile char comm[16] = "";

enum fsync_op { OP_FSYNC, OP_FDATASYNC };

struct call_key {
	__u64 cgroup; /* bpf_get_current_cgroup_id(): decoded to its path by Decode "cgroup" */
	__u32 op;     /* enum fsync_op: Decode "static_map" "0=fsync" "1=fdatasync" */
	__u32 pad;
};

struct call_start {
	__u64 ns;
	__u32 op;
	__u32 pad;
};

/* A plain hash: a thread's entry lives from its call to its return only. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32); /* thread id */
	__type(value, struct call_start);
} started SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH); /* full: a row used long ago makes room */
	__uint(max_entries, 1024);           /* cgroups x 2 calls */
	__type(key, struct call_key);
	__type(value, struct hist_row);
} latency SEC(".maps");

/* Calls not recorded: no room for their start or their row (`derive-missed`). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} missed SEC(".maps");

static struct hist_row empty_row; /* zeroed: the row a new key starts from */

static __always_inline bool is_comm(void)
{
	char now[16];

	if (!comm[0])
		return true;
	bpf_get_current_comm(now, sizeof(now));
	for (int i = 0; i < 16; i++) {
		if (now[i] != comm[i])
			return false;
		if (!now[i])
			return true;
	}
	return true;
}

static __always_inline int enter(__u32 op)
{
	struct call_start st = { .ns = bpf_ktime_get_ns(), .op = op };
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (is_comm() && bpf_map_update_elem(&started, &tid, &st, BPF_ANY))
		add_to_row(&missed, 0, 1);
	return 0;
}

static __always_inline int leave(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct call_key key = { .cgroup = bpf_get_current_cgroup_id() };
	struct call_start *st = bpf_map_lookup_elem(&started, &tid);
	struct hist_row *row;
	__u64 ns;

	if (!st)
		return 0;
	ns = bpf_ktime_get_ns() - st->ns;
	key.op = st->op;
	bpf_map_delete_elem(&started, &tid);
	row = bpf_map_lookup_elem(&latency, &key);
	if (!row) {
		bpf_map_update_elem(&latency, &key, &empty_row, BPF_NOEXIST);
		row = bpf_map_lookup_elem(&latency, &key);
		if (!row) {
			add_to_row(&missed, 0, 1);
			return 0;
		}
	}
	hist_record(row, ns);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_fsync")
int fsync_enter(void *ctx)
{
	return enter(OP_FSYNC);
}

SEC("tracepoint/syscalls/sys_enter_fdatasync")
int fdatasync_enter(void *ctx)
{
	return enter(OP_FDATASYNC);
}

SEC("tracepoint/syscalls/sys_exit_fsync")
int fsync_exit(void *ctx)
{
	return leave();
}

SEC("tracepoint/syscalls/sys_exit_fdatasync")
int fdatasync_exit(void *ctx)
{
	return leave();
}
