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
 * cgroup_hist_precision: never the host-wide rows' slot of v, laid out for hist_precision. */
static __always_inline void cgroup_hist_record(struct hist_row *h, __u64 v)
{
	hist_record_at(h, hist_slot_p(v, cgroup_hist_precision), v);
}

/* The slot at cgroup_hist_precision of a value v whose host-wide slot the program has just
 * computed, for hist_record_at: computed on v plus the first word of the module's zero row
 * (`zero`, cgroup_zero_row(): 0, but a map value the verifier cannot know). 5.10's verifier
 * narrows v at each comparison of the host-wide slot, and cannot decide hist_slot_p's
 * comparisons against a register (2^p, the last slot: p is read-only data); meeting them
 * again on the narrowed v, it walked branches the first ones made impossible into an
 * unbounded slot (vfs, "misaligned access"). On a value it knows nothing of, they are the
 * first again. */
static __always_inline __u64 cgroup_hist_slot_again(__u64 v, const void *zero)
{
	return hist_slot_p(v + *(const __u64 *)zero, cgroup_hist_precision);
}

#endif
