/* The `vfs` module: calls, errors, latency and bytes per call of read, write, fsync and
 * open where every filesystem meets the kernel (vfs_read, vfs_write, vfs_fsync_range,
 * vfs_open). Without fentry or kprobes it falls back, per operation, to the syscalls that
 * lead there, logs that once and reports it as gauge-approximation-<op> = 1. With By
 * "cgroup" also calls, errors, latency and bytes per cgroup of the calling task. */
#include "libcore/engine/module.h"

#include "libcore/decode/syscall_names.h"
#include "libcore/engine/module_cgroup.h"
#include "bpf/include/cgroup_key.h"
#include "base/log.h"
#include "base/text_append.h"
#include "vfs.h"
#include "vfs.skel.h"

MODULE_SKELETON(vfs);

#include <errno.h>
#include <string.h>

_Static_assert(VFS_SYSCALL_ROWS == SYSCALL_TABLE_SIZE, "syscall numbering must agree");

/* Order: the VFS function itself (fentry, then kprobe), then the syscalls (approximation),
 * whose tp_btf and raw_tp pairs have witnesses (witness.h) with `Witness true`: off by
 * default, since each would run on every syscall. */
#define VFS_CANDIDATES(op, function)                                                                   \
	{                                                                                              \
		{ ATTACH_FENTRY, NULL, { PROG_NAME(op##_entry_fentry), PROG_NAME(op##_exit_fexit) }, { NULL },   \
		  { function } },                                                                      \
		{ ATTACH_KPROBE, NULL, { PROG_NAME(op##_entry_kprobe), PROG_NAME(op##_exit_kretprobe) }, { NULL }, \
		  { function } },                                                                      \
		{ ATTACH_TP_BTF, "syscalls", { PROG_NAME(sys_##op##_enter_btf), PROG_NAME(sys_##op##_exit_btf),   \
					       PROG_NAME(witness_sys_##op##_enter_btf),                       \
					       PROG_NAME(witness_sys_##op##_exit_btf) },                      \
		  { NULL }, MODULE_WITNESSES(2) },                                                     \
		{ ATTACH_RAW_TP, "syscalls", { PROG_NAME(sys_##op##_enter_raw), PROG_NAME(sys_##op##_exit_raw),   \
					       PROG_NAME(witness_sys_##op##_enter_raw),                       \
					       PROG_NAME(witness_sys_##op##_exit_raw) },                      \
		  { NULL }, MODULE_WITNESSES(2) },                                                     \
		{ ATTACH_TRACEPOINT, "syscalls", { PROG_NAME(sys_##op##_enter_tp), PROG_NAME(sys_##op##_exit_tp) }, \
		  { NULL } },                                                                          \
	}

static const struct probe_candidate read_candidates[] = VFS_CANDIDATES(read, "vfs_read");
static const struct probe_candidate write_candidates[] = VFS_CANDIDATES(write, "vfs_write");
static const struct probe_candidate fsync_candidates[] = VFS_CANDIDATES(fsync, "vfs_fsync_range");
static const struct probe_candidate open_candidates[] = VFS_CANDIDATES(open, "vfs_open");

static const struct module_point points[VFS_OPS] = {
	[VFS_OP_READ] = MODULE_POINT("read", read_candidates),
	[VFS_OP_WRITE] = MODULE_POINT("write", write_candidates),
	[VFS_OP_FSYNC] = MODULE_POINT("fsync", fsync_candidates),
	[VFS_OP_OPEN] = MODULE_POINT("open", open_candidates),
};

static const char *const op_names[VFS_OPS] = { "read", "write", "fsync", "open" };

/* The syscalls each operation falls back to, NULL-terminated. */
static const char *const op_syscalls[VFS_OPS][6] = {
	[VFS_OP_READ] = { "read", "pread64", "readv", "preadv", "preadv2", NULL },
	[VFS_OP_WRITE] = { "write", "pwrite64", "writev", "pwritev", "pwritev2", NULL },
	[VFS_OP_FSYNC] = { "fsync", "fdatasync", NULL },
	[VFS_OP_OPEN] = { "open", "openat", "openat2", "creat", NULL },
};

struct vfs {
	bool approximate[VFS_OPS];
};

static const struct module_option options[] = { CGROUP_HIST_OPTION_KEYS, { NULL } };


/* Bytes are recorded for read and write only: the other rows' histograms stay empty and
 * so send nothing. */
static const struct view_field op_fields[] = {
	{ "calls", VALUE_COUNTER, offsetof(struct vfs_op_stats, calls) },
	{ "errors", VALUE_COUNTER, offsetof(struct vfs_op_stats, errors) },
	{ "latency", VALUE_HISTOGRAM, offsetof(struct vfs_op_stats, latency), HIST_UNIT_NANOSECONDS },
	{ "bytes", VALUE_HISTOGRAM, offsetof(struct vfs_op_stats, bytes), HIST_UNIT_BYTES },
};

static const struct view_row stat_rows[] = {
	{ VFS_STAT_START_LOST, "dropped", "start_lost", VIEW_ALWAYS },
};

static const struct view_label labels[] = { ROW_LABEL("op", .names = op_names, .nnames = VFS_OPS) };

static const struct map_view views[] = {
	{ .map = MAP_NAME(ops), .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(struct vfs_op_stats), .nrows = VFS_OPS,
	  VIEW_LABELLED_FIELDS(labels, op_fields) },
	{ VIEW_PERCPU_COUNTERS(MAP_NAME(stats), VFS_STAT_COUNT, stat_rows) },
	MODULE_CGROUP_FULL_VIEW, /* calls whose cgroup found no room */
};

/* By "cgroup": per (cgroup, operation) as the host-wide rows ("vfs.<cgroup>/calls-read",
 * "latency-write-99", "bytes-read-50"). */
static const struct view_field cgroup_count_fields[] = {
	{ "calls", VALUE_COUNTER, offsetof(struct cgroup_call_counts, calls) },
	{ "errors", VALUE_COUNTER, offsetof(struct cgroup_call_counts, errors) },
};

static const char *op_row_name(const struct module *m, uint32_t row, char *buf, size_t len)
{
	return row < VFS_OPS ? op_names[row] : NULL;
}

/* Bytes are recorded for read and write only, rows 0 and 1. */
_Static_assert(VFS_OP_READ == 0 && VFS_OP_WRITE == 1, "the bytes table holds rows 0 and 1");
static const struct cgroup_table cgroup_tables[] = {
	{ .map = MAP_NAME(cgroup_counts), .fields = cgroup_count_fields, .nfields = COUNT_OF(cgroup_count_fields),
	  .nrows = VFS_OPS, .rows_per_cgroup = VFS_OPS, .row_instance = op_row_name, .row_label = "op" },
	{ .map = MAP_NAME(cgroup_latency), .hist_metric = "latency", .unit = HIST_UNIT_NANOSECONDS, .nrows = VFS_OPS,
	  .rows_per_cgroup = VFS_OPS, .row_instance = op_row_name, .row_label = "op" },
	{ .map = MAP_NAME(cgroup_bytes), .hist_metric = "bytes", .unit = HIST_UNIT_BYTES, .nrows = 2, .rows_per_cgroup = 2,
	  .row_instance = op_row_name, .row_label = "op" },
};

/* The fallback maps each operation's syscalls to it. */
static int vfs_configure(struct module *m, struct bpf_object *obj, char *err, size_t errlen)
{
	uint8_t *syscall_op = MODULE_RODATA_ARRAY(obj, syscall_op);

	if (!syscall_op)
		return module_hook_fail(err, errlen, "its BPF object lacks the vfs module's rodata (a stale build?)");
	for (int op = 0; op < VFS_OPS; op++) {
		for (int i = 0; op_syscalls[op][i]; i++) {
			int nr = syscall_number(op_syscalls[op][i]);

			/* Not every architecture has every one (arm64 has no open or creat). */
			if (nr >= 0 && nr < VFS_SYSCALL_ROWS)
				syscall_op[nr] = op + 1;
		}
	}
	return 0;
}

static bool is_syscall_fallback(const struct probe_point *p)
{
	const struct probe_candidate *c = &p->candidates[p->chosen];

	return c->variant && !strcmp(c->variant, "syscalls");
}

/* Said once, at start: which operations are approximated and what that means. */
static int vfs_start(struct module *m, char *err, size_t errlen)
{
	struct vfs *v = m->priv;

	for (int op = 0; op < VFS_OPS; op++) {
		const struct probe_point *p = &m->probes.points[op];
		char method[96], list[96] = "";
		size_t used = 0;

		v->approximate[op] = is_syscall_fallback(p);
		if (!v->approximate[op])
			continue;
		for (int i = 0; op_syscalls[op][i]; i++)
			text_appendf(list, sizeof(list), &used, "%s%s", i ? ", " : "", op_syscalls[op][i]);
		ebpf_log(EBPF_LOG_WARNING,
			 "%s: %s is an approximation: measured at the syscalls %s (%s) because %s; pipes "
			 "and sockets count too, kernel-internal calls do not (gauge-approximation-%s = 1)",
			 m->label, op_names[op], list, probe_point_method(p, method, sizeof(method)),
			 p->failed ? "the VFS function could not be hooked (see the attach failures above)"
				   : "AttachOrder puts the syscalls first",
			 op_names[op]);
	}
	return 0;
}

static void vfs_send(struct module *m, const struct metric_sink *sink)
{
	struct vfs *v = m->priv;

	/* Always sent: a 0 is the statement "this is the real VFS figure". */
	for (int op = 0; op < VFS_OPS && sink->gauge; op++)
		sink->gauge(sink->ctx, METRIC("approximation"), op_names[op], v->approximate[op] ? 1 : 0);
}

const struct module_ops vfs_module = {
	.name = "vfs",
	.description = "calls, errors, latency and bytes per call of VFS read, write, fsync and open; "
		       "optionally per cgroup",
	.witness_opt_in = true,
	.options = options,
	.priv_size = sizeof(struct vfs),
	MODULE_OBJECT(vfs),
	/* Its calls price its cost: a window's cost per second would be sent at the rate the
	 * statistics slowed it to (its syscall fallback runs eight programs a syscall). */
	.cost_events = (const char *const[]){ "calls", NULL },
	MODULE_CGROUP_TABLES(cgroup_tables, NULL),
	.by_command = true,
	.configure = vfs_configure,
	.start = vfs_start,
	.send = vfs_send,
};
