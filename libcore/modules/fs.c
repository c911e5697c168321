/* The `fs` module: latency distributions of read, write, open and fsync per filesystem
 * type, timed in each filesystem's own file operations (as ext4dist / xfsdist / fsdist).
 *
 *   <Module "fs">
 *     Filesystem "ext4" "xfs"      # default: the known ones listed in /proc/filesystems
 *   </Module>
 *
 * Filesystems are kernel functions only (no tracepoint covers them), so on a kernel
 * without fentry and kprobes the module says so once and stays off. With By "cgroup" also
 * the distributions per cgroup of the calling task. */
#include "libcore/engine/module.h"

#include "libcore/engine/module_cgroup.h"

#include "fs.h"
#include "fs.skel.h"

MODULE_SKELETON(fs);
#include "base/log.h"
#include "base/text_append.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define FS_MAX_ALTERNATES 2

/* The file_operations functions of each known filesystem, by operation; alternates for
 * renames. NFSv4 opens go through nfs4_file_open and are not timed (read, write and fsync
 * are shared with v2/v3). */
static const struct fs_type {
	const char *name;
	const char *functions[FS_OPS][FS_MAX_ALTERNATES + 1];
} fs_types[] = {
	{ "ext4", { { "ext4_file_read_iter" }, { "ext4_file_write_iter" }, { "ext4_file_open" }, { "ext4_sync_file" } } },
	{ "xfs", { { "xfs_file_read_iter" }, { "xfs_file_write_iter" }, { "xfs_file_open" }, { "xfs_file_fsync" } } },
	{ "btrfs",
	  { { "btrfs_file_read_iter" }, { "btrfs_file_write_iter" }, { "btrfs_file_open" }, { "btrfs_sync_file" } } },
	{ "nfs", { { "nfs_file_read" }, { "nfs_file_write" }, { "nfs_file_open" }, { "nfs_file_fsync" } } },
	{ "f2fs", { { "f2fs_file_read_iter" }, { "f2fs_file_write_iter" }, { "f2fs_file_open" }, { "f2fs_sync_file" } } },
};
#define NFS_TYPES (sizeof(fs_types) / sizeof(fs_types[0]))

static const char *const op_names[FS_OPS] = { "read", "write", "open", "fsync" };

/* Each slot's programs (bpf/fs.bpf.c, FS_SLOT), by slot and op (op_names' order):
 * fentry + fexit, then kprobe + kretprobe. */
#define FS_OP_PROGS(slot, op)                                                                    \
	{ PROG_NAME(fs##slot##_##op##_entry_fentry), PROG_NAME(fs##slot##_##op##_exit_fexit),         \
	  PROG_NAME(fs##slot##_##op##_entry_kprobe), PROG_NAME(fs##slot##_##op##_exit_kretprobe) }
#define FS_SLOT_PROGS(slot) \
	{ FS_OP_PROGS(slot, read), FS_OP_PROGS(slot, write), FS_OP_PROGS(slot, open), FS_OP_PROGS(slot, fsync) }
_Static_assert(FS_SLOTS == 4 && FS_OP_READ == 0 && FS_OP_WRITE == 1 && FS_OP_OPEN == 2 && FS_OP_FSYNC == 3,
	       "fs_progs lists the slots and ops of bpf/fs.bpf.c");
static const char *const fs_progs[FS_SLOTS][FS_OPS][4] = {
	FS_SLOT_PROGS(0), FS_SLOT_PROGS(1), FS_SLOT_PROGS(2), FS_SLOT_PROGS(3),
};

struct fs_point {
	char name[48];          /* "ext4 read" */
	struct probe_candidate candidates[2];
};

/* The probe points are built at run time (the filesystems are an option), so they live
 * here, not in the descriptor. */
struct fs {
	/* configuration: indexes into fs_types, -1 for none */
	int wanted[FS_SLOTS];
	int nwanted;
	/* slot s measures fs_types[slot_type[s]] (-1: unused) */
	int slot_type[FS_SLOTS];
	struct fs_point storage[FS_ROWS];
	struct probe_point points[FS_ROWS];
};

static const struct module_option options[] = { { "Filesystem" }, CGROUP_HIST_OPTION_KEYS, { NULL } };


/* Row slot * FS_OPS + op; "calls" is the latency histogram's count. */
static const struct view_field latency_fields[] = {
	{ "latency", VALUE_HISTOGRAM, 0, HIST_UNIT_NANOSECONDS, .count_metric = "calls" },
};

static const struct view_row stat_rows[] = {
	{ FS_STAT_START_LOST, "dropped", "start_lost", VIEW_ALWAYS },
};

/* "ext4-read", named at start (rows of unused slots have none and stay empty). */
static const struct view_label labels[] = { ROW_LABEL("filesystem_op") };

static const struct map_view views[] = {
	{ .map = MAP_NAME(latency), .shape = VIEW_PERCPU_ARRAY, .value_size = sizeof(struct hist_row), .nrows = FS_ROWS,
	  VIEW_LABELLED_FIELDS(labels, latency_fields) },
	{ VIEW_PERCPU_COUNTERS(MAP_NAME(stats), FS_STAT_COUNT, stat_rows) },
	MODULE_CGROUP_FULL_VIEW, /* samples whose cgroup found no room */
};

static const char *row_name(const struct module *m, uint32_t row, char *buf, size_t len);

/* By "cgroup": a distribution per (cgroup, filesystem and operation), named as the host-wide
 * row ("fs.<cgroup>/latency-ext4-read-99", "calls-ext4-read"); sized for one filesystem's four
 * operations per cgroup (a cgroup on two filesystems fills the shared table sooner). */
static const struct cgroup_table cgroup_tables[] = {
	{ .map = MAP_NAME(cgroup_latency), .hist_metric = "latency", .hist_count_metric = "calls", .unit = HIST_UNIT_NANOSECONDS,
	  .nrows = FS_ROWS, .rows_per_cgroup = FS_OPS, .row_instance = row_name, .row_label = "filesystem_op" },
};

static const char *fs_type_list(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NFS_TYPES; i++)
		text_appendf(buf, len, &used, "%s%s", i ? ", " : "", fs_types[i].name);
	return buf;
}

/* Every (slot, op) is a probe point whose programs exist in the object, also for unused
 * slots: a point that is not enabled keeps its programs unloaded. */
static void build_point(struct fs *f, int slot, int op)
{
	int row = slot * FS_OPS + op;
	struct fs_point *st = &f->storage[row];
	const char *const *progs = fs_progs[slot][op];

	st->candidates[0] = (struct probe_candidate){ .method = ATTACH_FENTRY, .progs = { progs[0], progs[1] } };
	st->candidates[1] = (struct probe_candidate){ .method = ATTACH_KPROBE, .progs = { progs[2], progs[3] } };
	snprintf(st->name, sizeof(st->name), "slot%d %s", slot, op_names[op]);
	f->points[row] = (struct probe_point){ .name = st->name, .candidates = st->candidates,
					       .ncandidates = COUNT_OF(st->candidates),
					       .chosen = -1 };
}

/* "ext4-read" for a row of a used slot, into buf; NULL for the others. */
static const char *row_name(const struct module *m, uint32_t row, char *buf, size_t len)
{
	const struct fs *f = m->priv;
	int type = row < FS_ROWS ? f->slot_type[row / FS_OPS] : -1;

	if (type < 0)
		return NULL;
	snprintf(buf, len, "%s-%s", fs_types[type].name, op_names[row % FS_OPS]);
	return buf;
}

static void fs_create(struct module *m)
{
	struct fs *f = m->priv;

	for (int s = 0; s < FS_SLOTS; s++) {
		f->slot_type[s] = -1;
		for (int op = 0; op < FS_OPS; op++)
			build_point(f, s, op);
	}
	m->probes.points = f->points;
	m->probes.npoints = FS_ROWS;
}

static int find_type(const char *name)
{
	for (size_t i = 0; i < NFS_TYPES; i++)
		if (!strcasecmp(fs_types[i].name, name))
			return (int)i;
	return -1;
}

static int set_filesystem(struct fs *f, const struct option *o, char *err, size_t errlen)
{
	char known[128];

	if (opt_expect_strings(o, 1, err, errlen))
		return -1;
	for (int i = 0; i < o->nvalues; i++) {
		int t = find_type(o->values[i].string);
		bool dup = false;

		if (t < 0) {
			snprintf(err, errlen, "Filesystem: \"%s\" is not a filesystem this module knows; known: %s",
				 o->values[i].string, fs_type_list(known, sizeof(known)));
			return -1;
		}
		for (int j = 0; j < f->nwanted; j++)
			dup |= f->wanted[j] == t;
		if (dup)
			continue;
		if (f->nwanted == FS_SLOTS) {
			snprintf(err, errlen, "Filesystem: at most %d filesystems per module; add a second "
				 "<Module \"fs\" \"other\"> block for more", FS_SLOTS);
			return -1;
		}
		f->wanted[f->nwanted++] = t;
	}
	return 0;
}

static int fs_set_option(struct module *m, const struct option *o, char *err, size_t errlen)
{
	return set_filesystem(m->priv, o, err, errlen); /* Filesystem: the one key not the engine's */
}

/* Whether /proc/filesystems lists `name` ("nodev\tnfs" or "\text4"). */
static bool fs_registered(const char *name)
{
	FILE *fp = fopen("/proc/filesystems", "re");
	char line[128];
	bool found = false;

	if (!fp)
		return true; /* cannot tell: let the attach decide */
	while (!found && fgets(line, sizeof(line), fp)) {
		char *tab = strrchr(line, '\t');
		char *fsname = tab ? tab + 1 : line;

		fsname[strcspn(fsname, "\n")] = '\0';
		found = !strcmp(fsname, name);
	}
	fclose(fp);
	return found;
}

/* Fills the slots with the configured filesystems (or every known one present), sets each
 * point's functions and name. Returns how many slots are in use. */
static int assign_slots(struct module *m, struct fs *f)
{
	int nslots = 0;

	for (size_t t = 0; t < NFS_TYPES && nslots < FS_SLOTS; t++) {
		bool configured = false;

		for (int j = 0; j < f->nwanted; j++)
			configured |= f->wanted[j] == (int)t;
		if (f->nwanted && !configured)
			continue;
		if (!fs_registered(fs_types[t].name)) {
			if (configured)
				ebpf_log(EBPF_LOG_WARNING,
					 "%s: filesystem %s is not in /proc/filesystems (not built in, module not "
					 "loaded): not measured; load it (modprobe %s) and restart",
					 m->label, fs_types[t].name, fs_types[t].name);
			continue;
		}
		f->slot_type[nslots] = (int)t;
		for (int op = 0; op < FS_OPS; op++) {
			struct fs_point *st = &f->storage[nslots * FS_OPS + op];

			for (int c = 0; c < 2; c++)
				for (int a = 0; a < FS_MAX_ALTERNATES + 1; a++)
					st->candidates[c].targets[a] = fs_types[t].functions[op][a];
			snprintf(st->name, sizeof(st->name), "%s %s", fs_types[t].name, op_names[op]);
			f->points[nslots * FS_OPS + op].enabled = true;
		}
		nslots++;
	}
	return nslots;
}

static int fs_prepare(struct module *m, char *err, size_t errlen)
{
	struct fs *f = m->priv;
	char known[128];

	if (assign_slots(m, f) == 0) {
		snprintf(err, errlen,
			 "none of the filesystems to measure is registered in /proc/filesystems (known: %s); "
			 "mount or load one, or list present ones with Filesystem",
			 fs_type_list(known, sizeof(known)));
		return -1;
	}
	return 0;
}

/* "ext4-read" for each row of a used slot. */
static int fs_start(struct module *m, char *err, size_t errlen)
{
	char texts[FS_ROWS][48];
	const char *names[FS_ROWS] = { NULL };

	for (uint32_t row = 0; row < FS_ROWS; row++)
		names[row] = row_name(m, row, texts[row], sizeof(texts[row]));
	return view_label_names(m, 0, 0, names, FS_ROWS, err, errlen);
}

const struct module_ops fs_module = {
	.name = "fs",
	.description = "latency of read, write, open and fsync per filesystem type (ext4, xfs, btrfs, nfs, f2fs); "
		       "optionally per cgroup",
	.options = options,
	.priv_size = sizeof(struct fs),
	.elf_bytes = fs_bpf__elf_bytes,
	.views = views,
	.nviews = COUNT_OF(views),
	MODULE_CGROUP_TABLES(cgroup_tables, NULL),
	.by_command = true,
	.create = fs_create,
	.set_option = fs_set_option,
	.prepare = fs_prepare,
	.start = fs_start,
};
