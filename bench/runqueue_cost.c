/* bench/runqueue_cost: what the `runqueue` module costs per scheduler event, side by
 * side in one run.
 *
 * The ping-pong of bench/pingpong.h (two wakeups and two context switches per round trip);
 * the bench measures the switches per round trip with getrusage() and prints them. Timed
 * with nothing attached, the module on its default tp_btf + task storage, the module forced
 * onto raw_tp + its pid hash (AttachOrder raw_tp), with its witnesses, By "cgroup" without
 * and with Behind, and bpftrace running a runqlat-style script. Rounds, batches and
 * the table come from side_by_side.c.
 *
 * Numbers only, never judged: exit 0 when it ran, 1 when it could not.
 */
#include "bench/bpftrace_child.h"
#include "bench/measure.h"
#include "bench/pingpong.h"
#include "bench/side_by_side.h"
#include "libcore/engine/libbpf_log.h"
#include "libcore/engine/module.h"
#include "bpf/syscalls.h"
#include "libcore/kernel/privileges.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* runqlat's idea in bpftrace: a wait starts at a wakeup, or at a switch away from a
 * thread still runnable (state 0, or TASK_REPORT_MAX 0x100 for a preempted one), and ends
 * at the switch to it; start times in a pid-keyed map. */
static const char bpftrace_script[] =
	"BEGIN { printf(\"ready\\n\"); }"
	" tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @start[args->pid] = nsecs; }"
	" tracepoint:sched:sched_switch {"
	" if ((args->prev_state & 0xff) == 0) { @start[args->prev_pid] = nsecs; }"
	" $s = @start[args->next_pid];"
	" if ($s) { @ns = hist(nsecs - $s); delete(@start[args->next_pid]); } }";

enum cfg { NO_PROBE, TASK_STORAGE, BEFORE, PID_HASH, WITNESS, CGROUP, BEHIND, SYSCALLS_BY, SYSCALLS_BY_NO_SWITCH,
	   BPFTRACE, NCFG };

static const char *const labels[NCFG] = {
	[NO_PROBE] = "no probe",
	[TASK_STORAGE] = "runqueue (default)",
	/* The layout before libcore/engine/map_layout.h, side by side with today's. */
	[BEFORE] = "runqueue, every map per-CPU (before)",
	[PID_HASH] = "runqueue, AttachOrder raw_tp",
	/* Its three tracepoints each run one more program, which counts the firing. */
	[WITNESS] = "runqueue, Witness true",
	[CGROUP] = "runqueue, By \"cgroup\"",
	/* Behind: a holder span per switch, each wait split over them (wait_behind.bpf.h). */
	[BEHIND] = "runqueue, By \"cgroup\", Behind true",
	/* The syscalls module By "cgroup" keeps its slot cache true with a program on sched_switch
	 * (bpf/include/cgroup_slot.bpf.h): the same with that program detached, to tell its cost
	 * per switch from the ping-pong's syscalls'. */
	[SYSCALLS_BY] = "syscalls, By \"cgroup\"",
	[SYSCALLS_BY_NO_SWITCH] = "  same, its sched_switch program detached",
	[BPFTRACE] = "bpftrace runqlat-style",
};
/* "added vs": the default against the layout before; Behind against By "cgroup" without it;
 * the others against the default. */
static const int refs[NCFG] = { -1, BEFORE, -1, TASK_STORAGE, TASK_STORAGE, TASK_STORAGE, CGROUP, SYSCALLS_BY_NO_SWITCH,
				-1, TASK_STORAGE };

struct bench {
	int rounds, batches, other_cpu;
	struct pingpong pp;
	double switches_per_trip;
	struct module *mod;
	struct bpftrace_child bt;
	const char *bpftrace;
	char bpftrace_why[ERR_MAX];
	char method[NCFG][64];
	char layout[NCFG][96]; /* how each configuration's array maps were laid out */
	struct side_by_side sbs;
};

static double batch(void *ctx)
{
	return pingpong_batch(&((struct bench *)ctx)->pp);
}

static int attach(void *ctx, int c, int round)
{
	struct bench *b = ctx;

	(void)round;
	if (c == BPFTRACE) {
		if (!b->bpftrace || bpftrace_start(&b->bt, b->bpftrace, bpftrace_script, 30000, b->bpftrace_why,
						   sizeof(b->bpftrace_why))) {
			b->bpftrace = NULL;
			return SBS_LEFT_OUT;
		}
		return SBS_ATTACHED;
	}
	b->mod = module_new(module_find(c == SYSCALLS_BY || c == SYSCALLS_BY_NO_SWITCH ? "syscalls" : "runqueue"), NULL);
	if (!b->mod)
		return SBS_FAILED;
	if (c == PID_HASH &&
	    bench_set_option(b->mod, "AttachOrder", (struct opt_value){ .type = OPT_STRING, .string = "raw_tp" }))
		return SBS_FAILED;
	if (c == WITNESS && bench_set_option(b->mod, "Witness", (struct opt_value){ .type = OPT_BOOLEAN, .boolean = true }))
		return SBS_FAILED;
	if ((c == CGROUP || c == BEHIND || c == SYSCALLS_BY || c == SYSCALLS_BY_NO_SWITCH) &&
	    bench_set_option(b->mod, "By", (struct opt_value){ .type = OPT_STRING, .string = "cgroup" }))
		return SBS_FAILED;
	if (c == BEHIND && bench_set_option(b->mod, "Behind", (struct opt_value){ .type = OPT_BOOLEAN, .boolean = true }))
		return SBS_FAILED;
	if (bench_start_in_layout(b->mod, c == BEFORE ? LAYOUT_BEFORE : LAYOUT_HERE)) {
		fprintf(stderr, "runqueue module (%s) did not start: %s\n", labels[c], b->mod->last_error);
		return SBS_FAILED;
	}
	/* the slot point's first program is its sched_switch one (libcore/modules/syscalls.c) */
	if (c == SYSCALLS_BY_NO_SWITCH && probe_point_detach_prog(&b->mod->probes.points[SYSCALLS_POINT_SLOTS], 0))
		return SBS_FAILED;
	module_methods(b->mod, b->method[c], sizeof(b->method[c]));
	module_layout(b->mod, b->layout[c], sizeof(b->layout[c]));
	return SBS_ATTACHED;
}

static void detach(void *ctx)
{
	struct bench *b = ctx;

	module_free(b->mod);
	b->mod = NULL;
	bpftrace_stop(&b->bt);
}

static void print_results(const struct bench *b)
{
	/* Each blocking read is one switch away and, later, one wakeup. */
	double events = 2 * b->switches_per_trip;

	printf("\nCost per round trip: ping-pong of two threads over pipes on CPU %d (%s), %d rounds x %d\n"
	       "batches x %d round trips. Each round takes the fastest batch; shown: the median of the\n"
	       "rounds and min .. max over rounds. added ns: over no-probe batches run just before each\n"
	       "measurement, median of the rounds. x no-probe: ns over the no-probe ns.\n\n",
	       b->pp.cpu, b->pp.fifo ? "SCHED_FIFO" : "SCHED_OTHER: SCHED_FIFO refused", b->rounds, b->batches, b->pp.trips);
	sbs_print_table(&b->sbs, labels, refs, "ns/trip");
	printf("\n   Context switches per round trip (getrusage, no probe): %.2f; taken as %.2f scheduler events\n"
	       "   (each switch away from a blocked reader is matched by one wakeup).\n\n", b->switches_per_trip,
	       events);
	printf("   Per scheduler event (added ns / %.2f):\n", events);
	for (int c = 1; c < NCFG; c++)
		if (!b->sbs.left_out[c])
			printf("   %-40s %7.1f ns\n", labels[c], median(b->sbs.added[c], b->rounds) / events);
	if (!b->sbs.left_out[SYSCALLS_BY] && !b->sbs.left_out[SYSCALLS_BY_NO_SWITCH])
		printf("   syscalls By \"cgroup\"'s sched_switch program, per context switch: %.1f ns\n"
		       "   (its added ns less that of the same with the program detached, / %.2f switches)\n",
		       (median(b->sbs.added[SYSCALLS_BY], b->rounds) - median(b->sbs.added[SYSCALLS_BY_NO_SWITCH], b->rounds)) /
			       b->switches_per_trip, b->switches_per_trip);
	printf("\n   The module attached via %s by default and via %s with AttachOrder raw_tp.\n",
	       b->method[TASK_STORAGE], b->method[PID_HASH]);
	printf("   Maps: default %s; before %s.\n", b->layout[TASK_STORAGE], b->layout[BEFORE]);
	if (b->sbs.left_out[BPFTRACE])
		printf("   bpftrace: %s\n", b->bpftrace_why);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-r rounds] [-b batches] [-n round trips per batch] [-T]\n"
			"  -T  leave bpftrace out\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const char *const sched_tps[] = { "sched_wakeup", "sched_wakeup_new", "sched_switch", NULL };
	static struct bench b; /* large: per-round samples */
	bool no_bpftrace = false;
	struct utsname u;
	int opt, rc = 1;

	b.rounds = 7;
	b.batches = 30;
	b.pp.trips = 1000;
	while ((opt = getopt(argc, argv, "r:b:n:T")) != -1) {
		switch (opt) {
		case 'r': b.rounds = atoi(optarg); break;
		case 'b': b.batches = atoi(optarg); break;
		case 'n': b.pp.trips = atoi(optarg); break;
		case 'T': no_bpftrace = true; break;
		default: usage(argv[0]);
		}
	}
	if (b.rounds < 1 || b.rounds > SBS_MAX_ROUNDS || b.batches < 1 || b.batches > SBS_MAX_BATCHES ||
	    b.pp.trips < 100)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!privileges_sufficient() || access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "runqueue_cost: needs root (or CAP_BPF + CAP_PERFMON) and a kernel with BTF\n"
				"(/sys/kernel/btf/vmlinux): sudo make bench\n");
		return 1;
	}
	ebpf_log_set_handler(bench_quiet_log);
	ebpf_log_capture_libbpf();
	b.bt.pid = b.bt.out = -1;
	b.bpftrace = no_bpftrace ? NULL : bpftrace_find("sched", b.bpftrace_why, sizeof(b.bpftrace_why));
	if (no_bpftrace)
		snprintf(b.bpftrace_why, sizeof(b.bpftrace_why), "left out (-T)");
	choose_cpus(&b.pp.cpu, &b.other_cpu);
	pin_to_cpu(b.pp.cpu);
	if (pingpong_start(&b.pp)) {
		perror("runqueue_cost: pipes and the partner thread");
		return 1;
	}
	uname(&u);
	printf("collectd-ebpf runqueue_cost: kernel %s %s, %ld CPUs online, both threads pinned to CPU %d\n",
	       u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN), b.pp.cpu);
	b.switches_per_trip = pingpong_switches_per_trip(&b.pp);

	b.sbs = (struct side_by_side){ .ncfg = NCFG, .rounds = b.rounds, .batches = b.batches,
				       .tracepoints = sched_tps, .ctx = &b, .batch = batch,
				       .attach = attach, .detach = detach };
	b.sbs.left_out[BPFTRACE] = !b.bpftrace;
	if (sbs_run(&b.sbs) == 0) {
		print_results(&b);
		sbs_warn_foreign(&b.sbs, "the scheduler tracepoints");
		rc = 0;
	}
	detach(&b);
	pingpong_stop(&b.pp);
	return rc;
}
