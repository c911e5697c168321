/* bench/cost_window: what the cost value costs and how honest it is, side by side in one run.
 *
 *   1. ns per getppid() with the syscalls module (counters only) on each attach method
 *      (AttachOrder tp_btf, raw_tp, tracepoint), with Latency "all", and with an empty
 *      tp_btf program, each with the kernel's BPF run-time statistics off (the cost window
 *      closed: what the module costs between windows) and on (a window open, or CollectCost
 *      true); with them on, the programs' run_time_ns per event. From these: the tax of the
 *      statistics per event, the duty cycle's tax (1/CostPeriod of that), and the attach
 *      overhead (added ns with the statistics off less run_time_ns per event, per hit of an
 *      attach point) that libcore/engine/cost_window.c's table adds once a hit; also as a ratio.
 *   2. The module's own cpu_cost against the bench's figure for the same workload: a
 *      getppid() loop for 10 s with the module read every second at CostPeriod 3 (a window
 *      of one read interval in three); the bench's figure is section 1's added ns
 *      (statistics off) times the loop's syscalls per second.
 *
 * Prints numbers, never judges them. Exit 0 when it ran, 1 when it could not.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include "bench/empty.skel.h"
#include "bench/measure.h"
#include "bench/module_costs.h"
#include "bench/side_by_side.h"
#include "base/log.h"
#include "libcore/engine/cost_window.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/prog_stats.h"
#include "tests/support/recording_sink.h"
#include "base/err_max.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Pairs: even the statistics off, odd on. */
enum cfg {
	NO_PROBE,
	TP_BTF, TP_BTF_STATS, RAW_TP, RAW_TP_STATS, TRACEPOINT, TRACEPOINT_STATS,
	LATENCY, LATENCY_STATS, EMPTY, EMPTY_STATS, NCFG
};

static const struct {
	const char *label;
	const char *method; /* AttachOrder; NULL: the module's own order */
	bool latency, empty, stats;
} cfgs[NCFG] = {
	[NO_PROBE] = { "no probe" },
	[TP_BTF] = { "counters, tp_btf", "tp_btf" },
	[TP_BTF_STATS] = { "  same, statistics on", "tp_btf", .stats = true },
	[RAW_TP] = { "counters, raw_tp", "raw_tp" },
	[RAW_TP_STATS] = { "  same, statistics on", "raw_tp", .stats = true },
	[TRACEPOINT] = { "counters, tracepoint", "tracepoint" },
	[TRACEPOINT_STATS] = { "  same, statistics on", "tracepoint", .stats = true },
	[LATENCY] = { "counters + latency all (tp_btf)", NULL, .latency = true },
	[LATENCY_STATS] = { "  same, statistics on", NULL, .latency = true, .stats = true },
	[EMPTY] = { "empty tp_btf sys_exit", NULL, .empty = true },
	[EMPTY_STATS] = { "  same, statistics on", NULL, .empty = true, .stats = true },
};

struct bench {
	int rounds, batches;
	long calls;
	struct empty_bpf *empty;
	struct bpf_link *link;
	struct module *mod;
	int stats_fd;
	int cfg;
	uint64_t t0_runs, t0_ns; /* at attach */
	/* per config, per round: run_time_ns per event with the statistics on */
	double ns_per_event[NCFG][SBS_MAX_ROUNDS];
	int round;
	struct side_by_side sbs;
};

struct sums {
	uint64_t runs, ns;
	int progs;
};

static void add_prog(void *ctx, const struct prog_stats *s)
{
	struct sums *t = ctx;

	t->runs += s->runs;
	t->ns += s->run_time_ns;
	t->progs += s->runs > 0;
}

static struct sums sums_of(const struct bench *b)
{
	struct sums s = { 0 };

	if (b->mod)
		bpf_object_prog_stats(b->mod->obj, add_prog, &s);
	else if (b->link) {
		struct bpf_prog_info info = { 0 };
		uint32_t len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(bpf_program__fd(b->empty->progs.empty_exit), &info, &len))
			s = (struct sums){ .runs = info.run_cnt, .ns = info.run_time_ns, .progs = 1 };
	}
	return s;
}

static int set_option(struct module *m, const char *key, const char *value)
{
	return bench_set_option(m, key, (struct opt_value){ .type = OPT_STRING, .string = value });
}

static int attach(void *ctx, int c, int round)
{
	struct bench *b = ctx;
	struct sums s;

	b->cfg = c;
	b->round = round;
	if (cfgs[c].stats) {
		b->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (b->stats_fd < 0) {
			fprintf(stderr, "bpf_enable_stats: %s (needs CAP_SYS_ADMIN)\n", strerror(errno));
			return SBS_FAILED;
		}
	}
	if (cfgs[c].empty) {
		b->link = bpf_program__attach(b->empty->progs.empty_exit);
		if (!b->link)
			return SBS_FAILED;
	} else {
		b->mod = new_syscalls(cfgs[c].latency, -1);
		if (!b->mod || (cfgs[c].method && set_option(b->mod, "AttachOrder", cfgs[c].method)))
			return SBS_FAILED;
		if (bench_start_in_layout(b->mod, LAYOUT_HERE)) {
			fprintf(stderr, "syscalls (%s) did not start: %s\n", cfgs[c].label, b->mod->last_error);
			return SBS_FAILED;
		}
	}
	s = sums_of(b);
	b->t0_runs = s.runs;
	b->t0_ns = s.ns;
	return SBS_ATTACHED;
}

static void detach(void *ctx)
{
	struct bench *b = ctx;

	if ((b->mod || b->link) && b->stats_fd >= 0) {
		struct sums s = sums_of(b);

		/* every program of the module runs once per syscall: runs / programs = events */
		if (s.runs > b->t0_runs && s.progs)
			b->ns_per_event[b->cfg][b->round] =
				(double)(s.ns - b->t0_ns) / ((double)(s.runs - b->t0_runs) / s.progs);
	}
	bpf_link__destroy(b->link);
	b->link = NULL;
	module_free(b->mod);
	b->mod = NULL;
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	b->stats_fd = -1;
}

static double getppid_batch(void *ctx)
{
	return syscall_loop_ns(((struct bench *)ctx)->calls);
}

static double added(const struct bench *b, int c)
{
	return median(b->sbs.added[c], b->rounds);
}

/* Section 1's table; the ratios go to ratio[] (per method: TP_BTF, RAW_TP, TRACEPOINT). */
static void print_section1(const struct bench *b)
{
	printf("\n1. Cost per getppid(), %d rounds x %d batches x %ld calls (each round its fastest batch;\n"
	       "   medians of the rounds). added ns: over no-probe batches run just before.\n\n",
	       b->rounds, b->batches, b->calls);
	printf("   %-34s %10s %16s %9s %12s\n", "config", "ns/syscall", "min .. max", "added ns", "run_time ns");
	for (int c = 0; c < NCFG; c++) {
		int n = b->rounds;

		printf("   %-34s %10.1f %7.1f .. %6.1f", cfgs[c].label, median(b->sbs.ns[c], n), min_of(b->sbs.ns[c], n),
		       max_of(b->sbs.ns[c], n));
		if (c == NO_PROBE)
			printf(" %9s\n", "-");
		else if (cfgs[c].stats)
			printf(" %9.1f %12.1f\n", added(b, c), median(b->ns_per_event[c], n));
		else
			printf(" %9.1f\n", added(b, c));
	}
	printf("\n   %-34s %9s %9s %8s %16s %9s %8s\n", "per event", "stats off", "stats on", "tax ns", "duty-cycled tax",
	       "overhead", "ratio");
	for (int c = TP_BTF; c < NCFG; c += 2) {
		double off = added(b, c), on = added(b, c + 1), rt = median(b->ns_per_event[c + 1], b->rounds);
		double duty = (on - off) / COST_PERIOD_DEFAULT;
		int hits = cfgs[c].latency ? 2 : 1; /* sys_exit; with Latency sys_enter too */

		printf("   %-34s %9.1f %9.1f %8.1f %7.2f ns %5.1f%% %9.1f %7.2fx\n", cfgs[c].label, off, on, on - off, duty,
		       off > 0 ? 100 * duty / off : 0, (off - rt) / hits, rt > 0 ? off / rt : 0);
	}
	printf("\n   stats on: the kernel's BPF run-time statistics held (bpf_enable_stats), as inside a cost\n"
	       "   window or with CollectCost true. tax = on - off. duty-cycled tax: 1/CostPeriod (1/%d) of\n"
	       "   the tax, in ns and as a share of the module's own cost (stats off). overhead: added ns\n"
	       "   (stats off) less run_time_ns per event (stats on), per hit of an attach point (sys_exit;\n"
	       "   with Latency sys_enter too, one program at each): what the point costs beyond what\n"
	       "   the kernel counts (libcore/engine/cost_window.c's table adds\n"
	       "   it once a hit; it has %.0f ns for tp_btf on them); ratio: added ns over run_time_ns.\n",
	       COST_PERIOD_DEFAULT, attach_overhead_ns(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, "tp_btf/sys_exit"));
}

/* ---- 2. reported against measured -------------------------------------------------------- */

static int reported_vs_measured(const struct bench *b, bool latency, double added_ns)
{
	struct module *m = new_syscalls(latency, -1);
	struct recording r = { 0 };
	double reported[16], measured[16];
	int n = 0;

	if (bench_start_cost_windows(m, "syscalls", 3))
		return -1;
	recording_read(&r, m);
	for (int i = 0; i < 10; i++) {
		uint64_t t0 = now_ns(), calls = 0;
		double pct;

		while (now_ns() - t0 < 1000000000ull) {
			syscall_loop_ns(b->calls);
			calls += (uint64_t)b->calls;
		}
		recording_read(&r, m);
		if (recorded_gauge(&r, "cpu_cost", "", &pct) && n < 16) {
			reported[n] = pct;
			measured[n] = added_ns * (double)calls / ((double)(now_ns() - t0) / 1e9) / 1e7;
			n++;
		}
	}
	cost_window_stop();
	recording_free(&r);
	module_free(m);
	if (!n) {
		printf("   %s: no cpu_cost was sent\n", latency ? "latency all" : "counters");
		return -1;
	}
	printf("   %-26s reported %6.2f %% (%.2f .. %.2f), bench %6.2f %%: %.2fx\n",
	       latency ? "counters + latency all:" : "counters:", median(reported, n), min_of(reported, n),
	       max_of(reported, n), median(measured, n), median(reported, n) / median(measured, n));
	return 0;
}

int main(int argc, char **argv)
{
	static struct bench b;
	static const char *const syscall_tps[] = { "sys_enter", "sys_exit", NULL };
	int cpu, other, c, rc = 1;
	struct utsname u;

	b = (struct bench){ .rounds = 7, .batches = 40, .calls = 5000, .stats_fd = -1 };
	while ((c = getopt(argc, argv, "r:b:n:")) != -1) {
		switch (c) {
		case 'r': b.rounds = atoi(optarg); break;
		case 'b': b.batches = atoi(optarg); break;
		case 'n': b.calls = atol(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-r rounds] [-b batches] [-n calls per batch]\n", argv[0]);
			return 2;
		}
	}
	if (b.rounds < 1 || b.rounds > SBS_MAX_ROUNDS || b.batches < 1 || b.batches > SBS_MAX_BATCHES || b.calls < 1000) {
		fprintf(stderr, "cost_window: -r 1..%d, -b 1..%d, -n 1000 or more\n", SBS_MAX_ROUNDS, SBS_MAX_BATCHES);
		return 2;
	}
	if (bench_stats_setup("cost_window"))
		return 1;
	choose_cpus(&cpu, &other);
	pin_to_cpu(cpu);
	uname(&u);
	printf("collectd-ebpf cost_window: kernel %s %s, %ld CPUs online, bench pinned to CPU %d\n", u.release,
	       u.machine, sysconf(_SC_NPROCESSORS_ONLN), cpu);
	b.empty = empty_bpf__open_and_load();
	if (!b.empty) {
		fprintf(stderr, "loading bench/empty.bpf.o: %s\n", strerror(errno));
		return 1;
	}
	b.sbs = (struct side_by_side){ .ncfg = NCFG, .rounds = b.rounds, .batches = b.batches,
				       .tracepoints = syscall_tps, .ctx = &b, .batch = getppid_batch,
				       .attach = attach, .detach = detach };
	if (sbs_run(&b.sbs))
		goto out;
	print_section1(&b);
	printf("\n2. cpu_cost as the module sends it (the syscalls module, every process counted, read once a\n"
	       "   second for 10 s, CostPeriod 3: the statistics on for one second in three) against the\n"
	       "   bench's figure: added ns (section 1, stats off) x the loop's syscalls per second over\n"
	       "   the same second; in %% of one CPU, median (min .. max) of the reads. Other processes'\n"
	       "   syscalls are in the reported value only.\n\n");
	if (reported_vs_measured(&b, false, added(&b, TP_BTF)) || reported_vs_measured(&b, true, added(&b, LATENCY)))
		goto out;
	sbs_warn_foreign(&b.sbs, "sys_enter/sys_exit during section 1");
	rc = 0;
out:
	detach(&b);
	empty_bpf__destroy(b.empty);
	return rc;
}
