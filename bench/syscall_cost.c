/* bench/syscall_cost: what the `syscalls` module costs, side by side in one run.
 *
 *   1. ns per syscall of a getppid() loop with nothing, empty BPF programs, the module and
 *      bpftrace attached; configurations interleaved over rounds, medians, and the module's
 *      added cost as a ratio to the empty programs' (the targets: 1.2x, 3x);
 *   2. CPU time of one module_read() with latency for every syscall and a workload running;
 *   3. module_start() time: open, load, attach;
 *   4. VmRSS before and after starting each module.
 * Sections 1 and 3 live here (the rounds of 1 time the starts), 2 and 4 in module_costs.c.
 *
 * It prints numbers and the targets and never judges them: timings depend on the machine,
 * so a threshold here would only make the bench flaky. Exit 0 when it ran, 1 when it could
 * not (not root, no BTF, a module would not start).
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include "bench/bpftrace_child.h"
#include "bench/empty.skel.h"
#include "bench/measure.h"
#include "bench/module_costs.h"
#include "bench/side_by_side.h"
#include "base/log.h"
#include "libcore/engine/cost_control.h"
#include "libcore/engine/libbpf_log.h"
#include "libcore/engine/map_layout.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/privileges.h"
#include "base/err_max.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The bpftrace one-liner, plus a BEGIN line: bpftrace prints "Attaching N probes"
 * before it attaches, but BEGIN's printf only reaches us once it polls, after attaching. */
static const char bpftrace_script[] =
	"BEGIN { printf(\"ready\\n\"); }"
	" tracepoint:raw_syscalls:sys_enter { @s[tid] = nsecs; }"
	" tracepoint:raw_syscalls:sys_exit /@s[tid]/ { @h[args->id] = hist(nsecs - @s[tid]); delete(@s[tid]); }";

/* In print order. Letters are the issue's; i, j, h and k are the map layouts of
 * libcore/engine/map_layout.h side by side with the layout this machine gets. */
enum cfg {
	NO_PROBE, EMPTY_EXIT, COUNTERS, COUNTERS_PERCPU, COUNTERS_MANY, COUNTERS_CGROUP, COUNTERS_COMMAND,
	COUNTERS_WITNESS, EMPTY_PAIR, LATENCY_ALL, LATENCY_ALL_PERCPU, LATENCY_ALL_MANY, LATENCY_ALL_LOG2,
	LATENCY_ALL_CGROUP, LATENCY_ALL_COMMAND, LATENCY_ALL_WITNESS, LATENCY_ALL_SAMPLED, BPFTRACE, NCFG
};

static const struct {
	char letter;
	const char *label;
	int baseline;      /* ratio of added cost to this config's, -1: none */
	const char *target;
	int before;        /* "vs before": added cost over this config's (every map per-CPU), -1: none */
	int which;         /* start_module's: 0 counters, 1 latency all, 2 latency all at precision 0 */
	enum bench_layout layout;
	const char *by;    /* By "cgroup" or "command" (MaxSeries 10): "vs before" is then the same without it */
	bool witness;      /* Witness true (witness.h): "vs before" is then the same without it */
	unsigned int shift; /* Latency sampled 1 in 2^shift, as the cost governor does (cost_control.h) */
	const char *before_target; /* issue 44's target for "vs before" (By "cgroup", By "command") */
} cfgs[NCFG] = {
	[NO_PROBE] = { 'a', "no probe", -1, "", -1, -1, LAYOUT_HERE },
	[EMPTY_EXIT] = { 'b', "empty tp_btf sys_exit", -1, "", -1, -1, LAYOUT_HERE },
	[COUNTERS] = { 'c', "syscalls: counters only", EMPTY_EXIT, "<= 1.2", COUNTERS_PERCPU, 0, LAYOUT_HERE },
	/* The layout before map_layout.h: every map per-CPU. */
	[COUNTERS_PERCPU] = { 'i', "  same, every map per-CPU (before)", EMPTY_EXIT, "", -1, 0, LAYOUT_BEFORE },
	/* As laid out at 256 possible CPUs: the 512-row count table shared. */
	[COUNTERS_MANY] = { 'j', "  same, layout at 256 CPUs", EMPTY_EXIT, "", COUNTERS_PERCPU, 0, LAYOUT_MANY_CPUS },
	/* By "cgroup": every syscall also adds to its cgroup's row of a shared hash. */
	[COUNTERS_CGROUP] = { 'l', "  same, By \"cgroup\"", EMPTY_EXIT, "", COUNTERS, 0, LAYOUT_HERE, "cgroup",
			      .before_target = "<= 1.2" },
	/* By "command": the same hash, keyed by the task's comm instead (issue 44: at most 1.3x). */
	[COUNTERS_COMMAND] = { 'p', "  same, By \"command\"", EMPTY_EXIT, "", COUNTERS, 0, LAYOUT_HERE,
			       "command", .before_target = "<= 1.3" },
	/* Witness true: sys_exit runs one more program, which counts every firing. */
	[COUNTERS_WITNESS] = { 'n', "  same, Witness true", EMPTY_EXIT, "", COUNTERS, 0, LAYOUT_HERE, NULL, true },
	[EMPTY_PAIR] = { 'e', "empty tp_btf sys_enter+sys_exit", -1, "", -1, -1, LAYOUT_HERE },
	[LATENCY_ALL] = { 'd', "syscalls: counters + latency all", EMPTY_PAIR, "<= 3", LATENCY_ALL_PERCPU, 1,
			  LAYOUT_HERE },
	[LATENCY_ALL_PERCPU] = { 'h', "  same, every map per-CPU (before)", EMPTY_PAIR, "", -1, 1, LAYOUT_BEFORE },
	[LATENCY_ALL_MANY] = { 'k', "  same, layout at 256 CPUs", EMPTY_PAIR, "", LATENCY_ALL_PERCPU, 1,
			       LAYOUT_MANY_CPUS },
	/* The log2 slots of Precision 0 (the only layout before log-linear), side by side with the default log-linear ones. */
	[LATENCY_ALL_LOG2] = { 'g', "  same, Precision 0 (log2)", EMPTY_PAIR, "", -1, 2, LAYOUT_HERE },
	[LATENCY_ALL_CGROUP] = { 'm', "  same, By \"cgroup\"", EMPTY_PAIR, "", LATENCY_ALL, 1, LAYOUT_HERE, "cgroup",
				 .before_target = "<= 1.2" },
	[LATENCY_ALL_COMMAND] = { 'q', "  same, By \"command\"", EMPTY_PAIR, "", LATENCY_ALL, 1, LAYOUT_HERE,
				  "command", .before_target = "<= 1.3" },
	[LATENCY_ALL_WITNESS] = { 'o', "  same, Witness true", EMPTY_PAIR, "", LATENCY_ALL, 1, LAYOUT_HERE, NULL,
				  true },
	/* Sampled 1 in 4 as the cost governor sets it over CpuBudget: "vs before" is unsampled d. */
	[LATENCY_ALL_SAMPLED] = { 'r', "  same, sampled 1 in 4 (CpuBudget)", EMPTY_PAIR, "", LATENCY_ALL, 1,
				  LAYOUT_HERE, false, false, 2 },
	[BPFTRACE] = { 'f', "bpftrace enter/exit hist", EMPTY_PAIR, "", -1, -1, LAYOUT_HERE },
};

struct opts {
	int rounds, batches, reads;
	long calls;
	int cpu; /* the bench runs pinned here; workloads go elsewhere */
	int other_cpu;
};

struct bench {
	struct opts o;
	struct empty_bpf *empty;
	struct bpf_link *links[2];
	struct module *mod;
	struct bpftrace_child bt;
	const char *bpftrace; /* NULL: left out */
	char bpftrace_why[ERR_MAX];
	char method[3][64];   /* attach method the module chose: counters, latency all, log2 */
	char layout[NCFG][96]; /* how each configuration's array maps were laid out */
	double start_ms[4][SBS_MAX_ROUNDS];
	struct side_by_side sbs; /* section 1's rounds and results */
};

/* Starts b->mod for configuration c (cfgs[c].which: 0 counters, 1 latency all, 2 latency
 * all at precision 0; in cfgs[c].layout); its module_start() wall time goes to *ms. */
static int start_module(struct bench *b, enum cfg c, double *ms)
{
	int which = cfgs[c].which;
	bool latency_all = which > 0;
	uint64_t t0;

	b->mod = new_syscalls(latency_all, which == 2 ? 0 : -1);
	if (!b->mod)
		return -1;
	if (cfgs[c].by &&
	    (bench_set_option(b->mod, "By", (struct opt_value){ .type = OPT_STRING, .string = cfgs[c].by }) ||
	     bench_set_option(b->mod, "MaxSeries", (struct opt_value){ .type = OPT_NUMBER, .number = 10 })))
		return -1;
	if (cfgs[c].witness &&
	    bench_set_option(b->mod, "Witness", (struct opt_value){ .type = OPT_BOOLEAN, .boolean = true }))
		return -1;
	t0 = now_ns();
	if (bench_start_in_layout(b->mod, cfgs[c].layout)) {
		fprintf(stderr, "syscalls module (%s) did not start: %s\n", cfgs[c].label, b->mod->last_error);
		return -1;
	}
	*ms = (double)(now_ns() - t0) / 1e6;
	if (cfgs[c].shift && cost_control_sample(b->mod, cfgs[c].shift)) {
		fprintf(stderr, "syscalls module (%s): cannot set its sampling\n", cfgs[c].label);
		return -1;
	}
	module_methods(b->mod, b->method[which], sizeof(b->method[0]));
	module_layout(b->mod, b->layout[c], sizeof(b->layout[c]));
	return 0;
}

static int attach_prog(struct bench *b, int i, struct bpf_program *p)
{
	b->links[i] = bpf_program__attach(p);
	if (!b->links[i]) {
		fprintf(stderr, "attaching %s: %s\n", bpf_program__name(p), strerror(errno));
		return -1;
	}
	return 0;
}

static int attach(void *ctx, int cfg, int round)
{
	struct bench *b = ctx;
	enum cfg c = (enum cfg)cfg;

	switch (c) {
	case EMPTY_EXIT:
		return attach_prog(b, 0, b->empty->progs.empty_exit) ? SBS_FAILED : SBS_ATTACHED;
	case EMPTY_PAIR:
		return attach_prog(b, 0, b->empty->progs.empty_enter) ||
		       attach_prog(b, 1, b->empty->progs.empty_exit) ? SBS_FAILED : SBS_ATTACHED;
	case COUNTERS:
		return start_module(b, c, &b->start_ms[0][round]) ? SBS_FAILED : SBS_ATTACHED;
	case LATENCY_ALL:
		return start_module(b, c, &b->start_ms[1][round]) ? SBS_FAILED : SBS_ATTACHED;
	case COUNTERS_PERCPU:
	case COUNTERS_MANY:
	case COUNTERS_CGROUP:
	case COUNTERS_COMMAND:
	case COUNTERS_WITNESS:
	case LATENCY_ALL_CGROUP:
	case LATENCY_ALL_COMMAND:
	case LATENCY_ALL_WITNESS:
	case LATENCY_ALL_SAMPLED:
	case LATENCY_ALL_PERCPU:
	case LATENCY_ALL_MANY:
		return start_module(b, c, &b->start_ms[3][round]) ? SBS_FAILED : SBS_ATTACHED;
	case LATENCY_ALL_LOG2:
		return start_module(b, c, &b->start_ms[2][round]) ? SBS_FAILED : SBS_ATTACHED;
	case BPFTRACE:
		/* On failure leave bpftrace out rather than fail the bench. */
		if (!b->bpftrace)
			return SBS_LEFT_OUT;
		if (bpftrace_start(&b->bt, b->bpftrace, bpftrace_script, 30000, b->bpftrace_why,
				   sizeof(b->bpftrace_why))) {
			b->bpftrace = NULL;
			return SBS_LEFT_OUT;
		}
		return SBS_ATTACHED;
	case NO_PROBE:
	case NCFG:
		break;
	}
	return SBS_ATTACHED;
}

/* Safe whatever attach() got to. */
static void detach(void *ctx)
{
	struct bench *b = ctx;

	for (int i = 0; i < 2; i++) {
		bpf_link__destroy(b->links[i]);
		b->links[i] = NULL;
	}
	module_free(b->mod);
	b->mod = NULL;
	bpftrace_stop(&b->bt);
}

static double getppid_batch(void *ctx)
{
	return syscall_loop_ns(((struct bench *)ctx)->o.calls);
}

static int run_rounds(struct bench *b)
{
	static const char *const syscall_tps[] = { "sys_enter", "sys_exit", NULL };

	b->sbs = (struct side_by_side){ .ncfg = NCFG, .rounds = b->o.rounds, .batches = b->o.batches,
					.tracepoints = syscall_tps, .ctx = b, .batch = getppid_batch,
					.attach = attach, .detach = detach };
	b->sbs.left_out[BPFTRACE] = !b->bpftrace;
	return sbs_run(&b->sbs);
}

static void print_cost_table(const struct bench *b)
{
	int n = b->o.rounds;
	const double(*ns)[SBS_MAX_ROUNDS] = b->sbs.ns, (*added_ns)[SBS_MAX_ROUNDS] = b->sbs.added;

	printf("\n1. Cost per syscall: getppid() loop, %d rounds x %d batches x %ld calls. Each round\n"
	       "   takes the fastest batch; shown: the median of the rounds, and min .. max over rounds.\n"
	       "   added ns: over no-probe batches run just before each measurement, median of the rounds\n\n",
	       n, b->o.batches, b->o.calls);
	printf("   %-36s %10s  %16s  %8s  %12s  %-7s  %s\n", "config", "ns/syscall", "min .. max", "added ns",
	       "ratio", "target", "vs before");
	for (int c = 0; c < NCFG; c++) {
		double v, added;

		if (b->sbs.left_out[c])
			continue;
		v = median(ns[c], n);
		added = median(added_ns[c], n);
		printf("   %c  %-33s %10.1f  %6.1f .. %6.1f", cfgs[c].letter, cfgs[c].label, v, min_of(ns[c], n),
		       max_of(ns[c], n));
		if (c == NO_PROBE) {
			printf("  %8s  %12s\n", "-", "-");
			continue;
		}
		printf("  %8.1f", added);
		if (cfgs[c].baseline >= 0) {
			double base_added = median(added_ns[cfgs[c].baseline], n);

			/* Noise can put an empty program's added cost at or below zero: no ratio then. */
			if (base_added > 0)
				printf("  %6.2fx vs %c", added / base_added, cfgs[cfgs[c].baseline].letter);
			else
				printf("  %7s vs %c", "n/a", cfgs[cfgs[c].baseline].letter);
			printf("  %-7s", cfgs[c].target);
		} else {
			printf("  %12s  %-7s", "-", "");
		}
		if (cfgs[c].before >= 0) {
			double before_added = median(added_ns[cfgs[c].before], n);

			if (before_added > 0)
				printf("  %5.2fx vs %c", added / before_added, cfgs[cfgs[c].before].letter);
			else
				printf("  %6s vs %c", "n/a", cfgs[cfgs[c].before].letter);
			if (cfgs[c].before_target)
				printf("  %s", cfgs[c].before_target);
		}
		printf("\n");
	}
	printf("\n   ratio = added ns / the empty baseline's added ns. The module attached via %s (counters)\n"
	       "   and %s (latency); the empty programs are tp_btf.\n",
	       b->method[0], b->method[1]);
	printf("   vs before = added ns / that of the same module with every map per-CPU, the layout before\n"
	       "   libcore/engine/map_layout.h; for l and m (By \"cgroup\", MaxSeries 10; issue 44's target\n"
	       "   <= 1.2x vs before), p and q (By \"command\", MaxSeries 10; <= 1.3x) and n and o\n"
	       "   (Witness true) / that of the same module without it (c, d); for r (Latency sampled 1 in\n"
	       "   4, as the cost governor sets it over CpuBudget) / that of d, unsampled. The maps, as each\n"
	       "   configuration laid them out:\n");
	for (int c = 0; c < NCFG; c++)
		if (b->layout[c][0])
			printf("     %c  %s\n", cfgs[c].letter, b->layout[c]);
	if (b->sbs.left_out[BPFTRACE])
		printf("   bpftrace: %s\n", b->bpftrace_why);
}

/* ---- 3. start time ------------------------------------------------------------------------- */

static void print_start_times(const struct bench *b)
{
	int n = b->o.rounds;

	printf("\n3. Open-to-attach time: module_start() (open, load, attach), median of %d starts\n\n", n);
	printf("   counters only:        %6.1f ms (max %.1f)   (target <= 50 ms)\n", median(b->start_ms[0], n),
	       max_of(b->start_ms[0], n));
	printf("   counters + latency:   %6.1f ms (max %.1f)   (target <= 50 ms)\n", median(b->start_ms[1], n),
	       max_of(b->start_ms[1], n));
}

/* ---- setup ------------------------------------------------------------------------------- */

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-r rounds] [-b batches] [-n calls per batch] [-R reads] [-T]\n"
		"  -T  leave bpftrace out\n", argv0);
	exit(2);
}

static void parse_opts(int argc, char **argv, struct opts *o, bool *no_bpftrace)
{
	int c;

	*o = (struct opts){ .rounds = 7, .batches = 40, .calls = 5000, .reads = 200 };
	while ((c = getopt(argc, argv, "r:b:n:R:T")) != -1) {
		switch (c) {
		case 'r': o->rounds = atoi(optarg); break;
		case 'b': o->batches = atoi(optarg); break;
		case 'n': o->calls = atol(optarg); break;
		case 'R': o->reads = atoi(optarg); break;
		case 'T': *no_bpftrace = true; break;
		default: usage(argv[0]);
		}
	}
	if (o->rounds < 1 || o->rounds > SBS_MAX_ROUNDS || o->batches < 1 || o->batches > SBS_MAX_BATCHES ||
	    o->calls < 1000 || o->reads < 1)
		usage(argv[0]);
}

int main(int argc, char **argv)
{
	static struct bench b; /* large: per-round samples */
	bool no_bpftrace = false;
	struct utsname u;
	struct rss rss[RSS_CASES];
	int rc = 1;

	parse_opts(argc, argv, &b.o, &no_bpftrace);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!privileges_sufficient()) {
		fprintf(stderr, "syscall_cost: needs root (or CAP_BPF + CAP_PERFMON) to load BPF programs: sudo make bench\n");
		return 1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "syscall_cost: the kernel has no BTF (/sys/kernel/btf/vmlinux); tp_btf cannot load\n");
		return 1;
	}
	ebpf_log_set_handler(bench_quiet_log);
	ebpf_log_capture_libbpf();
	b.bt.pid = b.bt.out = -1;
	b.bpftrace = no_bpftrace ? NULL : bpftrace_find("raw_syscalls", b.bpftrace_why, sizeof(b.bpftrace_why));
	if (no_bpftrace)
		snprintf(b.bpftrace_why, sizeof(b.bpftrace_why), "left out (-T)");
	choose_cpus(&b.o.cpu, &b.o.other_cpu);
	pin_to_cpu(b.o.cpu);
	uname(&u);
	printf("collectd-ebpf syscall_cost: kernel %s %s, %ld CPUs online, bench pinned to CPU %d\n", u.release,
	       u.machine, sysconf(_SC_NPROCESSORS_ONLN), b.o.cpu);

	/* First, while this process has loaded nothing; printed last. */
	for (int i = 0; i < RSS_CASES; i++)
		rss[i] = rss_of_start(i & 1, i & 2);

	b.empty = empty_bpf__open_and_load();
	if (!b.empty) {
		fprintf(stderr, "loading bench/empty.bpf.o: %s\n", strerror(errno));
		return 1;
	}
	if (run_rounds(&b))
		goto out;
	print_cost_table(&b);
	if (read_cost(b.o.reads, b.o.other_cpu))
		goto out;
	print_start_times(&b);
	print_rss(rss);
	sbs_warn_foreign(&b.sbs, "sys_enter/sys_exit during section 1");
	rc = 0;
out:
	detach(&b);
	empty_bpf__destroy(b.empty);
	return rc;
}
