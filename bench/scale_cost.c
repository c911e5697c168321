/* bench/scale_cost: what the modules' maps cost the kernel and what a read costs, for
 * configurations users run, in the layout before map_layout.h (every map per-CPU) and after
 * it, side by side in one run. Meant for a machine with many possible CPUs: `make
 * bench-scale` boots a Debian kernel under qemu with 256 possible CPUs (2 online) and runs
 * it there (tests/vm/bench-scale.sh); here it runs at this machine's CPUs.
 *
 * Configurations:
 *   default      what a bare `LoadPlugin ebpf` starts (the syscalls counters)
 *   latency-all  syscalls with `Latency "all"`
 *   contrib      contrib/ebpf.conf with every block uncommented (the modules' options of it;
 *                Percentile and Bucket are collectd's presentation and change no map)
 *   cgroups      syscalls `Latency "fsync" "fdatasync"` with `By "cgroup"`, `MaxSeries 50`
 *   disks        latency-all plus block with -d loop devices added (`-d 200`: 200 disks'
 *                worth of block rows), only with -d
 * Per configuration and layout: the maps the modules created, the bytes the kernel charges
 * for them (fdinfo memlock, the self-metric kernel_memory), the bytes planned before load
 * (memory_plan.h), and the CPU time of a whole read of every module (median of -R reads,
 * thread CPU clock, a few thousand syscalls made between reads so that rows change).
 *
 * Numbers only, never judged: exit 0 when it ran, 1 when it could not.
 */
#define _GNU_SOURCE
#include "bench/measure.h"
#include "bench/side_by_side.h"
#include "libcore/engine/map_layout.h"
#include "libcore/engine/memory_plan.h"
#include "libcore/engine/libbpf_log.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/privileges.h"
#include "base/err_max.h"

#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_READS 200

struct setting {
	const char *module, *key;
	const char *values[6];
};

/* contrib/ebpf.conf's options, every block uncommented (the configuration has every module of
 * the module table; these are the ones with options). */
static const struct setting contrib[] = {
	{ "syscalls", "Latency", { "fsync", "fdatasync", "sync", "syncfs" } },
	{ "tcp", "PortBreakdown", { "remote" } },
	{ "tcp", "Ports", { "80", "443", "5432" } },
	{ "block", "QueueTime", { "false" } },
	{ "runqueue", "PerCPU", { "false" } },
	{ "vfs", "AttachOrder", { "fentry", "kprobe", "tp_btf", "raw_tp", "tracepoint" } },
	{ "fs", "Filesystem", { "ext4", "xfs" } },
};
static const struct setting latency_all[] = { { "syscalls", "Latency", { "all" } } };
static const struct setting disks[] = { { "syscalls", "Latency", { "all" } }, { "block", NULL, { NULL } } };
static const struct setting def[] = { { "syscalls", NULL, { NULL } } };
static const struct setting cgroups[] = { { "syscalls", "Latency", { "fsync", "fdatasync" } },
					  { "syscalls", "By", { "cgroup" } },
					  { "syscalls", "MaxSeries", { "50" } } };

struct config {
	const char *name;
	const struct setting *settings;
	int n;
	bool every_module; /* every module of the table, the settings applied to theirs */
};

struct result {
	int modules, maps;
	uint64_t charged, planned;
	double read_us;
};

static double kernel_memory_sum;
static void no_counter(void *ctx, const struct metric_id *id, const char *instance, uint64_t v) {}
static void no_histogram(void *ctx, const struct metric_id *id, const char *instance, enum hist_unit unit,
			 const struct hist_interval *h) {}
static void on_gauge(void *ctx, const struct metric_id *id, const char *instance, double v)
{
	const char *metric = id->name;
	if (!strcmp(metric, "kernel_memory"))
		kernel_memory_sum += v;
}

static int set(struct module *m, const struct setting *s)
{
	struct opt_value v[6];
	struct option o = { .key = s->key, .values = v };
	char err[ERR_MAX];

	if (!s->key)
		return 0;
	for (int i = 0; i < 6 && s->values[i]; i++) {
		char *end;
		double d = strtod(s->values[i], &end);

		v[i] = *end || end == s->values[i] ? (struct opt_value){ .type = OPT_STRING, .string = s->values[i] }
						   : (struct opt_value){ .type = OPT_NUMBER, .number = d };
		if (!strcmp(s->values[i], "false"))
			v[i] = (struct opt_value){ .type = OPT_BOOLEAN, .boolean = false };
		o.nvalues++;
	}
	if (module_set_option(m, &o, err, sizeof(err))) {
		fprintf(stderr, "scale_cost: %s %s: %s\n", m->ops->name, s->key, err);
		return -1;
	}
	return 0;
}

/* Some syscalls between reads, so that rows change as on a live host. */
static void workload(void)
{
	int fd = open("/dev/null", O_WRONLY);

	for (int i = 0; i < 2000; i++) {
		getppid();
		if (fd >= 0 && write(fd, "x", 1) < 0)
			break;
	}
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Configuration c's modules, one per module name with every setting of c applied (with
 * every_module, first every module of the table), into mods (room for them all: the table's
 * size): their number, or -1. */
static int make_modules(const struct config *c, struct module **mods)
{
	int n = 0;

	for (int i = 0; c->every_module && module_table[i]; i++)
		if (!(mods[n++] = module_new(module_table[i], NULL)))
			return -1;
	for (int i = 0; i < c->n; i++) {
		struct module *m = NULL;

		for (int k = 0; k < n; k++)
			if (!strcmp(mods[k]->ops->name, c->settings[i].module))
				m = mods[k];
		if (!m) {
			m = module_new(module_find(c->settings[i].module), NULL);
			if (!m)
				return -1;
			mods[n++] = m;
		}
		if (set(m, &c->settings[i]))
			return -1;
	}
	return n;
}

/* Room for one module of each kind. */
static struct module **modules_room(void)
{
	int n = 0;

	while (module_table[n])
		n++;
	return calloc(n, sizeof(struct module *));
}

static int run(const struct config *c, bool before, int reads, struct result *r)
{
	struct module **mods = modules_room();
	struct metric_sink sink = { .counter = no_counter, .histogram = no_histogram, .gauge = on_gauge };
	double us[MAX_READS];
	int n, ncpus = libbpf_num_possible_cpus();

	memset(r, 0, sizeof(*r));
	if (!mods || (n = make_modules(c, mods)) < 0) {
		free(mods);
		return -1;
	}
	for (int k = 0; k < n; k++) {
		struct module_memory plan = { 0 };
		char err[ERR_MAX];

		mods[k]->layout.as_declared = before;

		if (module_plan_memory(mods[k], ncpus, &plan, err, sizeof(err)) == 0)
			r->planned += plan.bytes;
		if (module_start(mods[k])) {
			fprintf(stderr, "   (%s is off here: %.160s)\n", mods[k]->label, mods[k]->last_error);
			continue;
		}
		r->modules++;
		r->maps += plan.nmaps;
	}
	kernel_memory_sum = 0;
	for (int k = 0; k < n; k++)
		module_read(mods[k], &sink); /* the first read takes everything since attach */
	r->charged = (uint64_t)kernel_memory_sum;
	for (int i = 0; i < reads; i++) {
		uint64_t t0;

		workload();
		t0 = thread_cpu_ns();
		for (int k = 0; k < n; k++)
			module_read(mods[k], &sink);
		us[i] = (double)(thread_cpu_ns() - t0) / 1e3;
	}
	r->read_us = median(us, reads);
	for (int k = 0; k < n; k++)
		module_free(mods[k]);
	free(mods);
	return 0;
}

/* -P: what configuration c's modules would take at `cpus` possible CPUs, per module and map,
 * from the plan alone (nothing loads): the layout and block's precision budget as that
 * machine gets them (module_plan_memory's possible CPUs), the sizes as memory_plan.h computes them. A
 * module that cannot start here (the kfunc modules without kprobes or fentry) is still
 * planned with its first-choice maps, as a machine where it starts would plan it. */
static int plan_only(const struct config *c, int cpus)
{
	struct module **mods = modules_room();
	int n;
	uint64_t total = 0;

	if (!mods || (n = make_modules(c, mods)) < 0) {
		free(mods);
		return -1;
	}
	printf("\n   %s at %d possible CPUs, planned:\n", c->name, cpus);
	for (int k = 0; k < n; k++) {
		struct module_memory plan;
		char err[ERR_MAX];

		if (module_plan_memory(mods[k], cpus, &plan, err, sizeof(err))) {
			printf("     %-10s not planned: %.160s\n", mods[k]->ops->name, err);
			continue;
		}
		total += plan.bytes;
		printf("     %-10s %9.3f MB, precision %u", mods[k]->ops->name, plan.bytes / 1e6, plan.precision);
		if (plan.cgroup_hist_rows)
			printf(", per-cgroup precision %u", plan.cgroup_precision);
		printf(":");
		for (int j = 0; j < plan.nmaps; j++)
			printf(" %s %.3f%s", plan.maps[j].name, plan.maps[j].bytes / 1e6, plan.maps[j].percpu ? " (per-CPU)" : "");
		printf("\n");
	}
	printf("     total      %9.3f MB (%.2f MiB)\n", total / 1e6, total / 1048576.0);
	for (int k = 0; k < n; k++)
		module_free(mods[k]);
	free(mods);
	return 0;
}

/* Adds loop devices through /dev/loop-control (each shows in /sys/block, where block sizes
 * its table); returns how many, and their numbers in added[]. */
static int add_loops(int want, int *added)
{
	int ctl = open("/dev/loop-control", O_RDWR), n = 0;

	for (int i = 0; ctl >= 0 && n < want && i < 4096; i++) {
		int nr = ioctl(ctl, LOOP_CTL_ADD, 1000 + i);

		if (nr >= 0)
			added[n++] = nr;
	}
	if (ctl >= 0)
		close(ctl);
	return n;
}

static void remove_loops(const int *added, int n)
{
	int ctl = open("/dev/loop-control", O_RDWR);

	for (int i = 0; ctl >= 0 && i < n; i++)
		ioctl(ctl, LOOP_CTL_REMOVE, added[i]);
	if (ctl >= 0)
		close(ctl);
}

static void mb(uint64_t b, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f MB", b / 1e6);
}

int main(int argc, char **argv)
{
	struct config configs[] = {
		{ "default", def, COUNT_OF(def) },
		{ "latency-all", latency_all, COUNT_OF(latency_all) },
		{ "contrib", contrib, COUNT_OF(contrib), true },
		{ "cgroups", cgroups, COUNT_OF(cgroups) },
		{ "disks", disks, COUNT_OF(disks) },
	};
	int reads = 50, want_disks = 0, opt, nconfigs = 4, added[4096], nadded = 0, plan_cpus = 0;
	struct utsname u;

	while ((opt = getopt(argc, argv, "R:d:P:")) != -1) {
		switch (opt) {
		case 'R': reads = atoi(optarg); break;
		case 'd': want_disks = atoi(optarg); break;
		case 'P': plan_cpus = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-R reads] [-d loop devices to add for the disks configuration]\n"
					"       %s -P possible-CPUs   (the plans alone, per module and map, as at that many)\n",
				argv[0], argv[0]);
			return 2;
		}
	}
	if (reads < 1 || reads > MAX_READS || want_disks < 0 || want_disks > 4096) {
		fprintf(stderr, "scale_cost: -R 1..%d, -d 0..4096\n", MAX_READS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!privileges_sufficient() || access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "scale_cost: needs root (or CAP_BPF + CAP_PERFMON) and a kernel with BTF\n");
		return 1;
	}
	ebpf_log_set_handler(bench_quiet_log);
	ebpf_log_capture_libbpf();
	uname(&u);
	printf("collectd-ebpf scale_cost: kernel %s, %ld CPUs online, %d possible; %d reads per configuration\n",
	       u.release, sysconf(_SC_NPROCESSORS_ONLN), libbpf_num_possible_cpus(), reads);
	if (want_disks)
		nconfigs = 5;
	if (plan_cpus > 0) {
		for (int c = 0; c < 4; c++)
			if (plan_only(&configs[c], plan_cpus))
				return 1;
		return 0;
	}
	printf("\n   %-12s %-22s %7s %5s %13s %13s %12s\n", "config", "layout", "modules", "maps", "kernel memory",
	       "planned", "CPU per read");
	for (int c = 0; c < nconfigs; c++) {
		/* Only for the last configuration: the others see this machine's own disks. */
		if (!strcmp(configs[c].name, "disks")) {
			nadded = add_loops(want_disks, added);
			printf("   (disks: %d loop devices added of %d asked; block sizes its table from /sys/block)\n",
			       nadded, want_disks);
		}
		for (int before = 1; before >= 0; before--) {
			struct result r;
			char charged[32], planned[32];

			if (run(&configs[c], before, reads, &r)) {
				remove_loops(added, nadded);
				return 1;
			}
			mb(r.charged, charged, sizeof(charged));
			mb(r.planned, planned, sizeof(planned));
			printf("   %-12s %-22s %7d %5d %13s %13s %9.0f us\n", configs[c].name,
			       before ? "before: all per-CPU" : "after: map_layout.h", r.modules, r.maps, charged, planned,
			       r.read_us);
		}
	}
	remove_loops(added, nadded);
	printf("\n   kernel memory: fdinfo memlock of every map of the started modules (as bpftool prints it);\n"
	       "   planned: memory_plan.h's figure before load, for the same maps. CPU per read: every\n"
	       "   module's module_read(), median over the reads.\n");
	return 0;
}
