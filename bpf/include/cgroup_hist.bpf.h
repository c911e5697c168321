/* Per-cgroup histogram rows (By "cgroup"), BPF side only: their tables and how a value is
 * recorded into them. Include after hist_row.bpf.h and cgroup_key.bpf.h. */
#ifndef EBPF_CGROUP_HIST_BPF_H
#define EBPF_CGROUP_HIST_BPF_H

/* A per-cgroup table of histogram rows: hist_row.bpf.h's HIST_HASH_MAP keyed by cgroup and
 * row (no BTF value type: user space sizes its rows for cgroup_hist_precision). */
#define CGROUP_HIST_MAP(name) HIST_HASH_MAP(name, struct cgroup_row_key)

/* The precision of every per-cgroup histogram row, set by user space before load
 * (`CgroupPrecision`, or its default: module.h's cgroup_precision). Its own, apart from
 * hist_precision, so that turning By "cgroup" on leaves the host-wide rows as fine as they
 * were; a constant to the verifier, which checks each slot index against the tables'
 * value size for it. */
const volatile __u32 cgroup_hist_precision = HIST_PRECISION_DEFAULT;

/* One value v into a per-cgroup histogram row (a CGROUP_HIST_MAP value), at
 * cgroup_hist_precision: never the host-wide rows' slot of v, laid out for hist_precision.
 * A value also recorded host-wide thus has two slots, each computed once (hist_row.bpf.h's
 * hist_record_at says why once). */
static __always_inline void cgroup_hist_record(struct hist_row *h, __u64 v)
{
	hist_record_at(h, hist_slot_p(v, cgroup_hist_precision), v);
}

#endif
