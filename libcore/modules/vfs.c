/* The `vfs` module: calls, errors, latency and bytes per call of read, write, fsync and
 * open where every filesystem meets the kernel (vfs_read, vfs_write, vfs_fsync_range,
 * vfs_open). Without fentry or kprobes it falls back, per operation, to the syscalls that
 * lead there, logs that once and reports it as gauge-approximation-<op> = 1. */
#include "libcore/engine/module.h"

#include "libcore/engine/log.h"
#include "libcore/engine/text_append.h"
#include "libcore/engine/percpu_read.h"
#include "libcore/decode/syscall_names.h"
#include "vfs.h"
#include "vfs.skel.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(VFS_SYSCALL_ROWS == SYSCALL_TABLE_SIZE, "syscall numbering must agree");

/* Order: the VFS function itself (fentry, then kprobe), then the syscalls (approximation). */
#define VFS_CANDIDATES(op, function)                                                                   \
	{                                                                                              \
		{ ATTACH_FENTRY, NULL, { op "_entry_fentry", op "_exit_fexit" }, { NULL }, { function } },       \
		{ ATTACH_KPROBE, NULL, { op "_entry_kprobe", op "_exit_kretprobe" }, { NULL }, { function } },   \
		{ ATTACH_TP_BTF, "syscalls", { "sys_" op "_enter_btf", "sys_" op "_exit_btf" }, { NULL } },      \
		{ ATTACH_RAW_TP, "syscalls", { "sys_" op "_enter_raw", "sys_" op "_exit_raw" }, { NULL } },      \
		{ ATTACH_TRACEPOINT, "syscalls", { "sys_" op "_enter_tp", "sys_" op "_exit_tp" }, { NULL } },    \
	}
#define NCANDIDATES 5

static const struct probe_candidate candidates[VFS_OPS][NCANDIDATES] = {
	[VFS_OP_READ] = VFS_CANDIDATES("read", "vfs_read"),
	[VFS_OP_WRITE] = VFS_CANDIDATES("write", "vfs_write"),
	[VFS_OP_FSYNC] = VFS_CANDIDATES("fsync", "vfs_fsync_range"),
	[VFS_OP_OPEN] = VFS_CANDIDATES("open", "vfs_open"),
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
	struct vfs_bpf *skel;
	uint32_t filter_tgid;
	unsigned int precision; /* of the histogram rows, hist_config_precision() */
	struct probe_point points[VFS_OPS];
	bool approximate[VFS_OPS];
	struct percpu_reader ops_reader, stats_reader;
	struct vfs_op_stats ops[VFS_OPS];
	uint64_t stats[VFS_STAT_COUNT];
	struct hist_tracker latency[VFS_OPS], bytes[VFS_OPS];
};

static const char *const option_names[] = { NULL };

static int vfs_create(struct module *m)
{
	struct vfs *v = calloc(1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int op = 0; op < VFS_OPS; op++)
		v->points[op] = (struct probe_point){ .name = op_names[op], .candidates = candidates[op],
						      .ncandidates = NCANDIDATES, .enabled = true, .chosen = -1 };
	m->priv = v;
	m->probes.points = v->points;
	m->probes.npoints = VFS_OPS;
	return 0;
}

static int vfs_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	return 0;
}

static struct bpf_object *open_object(void *ctx)
{
	struct vfs *v = ctx;

	v->skel = vfs_bpf__open();
	if (!v->skel)
		return NULL;
	v->skel->rodata->filter_tgid = v->filter_tgid;
	v->skel->rodata->hist_precision = v->precision;
	for (int op = 0; op < VFS_OPS; op++) {
		for (int i = 0; op_syscalls[op][i]; i++) {
			int nr = syscall_number(op_syscalls[op][i]);

			/* Not every architecture has every one (arm64 has no open or creat). */
			if (nr >= 0 && nr < VFS_SYSCALL_ROWS)
				v->skel->rodata->syscall_op[nr] = op + 1;
		}
	}
	return v->skel->obj;
}

static int load_object(void *ctx)
{
	struct vfs *v = ctx;

	return vfs_bpf__load(v->skel);
}

static void close_object(void *ctx)
{
	struct vfs *v = ctx;

	vfs_bpf__destroy(v->skel);
	v->skel = NULL;
}

static bool is_syscall_fallback(const struct probe_point *p)
{
	const struct probe_candidate *c = &p->candidates[p->chosen];

	return c->variant && !strcmp(c->variant, "syscalls");
}

/* Said once, at start: which operations are approximated and what that means. */
static void explain_approximations(struct module *m, struct vfs *v)
{
	for (int op = 0; op < VFS_OPS; op++) {
		char method[96], list[96] = "";
		size_t used = 0;

		v->approximate[op] = is_syscall_fallback(&v->points[op]);
		if (!v->approximate[op])
			continue;
		for (int i = 0; op_syscalls[op][i]; i++)
			text_appendf(list, sizeof(list), &used, "%s%s", i ? ", " : "", op_syscalls[op][i]);
		ebpf_log(EBPF_LOG_WARNING,
			 "%s: %s is an approximation: measured at the syscalls %s (%s) because %s; pipes "
			 "and sockets count too, kernel-internal calls do not (gauge-approximation-%s = 1)",
			 m->label, op_names[op], list, probe_point_method(&v->points[op], method, sizeof(method)),
			 v->points[op].failed ? "the VFS function could not be hooked (see the attach failures above)"
					      : "AttachOrder puts the syscalls first",
			 op_names[op]);
	}
}

static int vfs_start(struct module *m, char *err, size_t errlen)
{
	struct vfs *v = m->priv;
	struct probe_object po = { .ctx = v, .open = open_object, .load = load_object, .close = close_object };
	int e;

	v->filter_tgid = m->filter_tgid;
	v->precision = hist_config_precision(&m->hist, 2 * VFS_OPS);
	hist_tracker_init(v->latency, VFS_OPS, v->precision);
	hist_tracker_init(v->bytes, VFS_OPS, v->precision);
	if (probe_set_start(&m->probes, &po, err, errlen))
		return -1;
	e = percpu_reader_init(&v->ops_reader, bpf_map__fd(v->skel->maps.ops), VFS_OPS, sizeof(struct vfs_op_stats));
	if (!e)
		e = percpu_reader_init(&v->stats_reader, bpf_map__fd(v->skel->maps.stats), VFS_STAT_COUNT,
				       sizeof(uint64_t));
	if (e) {
		snprintf(err, errlen, "cannot set up map readers: %s", strerror(-e));
		return -1;
	}
	explain_approximations(m, v);
	return 0;
}

static int vfs_read(struct module *m, const struct metric_sink *sink)
{
	struct vfs *v = m->priv;
	int err;

	err = percpu_reader_read(&v->ops_reader, (uint64_t *)v->ops);
	if (!err)
		err = percpu_reader_read(&v->stats_reader, v->stats);
	if (err)
		return err;
	for (int op = 0; op < VFS_OPS; op++) {
		const struct vfs_op_stats *s = &v->ops[op];
		struct hist_interval h;

		if (s->calls)
			sink->counter(sink->ctx, "calls", op_names[op], s->calls);
		if (s->errors)
			sink->counter(sink->ctx, "errors", op_names[op], s->errors);
		hist_advance(&v->latency[op], (const uint64_t *)s->latency.slots, s->latency.sum, &h);
		if (h.total_count)
			sink->histogram(sink->ctx, "latency", op_names[op], HIST_UNIT_NANOSECONDS, &h);
		if (op == VFS_OP_READ || op == VFS_OP_WRITE) {
			hist_advance(&v->bytes[op], (const uint64_t *)s->bytes.slots, s->bytes.sum, &h);
			if (h.total_count)
				sink->histogram(sink->ctx, "bytes", op_names[op], HIST_UNIT_BYTES, &h);
		}
		/* Always sent: a 0 is the statement "this is the real VFS figure". */
		if (sink->gauge)
			sink->gauge(sink->ctx, "approximation", op_names[op], v->approximate[op] ? 1 : 0);
	}
	sink->counter(sink->ctx, "dropped", "start_lost", v->stats[VFS_STAT_START_LOST]);
	return 0;
}

static void vfs_destroy(struct module *m)
{
	struct vfs *v = m->priv;

	if (!v)
		return;
	probe_set_stop(&m->probes);
	if (v->skel)
		close_object(v);
	percpu_reader_free(&v->ops_reader);
	percpu_reader_free(&v->stats_reader);
	free(v);
	m->priv = NULL;
}

const struct module_ops vfs_module = {
	.name = "vfs",
	.description = "calls, errors, latency and bytes per call of VFS read, write, fsync and open",
	.in_default_set = false,
	.option_names = option_names,
	.create = vfs_create,
	.set_option = vfs_set_option,
	.start = vfs_start,
	.read = vfs_read,
	.destroy = vfs_destroy,
};
